package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// turnsSession records a scripted session, times in seconds:
//
//	turn 1: prompt 10, events 11 12, answer 13
//	turn 2: prompt 20, answer 21 (no tool use)
//	turn 3: prompt 30, events 31 32, answer 33
//	turn 4: prompt 40, event 41, answer 42
//	turn 5: prompt 50, no answer (interrupted)
//	turn 6: prompt 60, events 61 62 63, answer 64
func turnsSession(t *testing.T, db *DB) Session {
	t.Helper()
	s := session("s1", "p")
	var recs []Captured
	for _, sec := range []int{10, 20, 30, 40, 50, 60} {
		recs = append(recs, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: fmt.Sprintf("P%d", sec), At: at(sec), RecordID: fmt.Sprint("p", sec)}})
	}
	for _, sec := range []int{13, 21, 33, 42, 64} {
		recs = append(recs, Captured{Kind: CaptureAnswer, Session: s, Answer: Answer{Text: fmt.Sprintf("A%d", sec), At: at(sec), RecordID: fmt.Sprint("a", sec)}})
	}
	if _, err := db.Ingest(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]int{{11, 2}, {31, 2}, {41, 1}, {61, 3}} {
		addEvents(t, db, s, e[0], e[1])
	}
	return s
}

func turnTexts(tu Turns) string {
	var ps, as []string
	for _, p := range tu.Prompts {
		ps = append(ps, p.Text)
	}
	for _, a := range tu.Answers {
		as = append(as, a.Text)
	}
	return strings.Join(ps, " ") + " | " + strings.Join(as, " ")
}

