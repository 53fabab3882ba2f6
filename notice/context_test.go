package notice

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

var day = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func TestRender(t *testing.T) {
	notices := []string{SetupNotFound("/bin/hook"), SettingsError("CLAUDE_MEM_MODEL", "", "empty", "haiku")}
	obs := []store.Observation{ // deliberately not in time order
		{ID: 121, Type: "discovery", Title: "Queue claim uses UPDATE … RETURNING", At: day.Add(-48 * time.Hour)},
		{ID: 123, Type: "bugfix", Title: "Fix race in queue claim", At: day},
		{ID: 122, Type: "decision", Title: "Keep events pending\non transient errors", At: day.Add(-24 * time.Hour)},
		{ID: 124, Title: "", Subtitle: "only a subtitle", At: day},
	}
	summary := &store.Summary{
		Request: "Fix the flaky queue test", Learned: "claim must be atomic",
		Completed: "race fixed\nand tested", NextSteps: "  ", At: day,
	}
	tests := []struct {
		name string
		c    Context
		want string
	}{
		{name: "refused project, no notices", c: Context{Observations: obs}, want: ""},
		{name: "refused project, notices only", c: Context{Notices: notices, Observations: obs}, want: notices[0] + "\n" + notices[1]},
		{name: "no memory", c: Context{Project: "web"}, want: "# claude-mem: web — no memory yet"},
		{name: "no memory with notice", c: Context{Project: "web", Notices: notices[:1]}, want: notices[0] + "\n# claude-mem: web — no memory yet"},
		{
			name: "observations and summary",
			c:    Context{Project: "my app", Observations: obs, Summary: summary, Notices: notices},
			want: notices[0] + "\n" + notices[1] + `
# claude-mem: my app

## Recent observations (newest first)
- #124 2026-11-30 only a subtitle
- #123 2026-11-30 [bugfix] Fix race in queue claim
- #122 2026-11-29 [decision] Keep events pending on transient errors
- #121 2026-11-28 [discovery] Queue claim uses UPDATE … RETURNING

## Latest session summary (2026-11-30)
- Request: Fix the flaky queue test
- Learned: claim must be atomic
- Completed: race fixed and tested

` + SearchHint,
		},
		{
			name: "summary only",
			c:    Context{Project: "web", Summary: &store.Summary{Request: "it's done"}},
			want: `# claude-mem: web

## Latest session summary
- Request: it's done

` + SearchHint,
		},
		{
			name: "observations only",
			c:    Context{Project: "web", Observations: obs[1:2]},
			want: `# claude-mem: web

## Recent observations (newest first)
- #123 2026-11-30 [bugfix] Fix race in queue claim

` + SearchHint,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(tt.c); got != tt.want {
				t.Errorf("Render =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

var obsLine = regexp.MustCompile(`^- #(\d+) \d{4}-\d{2}-\d{2} \[feature\] (x+|x+…)$`)

func TestRenderBounds(t *testing.T) {
	const n = 10000
	obs := make([]store.Observation, n)
	for i := range obs { // oldest first, as a store might return them
		obs[i] = store.Observation{ID: int64(i + 1), Type: "feature", Title: strings.Repeat("x", 50+i%400), At: day.Add(time.Duration(i) * time.Minute)}
	}
	big := strings.Repeat("long summary text ", 200)
	summary := &store.Summary{Request: big, Investigated: big, Learned: big, Completed: big, NextSteps: big, Notes: big, At: day}
	out := Render(Context{Project: "web", Observations: obs, Summary: summary, Notices: []string{SetupNotFound("/bin/hook")}})

	if len(out) > maxContext || len(out) < maxContext-1000 {
		t.Fatalf("len = %d, want just under %d", len(out), maxContext)
	}
	lines := strings.Split(out, "\n")
	if lines[0] != SetupNotFound("/bin/hook") || lines[1] != "# claude-mem: web" {
		t.Errorf("head = %q", lines[:2])
	}
	if last := lines[len(lines)-1]; last != SearchHint {
		t.Errorf("last line = %q", last)
	}
	if !strings.Contains(out, "\n- Notes: long summary") {
		t.Error("summary dropped")
	}
	// The observations kept are exactly the newest ones, newest first, each line whole.
	want := int64(n)
	for _, l := range lines {
		if !strings.HasPrefix(l, "- #") {
			continue
		}
		m := obsLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("malformed observation line %q", l)
		}
		if m[1] != fmt.Sprint(want) {
			t.Fatalf("observation #%s where #%d was expected", m[1], want)
		}
		want--
	}
	if kept := n - int(want); kept < 5 {
		t.Errorf("only %d observations kept", kept)
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 10, "abcdefg…"},
		{"ééééééé", 10, "ééé…"}, // 4 × 2 bytes + "…" (3 bytes) would be 11; never splits a rune
	}
	for _, tt := range tests {
		if got := clip(tt.s, tt.n); got != tt.want || len(got) > tt.n {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
