package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

func ids(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ToolUseID
	}
	return out
}

func TestClaimOldestFirstAndOnlyPending(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "p")
	// Recorded out of time order: a slow hook process committed late.
	for _, e := range []struct {
		id  string
		sec int
	}{{"c", 30}, {"a", 10}, {"d", 40}, {"b", 20}} {
		ingest(t, db, Captured{Kind: CaptureEvent, Session: s, Event: Event{ToolUseID: e.id, At: at(e.sec)}})
	}
	addEvents(t, db, session("other", "p"), 0, 3)

	first, err := db.Claim(ctx, "s1", "run1", 2, at(100))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(first); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("first claim %v, want [a b]", got)
	}
	for _, e := range first {
		if e.State != StateProcessing || e.RunID != "run1" || e.Attempts != 0 {
			t.Errorf("claimed event %+v: want processing, run1, 0 attempts", e)
		}
	}
	second, err := db.Claim(ctx, "s1", "run2", 10, at(101))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(second); !reflect.DeepEqual(got, []string{"c", "d"}) {
		t.Errorf("second claim %v, want [c d]", got)
	}
	third, err := db.Claim(ctx, "s1", "run3", 10, at(102))
	if err != nil || len(third) != 0 {
		t.Errorf("third claim %v, %v; want nothing left", ids(third), err)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Pending: 3, Processing: 4}) {
		t.Errorf("Counts = %+v, want 3 pending (other session), 4 processing", c)
	}
	if got, err := db.Claim(ctx, "other", "run4", 0, at(103)); err != nil || got != nil {
		t.Errorf("limit 0 claimed %v, %v", ids(got), err)
	}
	for _, bad := range []struct {
		run string
		now time.Time
	}{{"", at(104)}, {"run5", time.Time{}}} {
		if _, err := db.Claim(ctx, "other", bad.run, 1, bad.now); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Claim(run %q, now %v): %v, want ErrInvalidArgument", bad.run, bad.now, err)
		}
	}
}

func TestHasPending(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "p"), 0, 2)
	check := func(id string, want bool) {
		t.Helper()
		if got, err := db.HasPending(ctx, id); err != nil || got != want {
			t.Errorf("HasPending(%s) = %v, %v; want %v", id, got, err, want)
		}
	}
	check("s1", true)
	check("nobody", false)
	if _, err := db.Claim(ctx, "s1", "run", 10, at(10)); err != nil {
		t.Fatal(err)
	}
	check("s1", false) // processing is not pending
	if _, err := db.Release(ctx, "run", false, 3); err != nil {
		t.Fatal(err)
	}
	check("s1", true)
}

func TestStaleSessions(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("old", "p"), 0, 3)     // oldest pending at 0
	addEvents(t, db, session("fresh", "p"), 500, 2) // oldest pending at 500
	addEvents(t, db, session("claimed", "p"), 0, 2) // old, claimed at 600 by a run that may be alive
	addEvents(t, db, session("also-old", "q"), 100, 1)
	if _, err := db.Claim(ctx, "claimed", "run", 10, at(600)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		olderThan time.Time
		want      []string
	}{
		{at(0), nil},
		{at(1), []string{"old"}},
		// Oldest first: a backlog is worked off in the order it was captured.
		{at(101), []string{"old", "also-old"}},
		{at(600), []string{"old", "also-old", "fresh"}},
		// Claimed before the horizon and never finished: the run died, so the session is stale.
		{at(601), []string{"claimed", "old", "also-old", "fresh"}},
	} {
		got, err := db.StaleSessions(ctx, c.olderThan)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("StaleSessions(%v) = %v, %v; want %v", c.olderThan, got, err, c.want)
		}
	}
}

