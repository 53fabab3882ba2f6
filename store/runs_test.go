package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

func TestRecordRunCostAndDailyStats(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	// UTC+2: 23:30 UTC on the 29th is 01:30 local on the 30th.
	loc := time.FixedZone("east", 2*3600)
	runs := []RunRecord{
		{ID: "r1", SessionID: "s", Project: "alpha", Outcome: "ok", StartedAt: time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC),
			Events: 10, Observations: 3, Duplicates: 1, Usage: Usage{InputTokens: 100, OutputTokens: 20, CacheCreationTokens: 5, CacheReadTokens: 7, CostUSD: 0.25, DurationMS: 1000, DurationAPIMS: 900}},
		{ID: "r2", SessionID: "s", Project: "alpha", Outcome: "error", StartedAt: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC),
			Events: 4, Usage: Usage{InputTokens: 50, CostUSD: 0.5}},
		{ID: "r3", SessionID: "t", Project: "beta", Outcome: "ok", StartedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
			Events: 2, Observations: 1, Usage: Usage{OutputTokens: 3, CostUSD: 1}},
		{ID: "r4", SessionID: "s", Project: "alpha", Outcome: "ok", StartedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
			Events: 1, Observations: 1, Usage: Usage{CostUSD: 2}},
	}
	for _, r := range runs {
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RecordRun(ctx, runs[0]); err == nil {
		t.Fatal("a run recorded twice would count its cost twice")
	}
	if err := db.RecordRun(ctx, RunRecord{ID: "x"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a run without start or outcome: %v", err)
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO redactions VALUES ('2026-11-30', 'alpha', 'anthropic', 2), ('2026-11-30', 'alpha', 'github', 1), ('2026-11-28', 'alpha', 'aws', 9)`); err != nil {
		t.Fatal(err)
	}
	dayStart := time.Date(2026, 11, 30, 0, 0, 0, 0, loc)
	cost, err := db.CostBetween(ctx, dayStart, dayStart.AddDate(0, 0, 1))
	if err != nil || cost != 1.75 {
		t.Fatalf("cost of the local 30th = %v, %v; want 1.75 (r1, r2, r3)", cost, err)
	}

	got, err := db.DailyStats(ctx, dayStart.AddDate(0, 0, -1), dayStart.AddDate(0, 0, 1), loc, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []DayStats{
		{Day: "2026-11-30", Project: "alpha", Runs: 2, Events: 10, Observations: 3, Duplicates: 1, Redactions: 3,
			Usage: Usage{InputTokens: 150, OutputTokens: 20, CacheCreationTokens: 5, CacheReadTokens: 7, CostUSD: 0.75, DurationMS: 1000, DurationAPIMS: 900}},
		{Day: "2026-11-30", Project: "beta", Runs: 1, Events: 2, Observations: 1, Usage: Usage{OutputTokens: 3, CostUSD: 1}},
		{Day: "2026-11-29", Project: "alpha", Runs: 1, Events: 1, Observations: 1, Usage: Usage{CostUSD: 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DailyStats:\n got %+v\nwant %+v", got, want)
	}
	got, err = db.DailyStats(ctx, dayStart.AddDate(0, 0, -1), dayStart.AddDate(0, 0, 1), loc, "beta")
	if err != nil || !reflect.DeepEqual(got, want[1:2]) {
		t.Fatalf("DailyStats for beta: %+v, %v", got, err)
	}
}

func TestPendingOf(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	n, oldest, err := db.PendingOf(ctx, "s1")
	if err != nil || n != 0 || !oldest.IsZero() {
		t.Fatalf("no events: %d %v %v", n, oldest, err)
	}
	addEvents(t, db, session("s1", "p"), 5, 3)
	addEvents(t, db, session("s2", "p"), 0, 4)
	if _, err := db.Claim(ctx, "s1", "run", 1, at(100)); err != nil {
		t.Fatal(err)
	}
	n, oldest, err = db.PendingOf(ctx, "s1")
	if err != nil || n != 2 || !oldest.Equal(at(6)) {
		t.Fatalf("after claiming the oldest: %d %v %v; want 2, %v", n, oldest, err, at(6))
	}
}

func TestCompleteRunCountsDuplicates(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "p")
	addEvents(t, db, s, 0, 2)
	obs := func(title string, when time.Time) Observation {
		return Observation{Type: "discovery", Title: title, Narrative: "n", At: when}
	}
	if _, err := db.Claim(ctx, "s1", "r1", 1, at(10)); err != nil {
		t.Fatal(err)
	}
	// Two equal ones in one run: the second is a duplicate of the first.
	dups, err := db.CompleteRun(ctx, "r1", RunAnswer{Observations: []Observation{obs("alpha", at(10)), obs("alpha", at(10)), obs("beta", at(10))}})
	if err != nil || dups != 1 {
		t.Fatalf("first run: %d duplicates, %v; want 1", dups, err)
	}
	if _, err := db.Claim(ctx, "s1", "r2", 1, at(20)); err != nil {
		t.Fatal(err)
	}
	// "alpha" again within the window: counted, not stored. "beta" a week and an hour
	// later: stored again. Another project's equal observation is no duplicate.
	later := at(10).Add(DuplicateWindow + time.Hour)
	dups, err = db.CompleteRun(ctx, "r2", RunAnswer{Observations: []Observation{obs("alpha", at(20)), obs("beta", later), {Type: "discovery", Title: "alpha", Narrative: "n", Project: "q", At: at(20)}}})
	if err != nil || dups != 1 {
		t.Fatalf("second run: %d duplicates, %v; want 1", dups, err)
	}
	if n := count(t, db, `SELECT count(*) FROM observations WHERE project = 'p' AND title = 'alpha'`); n != 1 {
		t.Fatalf("%d stored copies of alpha; want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM observations`); n != 4 {
		t.Fatalf("%d observations; want 4 (alpha, beta, beta a week later, q's alpha)", n)
	}
	if n := count(t, db, `SELECT count(*) FROM events WHERE state = 'done'`); n != 2 {
		t.Fatalf("%d events done; want 2: duplicates still complete the run", n)
	}
}

// Answers are counted per verdict and reason per day; the events of a run that gave them
// back (requeued) are not counted as done, those of a run without an answer neither (the
// control: a kept answer's events are).
func TestDailyStatsAnswers(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i, r := range []RunRecord{
		{Outcome: "ok", Events: 4, Answer: vocab.VerdictSalvaged, Reasons: []string{"truncated"}, Requeued: true},
		{Outcome: "ok", Events: 2, Answer: vocab.VerdictStored},
		{Outcome: "ok", Events: 2, Answer: vocab.VerdictSalvaged, Reasons: []string{"code_fence", "prose_around"}},
		{Outcome: "ok", Events: 3, Answer: vocab.VerdictUnusable, Reasons: []string{"prose_only"}, Requeued: true},
		{Outcome: "transient", Events: 5},
	} {
		r.ID, r.Project, r.StartedAt = fmt.Sprint("r", i), "p", at
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := db.DailyStats(ctx, at.Add(-time.Hour), at.Add(time.Hour), time.UTC, "")
	if err != nil || len(ds) != 1 {
		t.Fatalf("daily stats %+v, %v", ds, err)
	}
	d := ds[0]
	if d.Runs != 5 || d.Events != 4 {
		t.Errorf("runs %d, events %d; want 5 runs, 4 events done", d.Runs, d.Events)
	}
	if got := fmt.Sprint(d.Answers, d.Reasons); got != "map[salvaged:2 stored:1 unusable:1] map[salvaged:map[code_fence:1 prose_around:1 truncated:1] unusable:map[prose_only:1]]" {
		t.Errorf("answers and reasons %s", got)
	}
}
