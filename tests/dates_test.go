//go:build linux

package tests

import (
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// The zones of the date round trip: UTC−8, UTC, UTC+9.
var dateZones = []string{"Etc/GMT+8", "UTC", "Asia/Tokyo"}

var (
	// A record's date in a text line: "#1 2026-12-01 [" (search, MCP search), "  #1
	// 2026-12-01 17:00 [" (timeline), "#1 2026-12-01 17:00:00 [" (get_observations).
	textDateRE = regexp.MustCompile(`#(\S+) (\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?) \[`)
	// The viewer's day heading and a record page's time.
	viewerHeadRE = regexp.MustCompile(`<h2><time datetime="[^"]+">([^<]+)</time></h2>`)
	viewerTimeRE = regexp.MustCompile(`<time datetime="([^"]+)">([^<]+)</time>`)
)

// shownDates is every date the product shows for the observation #1, with TZ=zone: search
// (text, --json), the MCP tools (text and structured content of search, timeline and
// get_observations), stats (text, --json: the day of the run that made it), the viewer
// (timeline heading, record page) and the SessionStart story (the heading it is under).
func shownDates(t *testing.T, h *harness, zone string) map[string][]string {
	t.Helper()
	h.env["TZ"] = zone
	out := map[string][]string{}
	add := func(where string, s ...string) { out[where] = append(out[where], s...) }
	texts := func(where, s string) {
		for _, m := range textDateRE.FindAllStringSubmatch(s, -1) {
			if m[1] == "1" {
				add(where, m[2])
			}
		}
	}

	r := h.runIn(h.work, nil, nil, "search", "uploads")
	texts("search", r.stdout)
	r = h.runIn(h.work, nil, nil, "search", "--json", "uploads")
	var hit struct{ Ref, Time string }
	if err := json.Unmarshal([]byte(r.stdout), &hit); err != nil || hit.Ref != "1" {
		t.Fatalf("TZ=%s search --json: %q: %v", zone, r.stdout, err)
	}
	add("search --json", hit.Time)

	s := h.startMCP(h.proj, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "uploads"}},
		{"timeline", map[string]any{"id": 1}},
		{"get_observations", map[string]any{"ids": []int{1}}},
	} {
		var ans struct {
			Result struct {
				Content           []struct{ Text string }
				StructuredContent struct {
					Entries, Records []struct{ Ref, Time string }
				}
			}
		}
		if err := json.Unmarshal([]byte(s.call(c.tool, c.args)), &ans); err != nil || len(ans.Result.Content) == 0 {
			t.Fatalf("TZ=%s MCP %s: %v", zone, c.tool, err)
		}
		texts("MCP "+c.tool, ans.Result.Content[0].Text)
		for _, e := range append(ans.Result.StructuredContent.Entries, ans.Result.StructuredContent.Records...) {
			if e.Ref == "1" {
				add("MCP "+c.tool+" structured", e.Time)
			}
		}
	}
	if err := s.close(); err != nil {
		t.Fatalf("hook mcp: %v", err)
	}

	st := h.stats("--days", "4")
	if len(st.Rows) != 1 {
		t.Fatalf("TZ=%s stats: %+v, want the one run's day", zone, st.Rows)
	}
	add("stats --json", st.Rows[0].Day)
	r = h.runIn(h.work, nil, nil, "stats", "--days", "4")
	if m := regexp.MustCompile(`(?m)^ *(\d{4}-\d\d-\d\d) +proj `).FindStringSubmatch(r.stdout); m != nil {
		add("stats", m[1])
	}

	v := h.startViewer()
	tl := v.get("/timeline?project=proj")
	for _, m := range viewerHeadRE.FindAllStringSubmatch(tl, -1) {
		add("viewer timeline", html.UnescapeString(m[1]))
	}
	for _, m := range viewerTimeRE.FindAllStringSubmatch(v.get("/record/1"), -1) {
		add("viewer record", html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	v.stop()

	heading := ""
	for line := range strings.Lines(h.sessionStart("later").HookSpecificOutput.AdditionalContext) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "## "); ok {
			heading = d
		} else if strings.HasPrefix(line, "- 1 ") {
			add("story", heading)
		}
	}
	for _, where := range []string{"search", "search --json", "MCP search", "MCP search structured", "MCP timeline", "MCP timeline structured",
		"MCP get_observations", "MCP get_observations structured", "stats", "stats --json", "viewer timeline", "viewer record", "story"} {
		if len(out[where]) == 0 {
			t.Fatalf("TZ=%s: %s shows no date for #1", zone, where)
		}
	}
	return out
}

// lost lists the dates of shown that `hook mcp` with TZ=zone, passed each back as since and
// as until, does not answer #1 for.
func lost(t *testing.T, h *harness, zone string, shown map[string][]string) []string {
	t.Helper()
	h.env["TZ"] = zone
	s := h.startMCP(h.proj, nil)
	defer s.close()
	var out []string
	for where, dates := range shown {
		for _, d := range dates {
			for _, arg := range []string{"since", "until"} {
				var ans struct {
					Result struct {
						StructuredContent struct{ Entries []struct{ Ref string } }
					}
				}
				if err := json.Unmarshal([]byte(s.call("search", map[string]any{"query": "uploads", "project": "*", arg: d})), &ans); err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(ans.Result.StructuredContent.Entries, func(e struct{ Ref string }) bool { return e.Ref == "1" }) {
					out = append(out, where+" "+arg+" "+d)
				}
			}
		}
	}
	return out
}

// TestDates_ShownReadBack: every date shown for a record, in every place that shows one,
// passed back to the memory tools as since and as until, finds that record, at UTC−8, UTC
// and UTC+9 (issue 33: a record of 1 Dec 17:00 at UTC−8 was listed as 2026-12-02 and
// since 2026-12-02 excluded it). The record is put near midnight UTC, where the local
// date is another: 01:00 UTC (17:00 the day before at UTC−8), then 16:00 UTC (01:00 the
// next day at UTC+9). The control: the dates shown with TZ=UTC, read back in the other
// zones, lose the record.
func TestDates_ShownReadBack(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_DAILY_BUDGET_USD"] = "0"
	h.setScenario(fakeproto.Scenario{Answer: fixedAnswer, Usage: &costUsage})
	h.toolUse("a", "go test ./upload")
	if r := h.observe("a", nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	now := time.Now().UTC()
	day := now.Truncate(24 * time.Hour)
	if now.Sub(day) < 2*time.Hour {
		day = day.AddDate(0, 0, -1)
	}
	for _, at := range []time.Time{day.Add(time.Hour), day.Add(-8 * time.Hour)} {
		// The run, its session and its observation move to at: a black-box test cannot set
		// the binary's clock.
		for _, update := range []string{`UPDATE runs SET started_at = ?1, ended_at = ?1`, `UPDATE sessions SET started_at = ?1`,
			`UPDATE observations SET at = ?1`} {
			h.shiftBack(time.Duration(at.UnixNano()), update)
		}
		shown := map[string]map[string][]string{}
		for _, zone := range dateZones {
			shown[zone] = shownDates(t, h, zone)
			if l := lost(t, h, zone, shown[zone]); len(l) > 0 {
				t.Errorf("record of %v, TZ=%s: passed back, these dates shown for it do not find it: %q", at, zone, l)
			}
		}
		for _, zone := range dateZones {
			if zone != "UTC" && len(lost(t, h, zone, shown["UTC"])) == 0 {
				t.Errorf("control: the dates shown in UTC for a record of %v, read back with TZ=%s, lose nothing; the test cannot tell", at, zone)
			}
		}
	}
}