func TestReleaseCountsAttemptsUntilFailed(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "p"), 0, 2)
	for attempt := 1; attempt <= 3; attempt++ {
		run := "run" + string(rune('0'+attempt))
		got, err := db.Claim(ctx, "s1", run, 10, at(100+attempt))
		if err != nil || len(got) != 2 {
			t.Fatalf("attempt %d: claimed %v, %v", attempt, ids(got), err)
		}
		for _, e := range got {
			if e.Attempts != attempt-1 {
				t.Errorf("attempt %d: event %s has %d attempts", attempt, e.ToolUseID, e.Attempts)
			}
		}
		// A transient failure in between counts nothing.
		if failed, err := db.Release(ctx, run, false, 3); err != nil || failed != 0 {
			t.Fatalf("transient release: %d, %v", failed, err)
		}
		if _, err := db.Claim(ctx, "s1", run, 10, at(100+attempt)); err != nil {
			t.Fatal(err)
		}
		failed, err := db.Release(ctx, run, true, 3)
		wantFailed := 0
		if attempt == 3 {
			wantFailed = 2
		}
		if err != nil || failed != wantFailed {
			t.Fatalf("attempt %d: Release = %d, %v; want %d failed", attempt, failed, err, wantFailed)
		}
	}
	if c, _ := db.Counts(ctx); c != (Counts{Failed: 2}) {
		t.Errorf("Counts = %+v, want 2 failed (kept, not deleted)", c)
	}
	if n := count(t, db, "SELECT count(*) FROM events WHERE attempts = 3 AND state = 'failed'"); n != 2 {
		t.Errorf("%d events failed with 3 attempts, want 2", n)
	}
	if got, _ := db.Claim(ctx, "s1", "run9", 10, at(200)); len(got) != 0 {
		t.Errorf("failed events were claimed again: %v", ids(got))
	}
	if pending, _ := db.HasPending(ctx, "s1"); pending {
		t.Error("failed events count as pending")
	}
	if _, err := db.Release(ctx, "run9", true, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("maxAttempts 0: %v, want ErrInvalidArgument", err)
	}
}

func TestReleaseTouchesOnlyItsRun(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "p"), 0, 2)
	addEvents(t, db, session("s2", "p"), 0, 3)
	for _, c := range []struct{ s, run string }{{"s1", "a"}, {"s2", "b"}} {
		if _, err := db.Claim(ctx, c.s, c.run, 10, at(10)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Release(ctx, "a", true, 1); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Processing: 3, Failed: 2}) {
		t.Errorf("Counts = %+v, want run b's 3 still processing, run a's 2 failed", c)
	}
}

func TestRequeueStale(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "p"), 0, 2)
	addEvents(t, db, session("s2", "p"), 0, 3)
	if _, err := db.Claim(ctx, "s1", "dead", 10, at(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Claim(ctx, "s2", "alive", 10, at(200)); err != nil {
		t.Fatal(err)
	}
	n, err := db.RequeueStale(ctx, at(150))
	if err != nil || n != 2 {
		t.Fatalf("RequeueStale = %d, %v; want 2", n, err)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Pending: 2, Processing: 3}) {
		t.Errorf("Counts = %+v", c)
	}
	if n := count(t, db, "SELECT count(*) FROM events WHERE attempts > 0"); n != 0 {
		t.Errorf("requeue counted %d attempts", n)
	}
	// The dead run's late CompleteRun finds no claim and stores nothing.
	if _, err := db.CompleteRun(ctx, "dead", RunAnswer{Observations: []Observation{{Title: "late"}}}); !errors.Is(err, ErrNoClaim) {
		t.Errorf("late CompleteRun: %v, want ErrNoClaim", err)
	}
	if n := count(t, db, "SELECT count(*) FROM observations"); n != 0 {
		t.Errorf("late CompleteRun stored %d observations", n)
	}
}

