package notice

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zone below must not depend on the machine's zoneinfo

	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from this run")

// seededStory stores a realistic 2,000-observation history of payments-api in Berlin
// time, ending on Tuesday 1 Dec 2026 at 17:30, and returns the database.
func seededStory(t *testing.T) (*store.DB, *time.Location) {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	db, err := memory.Memory{DataDir: t.TempDir()}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	end := time.Date(2026, 12, 1, 17, 30, 0, 0, loc)
	if err := seed.Story(context.Background(), db, "payments-api", 2000, end, loc); err != nil {
		t.Fatal(err)
	}
	return db, loc
}

var (
	sessionHeading = regexp.MustCompile(`^### (\d\d:\d\d) .* \(session ([^ ]+)\)$`)
	obsLine        = regexp.MustCompile(`^- (\d+) (?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d `)
)

// TestStoryGolden renders the seeded history and checks the text against its golden copy
// and against what a story must be: within the budget and using at least 90% of it,
// grouped by local day and session in order, every observation under its own session,
// oldest first, the newest observation and the latest summary's lines in, no line twice,
// and the same bytes from a second, separate read.
func TestStoryGolden(t *testing.T) {
	db, loc := seededStory(t)
	ctx := context.Background()
	render := func() (string, Shown) {
		st, err := db.Story(ctx, "payments-api", 200)
		if err != nil {
			t.Fatal(err)
		}
		return Render(Context{Project: "payments-api", Story: st, Loc: loc})
	}
	text, shown := render()
	if again, _ := render(); again != text {
		t.Fatalf("a second render differs:\n%s\n----\n%s", text, again)
	}
	golden := filepath.Join("testdata", "story-2000.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("story differs from %s (go test ./notice -run TestStoryGolden -update rewrites it):\n%s", golden, text)
	}
	if len(text) > MaxContext || len(text) < MaxContext*9/10 {
		t.Errorf("story is %d bytes; want between %d and %d", len(text), MaxContext*9/10, MaxContext)
	}

	// What the store holds, to check the text against.
	full, err := db.Story(ctx, "payments-api", 2000)
	if err != nil {
		t.Fatal(err)
	}
	obsAt := map[string]time.Time{}
	obsSession := map[string]string{}
	for _, o := range full.Observations {
		id := strconv.FormatInt(o.ID, 10)
		obsAt[id], obsSession[id] = o.At, ShortSession(o.SessionID)
	}
	byShort := map[string]store.StorySession{}
	for id, s := range full.Sessions {
		byShort[ShortSession(id)] = s
	}
	latest := full.Summaries[0]

	lines := strings.Split(text, "\n")
	if lines[0] != "# claude-mem: payments-api — memory of past sessions" || lines[len(lines)-1] != SearchHint {
		t.Errorf("first %q, last %q", lines[0], lines[len(lines)-1])
	}
	seen := map[string]bool{}
	var day, session string
	var lastDay, lastStart, lastObs time.Time
	sessions, observations := 0, 0
	for i, l := range lines {
		if seen[l] {
			t.Errorf("line %d repeats: %q", i, l)
		}
		seen[l] = true
		switch {
		case strings.HasPrefix(l, "## "):
			d, err := time.ParseInLocation("Mon 2 Jan 2006", l[3:], loc)
			if err != nil || !d.After(lastDay) {
				t.Errorf("day heading %q out of order (%v)", l, err)
			}
			day, lastDay = l, d
		case strings.HasPrefix(l, "### "):
			m := sessionHeading.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("session heading %q", l)
			}
			s, ok := byShort[m[2]]
			start := s.StartedAt.In(loc)
			if !ok || m[1] != start.Format("15:04") || "## "+start.Format("Mon 2 Jan 2006") != day || start.Before(lastStart) {
				t.Errorf("session heading %q: session %+v under %q, after %v", l, s, day, lastStart)
			}
			session, lastStart, lastObs = m[2], start, time.Time{}
			sessions++
		case strings.HasPrefix(l, "- "):
			m := obsLine.FindStringSubmatch(l)
			if m == nil || obsSession[m[1]] != session || obsAt[m[1]].Before(lastObs) {
				t.Errorf("observation line %q under session %s (its session %s)", l, session, obsSession[m[1]])
				continue
			}
			lastObs = obsAt[m[1]]
			observations++
		case strings.HasPrefix(l, "Learned: ") || strings.HasPrefix(l, "Next: "):
			if session != ShortSession(latest.SessionID) {
				t.Errorf("%q under session %s, not the latest summary's %s", l, session, ShortSession(latest.SessionID))
			}
		}
	}
	if shown != (Shown{Observations: observations, Sessions: sessions}) || sessions < 3 || observations < 40 {
		t.Errorf("shown %+v; the text has %d sessions, %d observations", shown, sessions, observations)
	}
	newest := "- " + strconv.FormatInt(full.Observations[0].ID, 10) + " "
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, newest) }) {
		t.Errorf("the newest observation (%s) is not shown", newest)
	}
	for _, want := range []string{"Learned: " + latest.Learned, "Next: " + latest.NextSteps} {
		if !seen[want] {
			t.Errorf("lacks %q", want)
		}
	}
	if !strings.Contains(text, "(×") {
		t.Errorf("no near-duplicate collapsed in a history that has them")
	}

	// Notices come first and take their bytes from the oldest end of the story: the
	// budget still holds, the newest observation and the latest summary's lines stay.
	notices := []string{SetupNotFound("/home/u/bin/hook"), SettingsError("CLAUDE_MEM_MODEL", "", "empty", "haiku")}
	st, err := db.Story(ctx, "payments-api", 200)
	if err != nil {
		t.Fatal(err)
	}
	noticed, _ := Render(Context{Project: "payments-api", Story: st, Loc: loc, Notices: notices})
	head := strings.Join(notices, "\n") + "\n# claude-mem: payments-api — memory of past sessions\n"
	if !strings.HasPrefix(noticed, head) || len(noticed) > MaxContext || len(noticed) < MaxContext*9/10 {
		t.Errorf("with notices: %d bytes, starting %.300q", len(noticed), noticed)
	}
	for _, l := range strings.Split(noticed, "\n")[len(notices):] {
		if !seen[l] && !strings.HasPrefix(l, "## ") && !strings.HasPrefix(l, "### ") {
			t.Errorf("with notices, a line the story alone does not have: %q", l)
		}
	}
	for _, want := range []string{newest, "\nLearned: ", "\nNext: "} {
		if !strings.Contains(noticed, want) {
			t.Errorf("with notices, %q is gone", want)
		}
	}
}
