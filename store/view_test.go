package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// addRun stores observations and an optional summary for s through a claimed run, the
// way the observer does.
func addRun(t testing.TB, db *DB, s Session, from int, obs []Observation, sum *Summary) {
	t.Helper()
	ctx := context.Background()
	addEvents(t, db, s, from, 1)
	run := fmt.Sprintf("run-%s-%d", s.ID, from)
	if _, err := db.Claim(ctx, s.ID, run, 10, at(from)); err != nil {
		t.Fatalf("Claim: %v", err)
	}
	if _, err := db.CompleteRun(ctx, run, RunAnswer{Observations: obs, Summary: sum}); err != nil {
		t.Fatalf("CompleteRun: %v", err)
	}
}

func TestProjectsCountsAndOrder(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	a, b := session("s1", "alpha"), session("s2", "beta")
	addRun(t, db, a, 0, []Observation{{Type: "feature", Title: "a1", At: at(10)}, {Type: "bugfix", Title: "a2", At: at(20)}},
		&Summary{Request: "ra", At: at(30)})
	addRun(t, db, b, 100, []Observation{{Type: "change", Title: "b1", At: at(200)}}, nil)
	ingest(t, db, Captured{Kind: CapturePrompt, Session: b, Prompt: Prompt{Text: "hello", At: at(300)}})
	got, err := db.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Project != "beta" || got[1].Project != "alpha" {
		t.Fatalf("projects %+v, want beta (newest) then alpha", got)
	}
	if p := got[1]; p.Observations != 2 || p.Summaries != 1 || p.Sessions != 1 || p.Prompts != 0 || !p.LastActivity.Equal(at(30)) {
		t.Errorf("alpha %+v", p)
	}
	if p := got[0]; p.Observations != 1 || p.Prompts != 1 || !p.LastActivity.Equal(at(300)) {
		t.Errorf("beta %+v", p)
	}
}

// TestTimelinePagesCoverEveryItemOnce walks a timeline with ties in time between
// observations and a summary, one small page at a time: every item appears exactly once,
// newest first.
func TestTimelinePagesCoverEveryItemOnce(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	s := session("s1", "p")
	var obs []Observation
	for i := range 7 {
		obs = append(obs, Observation{Type: []string{"feature", "bugfix"}[i%2], Title: fmt.Sprint("o", i), At: at(10 + i/2)})
	}
	addRun(t, db, s, 0, obs, &Summary{Request: "sum", At: at(11)})
	addRun(t, db, session("s2", "other"), 50, []Observation{{Type: "feature", Title: "elsewhere", At: at(12)}}, nil)

	for _, limit := range []int{1, 2, 3, 100} {
		var seen []string
		var after *Cursor
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("no last page")
			}
			items, next, err := db.TimelinePage(ctx, "p", "", after, limit)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if it.Summary != nil {
					seen = append(seen, "sum")
				} else {
					seen = append(seen, it.Observation.Title)
				}
			}
			if next == nil {
				break
			}
			c, err := ParseCursor(next.String())
			if err != nil || c != *next {
				t.Fatalf("cursor round trip %v: %v %v", next, c, err)
			}
			after = &c
		}
		want := "[o6 o5 o4 sum o3 o2 o1 o0]"
		if fmt.Sprint(seen) != want {
			t.Errorf("limit %d: %v, want %s", limit, seen, want)
		}
	}

	items, _, err := db.TimelinePage(ctx, "p", "bugfix", nil, 100)
	if err != nil || len(items) != 3 {
		t.Fatalf("bugfix filter: %d items, %v", len(items), err)
	}
	items, _, err = db.TimelinePage(ctx, "p", TypeSummary, nil, 100)
	if err != nil || len(items) != 1 || items[0].Summary == nil {
		t.Fatalf("summary filter: %+v, %v", items, err)
	}
}

func TestParseCursorRejectsGarbage(t *testing.T) {
	for _, s := range []string{"", "1.x.2", "a.o.1", "1.o", "1.o.b"} {
		if _, err := ParseCursor(s); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func TestGettersAndNotFound(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	s := session("s1", "p")
	addRun(t, db, s, 0, []Observation{{Type: "feature", Title: "one", Facts: []string{"f"}, At: at(5)}},
		&Summary{Request: "req", At: at(6)})
	ingest(t, db, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "prompt text", At: at(7)}})
	latest, err := db.LatestObservations(ctx, 10)
	if err != nil || len(latest) != 1 {
		t.Fatalf("latest: %v %v", latest, err)
	}
	o, err := db.Observation(ctx, latest[0].ID)
	if err != nil || o.Title != "one" || o.Facts[0] != "f" {
		t.Fatalf("observation: %+v %v", o, err)
	}
	sums, err := db.SessionSummaries(ctx, "s1")
	if err != nil || len(sums) != 1 {
		t.Fatalf("session summaries: %v %v", sums, err)
	}
	if got, err := db.Summary(ctx, sums[0].ID); err != nil || got.Request != "req" {
		t.Fatalf("summary: %+v %v", got, err)
	}
	if got, err := db.SessionByID(ctx, "s1"); err != nil || got.Project != "p" {
		t.Fatalf("session: %+v %v", got, err)
	}
	if ps, err := db.SessionPrompts(ctx, "s1", 5); err != nil || len(ps) != 1 {
		t.Fatalf("prompts %v %v", ps, err)
	} else if p, err := db.Prompt(ctx, ps[0].ID); err != nil || p.Text != "prompt text" {
		t.Fatalf("prompt: %+v %v", p, err)
	}
	for name, err := range map[string]error{
		"observation": second(db.Observation(ctx, 999)),
		"summary":     second(db.Summary(ctx, 999)),
		"prompt":      second(db.Prompt(ctx, 999)),
		"session":     second(db.SessionByID(ctx, "nope")),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s 999: %v, want ErrNotFound", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestObservationsAfter(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	addRun(t, db, session("s1", "p"), 0, []Observation{{Type: "feature", Title: "a", At: at(1)}, {Type: "feature", Title: "b", At: at(2)}}, nil)
	all, err := db.ObservationsAfter(ctx, 0, 10)
	if err != nil || len(all) != 2 || all[0].Title != "a" {
		t.Fatalf("after 0: %+v %v", all, err)
	}
	rest, err := db.ObservationsAfter(ctx, all[0].ID, 10)
	if err != nil || len(rest) != 1 || rest[0].Title != "b" {
		t.Fatalf("after first: %+v %v", rest, err)
	}
	none, err := db.ObservationsAfter(ctx, all[1].ID, 10)
	if err != nil || len(none) != 0 {
		t.Fatalf("after last: %+v %v", none, err)
	}
}