func TestCompleteRun(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "alpha"), 0, 3)
	addEvents(t, db, session("s2", "alpha"), 0, 1)
	if _, err := db.Claim(ctx, "s1", "run1", 10, at(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Claim(ctx, "s2", "run2", 10, at(100)); err != nil {
		t.Fatal(err)
	}
	obs := []Observation{
		{Type: "bugfix", Title: "Parser fixed", Subtitle: "off by one", Narrative: "The loop ended early.",
			Facts: []string{"loop bound was len-1"}, Concepts: []string{"gotcha"},
			FilesRead: []string{"a.go"}, FilesModified: []string{"a.go", "b.go"}, At: at(110)},
		{Type: "discovery", Title: "No timestamp given"},
	}
	sum := &Summary{Request: "fix parser", Investigated: "loop", Learned: "bounds", Completed: "fix",
		NextSteps: "tests", Notes: "none", At: at(120)}
	if _, err := db.CompleteRun(ctx, "run1", RunAnswer{Observations: obs, Summary: sum}); err != nil {
		t.Fatal(err)
	}
	got, err := db.RecentObservations(ctx, "alpha", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Observation{obs[0], obs[1]}
	for i := range want {
		want[i].ID, want[i].SessionID, want[i].Project, want[i].RunID = int64(i+1), "s1", "alpha", "run1"
	}
	want[1].At = at(100) // a zero time defaults to the claim time; newest first
	if !reflect.DeepEqual(got, want) {
		t.Errorf("observations\n%+v\nwant\n%+v", got, want)
	}
	gotSum, err := db.LatestSummary(ctx, "alpha")
	wantSum := *sum
	wantSum.ID, wantSum.SessionID, wantSum.Project, wantSum.RunID = 1, "s1", "alpha", "run1"
	if err != nil || gotSum == nil || *gotSum != wantSum {
		t.Errorf("summary %+v, %v; want %+v", gotSum, err, wantSum)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Done: 3, Processing: 1}) {
		t.Errorf("Counts = %+v, want run1's 3 done, run2's 1 still processing", c)
	}
	if _, err := db.CompleteRun(ctx, "run1", RunAnswer{Observations: obs}); !errors.Is(err, ErrNoClaim) {
		t.Errorf("second CompleteRun of run1: %v, want ErrNoClaim", err)
	}
	// A run with nothing to say still finishes its events.
	if _, err := db.CompleteRun(ctx, "run2", RunAnswer{}); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Done: 4}) {
		t.Errorf("Counts = %+v, want 4 done", c)
	}
}

// A run that never claimed anything (a final run after an earlier run took every event)
// stores rows that name their session, project and time; a run whose claim is over
// stores nothing.
func TestCompleteRunWithoutClaim(t *testing.T) {
	ctx := context.Background()
	full := func() *Summary {
		return &Summary{SessionID: "s1", Project: "p", RunID: "final", Request: "r", At: at(50)}
	}
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T, db *DB) // leaves run "final" in some state
		obs     []Observation
		sum     *Summary
		wantErr error
		stored  int // observations + summaries
	}{
		{"summary naming its session", nil, nil, full(), nil, 1},
		{"observation naming its session", nil, []Observation{{SessionID: "s1", Project: "p", Title: "t", At: at(50)}}, nil, nil, 1},
		{"nothing to store", nil, nil, nil, nil, 0},
		{"summary without session", nil, nil, &Summary{Project: "p", At: at(50)}, ErrInvalidArgument, 0},
		{"summary without time", nil, nil, &Summary{SessionID: "s1", Project: "p"}, ErrInvalidArgument, 0},
		{"observation without project", nil, []Observation{{SessionID: "s1", At: at(50)}}, full(), ErrInvalidArgument, 0},
		{"released run", func(t *testing.T, db *DB) {
			claim(t, db, "final")
			if _, err := db.Release(ctx, "final", false, 3); err != nil {
				t.Fatal(err)
			}
		}, nil, full(), ErrNoClaim, 0},
		{"failed run", func(t *testing.T, db *DB) {
			claim(t, db, "final")
			if _, err := db.Release(ctx, "final", true, 1); err != nil {
				t.Fatal(err)
			}
		}, nil, full(), ErrNoClaim, 0},
		{"completed run", func(t *testing.T, db *DB) {
			claim(t, db, "final")
			if _, err := db.CompleteRun(ctx, "final", RunAnswer{}); err != nil {
				t.Fatal(err)
			}
		}, nil, full(), ErrNoClaim, 0},
		{"requeued stale run", func(t *testing.T, db *DB) {
			claim(t, db, "final")
			if _, err := db.RequeueStale(ctx, at(1000)); err != nil {
				t.Fatal(err)
			}
		}, nil, full(), ErrNoClaim, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			addEvents(t, db, session("s1", "p"), 0, 1)
			if c.prepare != nil {
				c.prepare(t, db)
			}
			if _, err := db.CompleteRun(ctx, "final", RunAnswer{Observations: c.obs, Summary: c.sum}); !errors.Is(err, c.wantErr) {
				t.Fatalf("CompleteRun: %v, want %v", err, c.wantErr)
			}
			if n := count(t, db, "SELECT (SELECT count(*) FROM observations) + (SELECT count(*) FROM summaries)"); n != c.stored {
				t.Errorf("%d rows stored, want %d", n, c.stored)
			}
		})
	}
}