// Each batch is shown the turns its events belong to: an event-less turn goes with the
// batch after it, a turn split across batches is shown to both (its answer to the one
// that has the turn's last event), the last batch everything captured since, and an empty
// batch (a final run) the session's latest.
func TestTurnsOfABatch(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	turnsSession(t, db)
	for i, c := range []struct {
		take int
		want string
	}{
		{2, "P10 | A13"},         // events 11 12: turn 1; the next batch starts at 31
		{2, "P20 P30 | A21 A33"}, // events 31 32: turn 2 (no tool use) and turn 3
		{1, "P40 | A42"},         // event 41: turn 4; turn 6's events are pending
		{2, "P50 P60 | "},        // events 61 62: turns 5 and 6, whose last event 63 is pending
		{1, "P60 | A64"},         // event 63: the rest of turn 6 and everything after it
	} {
		run := fmt.Sprint("r", i)
		batch, err := db.Claim(ctx, "s1", run, c.take, at(100))
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.TurnsOf(ctx, "s1", batch, 30)
		if err != nil {
			t.Fatal(err)
		}
		if turnTexts(got) != c.want {
			t.Errorf("batch %d (events at %v): %q, want %q", i, batch[0].At.Sub(t0), turnTexts(got), c.want)
		}
		if _, err := db.CompleteRun(ctx, run, RunAnswer{}); err != nil {
			t.Fatal(err)
		}
	}
	// A final run with no events: the session's latest, limit of each.
	if got, err := db.TurnsOf(ctx, "s1", nil, 2); err != nil || turnTexts(got) != "P50 P60 | A42 A64" {
		t.Errorf("no events, limit 2: %q, %v", turnTexts(got), err)
	}
	// Control: another session's turns are never shown.
	other := session("s2", "p")
	if _, err := db.Ingest(ctx, []Captured{{Kind: CaptureAnswer, Session: other, Answer: Answer{Text: "OTHER", At: at(14), RecordID: "o"}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.TurnsOf(ctx, "s1", nil, 30); strings.Contains(turnTexts(got), "OTHER") || len(got.Answers) != 5 {
		t.Errorf("whole session: %q", turnTexts(got))
	}
}

// An answer is stored once per record id, with its session and project, and goes with a
// forgotten session.
func TestAnswersIngestedOnceAndForgotten(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "p")
	rec := Captured{Kind: CaptureAnswer, Session: s, Answer: Answer{Text: "Done: the retry was racing.", At: at(5), RecordID: "a1"},
		Day: "2026-11-30", Redacted: map[string]int{"github_token": 1}}
	for range 2 {
		if _, err := db.Ingest(ctx, []Captured{rec}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM answers WHERE session_id = 's1' AND project = 'p' AND text LIKE 'Done:%'`); n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	if n := count(t, db, `SELECT count FROM redactions WHERE kind = 'github_token'`); n != 1 {
		t.Errorf("redactions counted %d times, want once", n)
	}
	f, err := db.Forget(ctx, ForgetScope{Session: "s1"}, 10, nil)
	if err != nil || f.Answers != 1 {
		t.Fatalf("Forget: %+v, %v; want 1 answer", f, err)
	}
	if n := count(t, db, `SELECT count(*) FROM answers`); n != 0 {
		t.Errorf("%d answers left after forgetting their session", n)
	}
}

func TestTitleKey(t *testing.T) {
	same := [][]string{
		{"Fix the flaky upload tests.", "fix flaky upload test", "  FIX   the Flaky-Upload   Tests!! ", "Fix a flaky upload test"},
		{"Ledger entries are append-only", "ledger entries are append only"},
		{"Migrate to Go 1.26", "migrate to go 1 26"},
		{"Über-Caché redesigned", "über caché redesigned"},
	}
	differ := [][2]string{
		{"Fix flaky upload test", "Fixed flaky upload test"},
		{"Add class", "Add clas"}, // ss is no plural
		{"Use HTTP/2", "Use HTTP/3"},
		{"Bus stop", "Bu stop"}, // a three-letter word keeps its s
	}
	for _, group := range same {
		for _, title := range group[1:] {
			if TitleKey(title) != TitleKey(group[0]) {
				t.Errorf("TitleKey(%q) = %q, TitleKey(%q) = %q: want equal", title, TitleKey(title), group[0], TitleKey(group[0]))
			}
		}
	}
	for _, d := range differ {
		if TitleKey(d[0]) == TitleKey(d[1]) {
			t.Errorf("TitleKey(%q) = TitleKey(%q) = %q: want different", d[0], d[1], TitleKey(d[0]))
		}
	}
}

// A duplicate is a title with the same key and type within the project's DuplicateWindow:
// reworded, recased or re-punctuated, with another narrative; another type, another
// project, an empty title or an older one is stored.
func TestDuplicateIsSameTypeAndTitleKeyWithinAWeek(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "p")
	addEvents(t, db, s, 0, 3)
	first := Observation{Type: "bugfix", Title: "Fix the flaky upload tests", Narrative: "one", At: at(10)}
	if _, err := db.Claim(ctx, "s1", "r1", 1, at(10)); err != nil {
		t.Fatal(err)
	}
	if dups, err := db.CompleteRun(ctx, "r1", RunAnswer{Observations: []Observation{first, {Type: "bugfix", Title: "", At: at(10)}, {Type: "bugfix", Title: "", At: at(10)}}}); err != nil || dups != 0 {
		t.Fatalf("first run: %d duplicates, %v; want none (empty titles are never duplicates)", dups, err)
	}
	if _, err := db.Claim(ctx, "s1", "r2", 1, at(20)); err != nil {
		t.Fatal(err)
	}
	sixDays := at(10).Add(DuplicateWindow - at(10).Sub(at(9)))
	obs := []Observation{
		{Type: "bugfix", Title: "fix flaky upload test.", Narrative: "other words", At: sixDays}, // duplicate
		{Type: "discovery", Title: "Fix the flaky upload tests", Narrative: "one", At: sixDays},  // another type
		{Type: "bugfix", Title: "Fix the flaky upload tests", Project: "q", At: sixDays},         // another project
		{Type: "bugfix", Title: "Fix the flaky download tests", Narrative: "one", At: sixDays},   // another title
	}
	if dups, err := db.CompleteRun(ctx, "r2", RunAnswer{Observations: obs}); err != nil || dups != 1 {
		t.Fatalf("second run: %d duplicates, %v; want 1", dups, err)
	}
	if _, err := db.Claim(ctx, "s1", "r3", 1, at(30)); err != nil {
		t.Fatal(err)
	}
	// Past the window of the first, the one stored six days later still counts.
	late := at(10).Add(DuplicateWindow + 1)
	if dups, err := db.CompleteRun(ctx, "r3", RunAnswer{Observations: []Observation{{Type: "bugfix", Title: "Fix flaky download test", At: late}, {Type: "bugfix", Title: "FIX THE FLAKY UPLOAD TESTS", At: late}}}); err != nil || dups != 1 {
		t.Fatalf("third run: %d duplicates, %v; want 1 (the download one, six days old; the upload one is over a week old)", dups, err)
	}
	// p keeps: the first and the two untitled; another type and another title; the
	// upload fix again, a week on.
	if n, want := count(t, db, `SELECT count(*) FROM observations WHERE project = 'p'`), 3+2+1; n != want {
		t.Errorf("%d observations of p, want %d", n, want)
	}
}