func claim(t *testing.T, db *DB, run string) {
	t.Helper()
	if got, err := db.Claim(context.Background(), "s1", run, 10, at(100)); err != nil || len(got) == 0 {
		t.Fatalf("Claim: %v, %v", got, err)
	}
}

// CompleteRun is one transaction: when any part fails (here the second observation names a
// session that does not exist), no observation, no summary and no state change remains.
func TestCompleteRunIsAtomic(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	addEvents(t, db, session("s1", "p"), 0, 3)
	if _, err := db.Claim(ctx, "s1", "run", 10, at(100)); err != nil {
		t.Fatal(err)
	}
	obs := []Observation{{Title: "fine"}, {Title: "orphan", SessionID: "no-such-session"}}
	if _, err := db.CompleteRun(ctx, "run", RunAnswer{Observations: obs, Summary: &Summary{Request: "r"}}); err == nil {
		t.Fatal("CompleteRun with an orphan observation succeeded")
	}
	for _, table := range []string{"observations", "summaries"} {
		if n := count(t, db, "SELECT count(*) FROM "+table); n != 0 {
			t.Errorf("%d rows left in %s", n, table)
		}
	}
	if got, _ := db.Search(ctx, "fine", "", 10); len(got) != 0 {
		t.Errorf("search finds rows of a rolled back CompleteRun: %+v", got)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Processing: 3}) {
		t.Errorf("Counts = %+v, want the 3 events still processing", c)
	}
	if _, err := db.CompleteRun(ctx, "run", RunAnswer{Observations: obs[:1]}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if c, _ := db.Counts(ctx); c != (Counts{Done: 3}) {
		t.Errorf("Counts = %+v, want 3 done", c)
	}
}

// Every statement of the queue and of SessionStart's reads finds its rows through an
// index: none scans a whole table, except Counts, which counts every event (from the
// smallest index).
func TestStatementsUseIndexes(t *testing.T) {
	db, _ := openTest(t)
	for name, c := range map[string]struct {
		sql  string
		args []any
	}{
		"HasPending":          {sqlHasPending, []any{"s"}},
		"StaleSessions":       {sqlStaleSessions, []any{1}},
		"Claim":               {fmt.Sprintf(sqlClaim, sqlLimit(10)), []any{"r", 1, "s"}},
		"RequeueStale":        {sqlRequeueStale, []any{1}},
		"RunClaim":            {sqlRunClaim, []any{"r"}},
		"RunSeen":             {sqlRunSeen, []any{"r"}},
		"NeedsSummary":        {sqlNeedsSummary, []any{"s", TrivialChars}},
		"Trivial":             {sqlTrivial, []any{"s", TrivialChars}},
		"SameType":            {sqlSameType, []any{"p", 1, "bugfix"}},
		"EventBefore":         {sqlEventBefore, []any{"s", 1}},
		"PendingAfter":        {sqlPendingAfter, []any{"s", 1}},
		"TurnEnd":             {sqlTurnEnd, []any{"s", 1}},
		"TurnStart":           {sqlTurnStart, []any{"s", 1}},
		"PromptsWithin":       {sqlPromptsWithin + sqlLimit(30), []any{"s", 1, 2}},
		"AnswersWithin":       {sqlAnswersWithin + sqlLimit(30), []any{"s", 1, 2}},
		"PendingFinals":       {sqlPendingFinals, []any{1, 3}},
		"SessionPrompts":      {sqlSessionPrompts + sqlLimit(20), []any{"s"}},
		"SessionObservations": {sqlSessionObservations + sqlLimit(50), []any{"s"}},
		"RunDone":             {sqlRunDone, []any{"r"}},
		"ReleasePending":      {sqlReleasePending, []any{"r"}},
		"ReleaseCounted":      {sqlReleaseCounted, []any{"r", 3}},
		"Counts":              {sqlCounts, nil},
		"ClaimedRuns":         {sqlClaimedRuns, nil},
		"RecentObservations":  {sqlRecentObservations + sqlLimit(50), []any{"p"}},
		"LatestSummary":       {sqlLatestSummary, []any{"p"}},
		"StoryObservations":   {sqlStoryObservations + sqlLimit(400), []any{"p"}},
		"StorySummaries":      {sqlStorySummaries + sqlLimit(StorySummaries), []any{"p"}},
		"StorySessions":       {sqlStorySessions + "?, ?)", []any{"a", "b"}},
	} {
		rows, err := db.sql.Query("EXPLAIN QUERY PLAN "+c.sql, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		if err := scanAll(rows, func(r *sql.Rows) error {
			var id, parent, unused int
			var detail string
			err := r.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, step := range plan {
			scan := strings.HasPrefix(step, "SCAN ") && step != "SCAN CONSTANT ROW"
			if scan && !(name == "Counts" && strings.Contains(step, "COVERING INDEX")) || strings.Contains(step, "TEMP B-TREE") {
				t.Errorf("%s: %q in plan %q", name, step, plan)
			}
		}
	}
}

// No statement binds its LIMIT or OFFSET (sqlLimit says why). The control: the pattern finds
// one written that way.
func TestNoBoundLimit(t *testing.T) {
	bound := regexp.MustCompile(`(?i)\b(LIMIT|OFFSET)\s+\?`)
	if !bound.MatchString("ORDER BY at LIMIT ?") {
		t.Fatal("the pattern misses a bound LIMIT")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if bound.MatchString(line) {
				t.Errorf("%s:%d binds a LIMIT or OFFSET: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestCompleteRunRedactsTheAnswer: every text field of an observation and a summary passes
// the capture redactor before it is stored, and what it replaced is counted in redactions
// on the row's local day; AsIs (CLAUDE_MEM_REDACT_SECRETS=false) keeps every one, the
// control that shows the check can fail.
func TestCompleteRunRedactsTheAnswer(t *testing.T) {
	ctx := context.Background()
	cs := redacttest.Captured()
	secret := func(i int) string { return cs[i%len(cs)].Text }
	answer := func() RunAnswer {
		return RunAnswer{Observations: []Observation{{Type: "discovery", Title: "Token " + secret(4), Subtitle: secret(1),
			Narrative: secret(2), Facts: []string{secret(3), secret(5)}, Concepts: []string{secret(6)},
			FilesRead: []string{"/tmp/" + secret(7)}, FilesModified: []string{secret(8)}, At: at(110)}},
			Summary: &Summary{Request: secret(9), Investigated: secret(10), Learned: secret(11), Completed: secret(12),
				NextSteps: secret(13), Notes: secret(14), At: at(110)},
			Loc: time.FixedZone("east", 14*3600)}
	}
	for _, asIs := range []bool{false, true} {
		db, path := openTest(t)
		addEvents(t, db, session("s1", "alpha"), 0, 1)
		if _, err := db.Claim(ctx, "s1", "run1", 10, at(100)); err != nil {
			t.Fatal(err)
		}
		a := answer()
		a.AsIs = asIs
		if _, err := db.CompleteRun(ctx, "run1", a); err != nil {
			t.Fatal(err)
		}
		if a.Observations[0].Title != answer().Observations[0].Title || a.Observations[0].Facts[0] != secret(3) {
			t.Errorf("as is %v: the caller's answer was changed", asIs)
		}
		db.Close()
		raw := append(readFile(t, path), readWAL(path)...)
		leaks := redacttest.Leaks(raw, cs[1:15])
		day := at(110).In(a.Loc).Format(time.DateOnly)
		db2, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		kinds, err := db2.RedactionsByKind(ctx, day, at(110).In(a.Loc).AddDate(0, 0, 1).Format(time.DateOnly), "alpha")
		db2.Close()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range kinds {
			n += c
		}
		switch {
		case !asIs && (len(leaks) > 0 || n < 14):
			t.Errorf("redacted: %d canaries stored (%v), %d redactions counted on %s (want ≥ 14)", len(leaks), leaks, n, day)
		case asIs && (len(leaks) != 14 || n != 0):
			t.Errorf("as is: %d of 14 canaries stored, %d redactions counted; want all, none", len(leaks), n)
		}
	}
}

// readWAL is the database's write-ahead log, empty when there is none.
func readWAL(path string) []byte {
	b, _ := os.ReadFile(path + "-wal")
	return b
}
