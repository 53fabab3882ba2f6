package store

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// refsOf lists entries as "kind id" strings.
func refsOf(es []Entry) []vocab.Ref {
	out := make([]vocab.Ref, len(es))
	for i, e := range es {
		out[i] = e.Ref
	}
	return out
}

// memoryFixture: project alpha with interleaved prompts, observations and a summary (two
// at the same instant), and project beta with one observation in between.
func memoryFixture(t *testing.T) *DB {
	t.Helper()
	db, _ := openTest(t)
	alpha, beta := session("a1", "alpha"), session("b1", "beta")
	ingest(t, db, Captured{Kind: CapturePrompt, Session: alpha, Prompt: Prompt{Text: "fix the parser\nplease", At: at(1)}}) // prompt 1
	remember(t, db, alpha, 2, []Observation{                                                                                // observations 1, 2
		{Type: "bugfix", Title: "Parser bound fixed", Narrative: "loop stopped early", Facts: []string{"len-1"}, At: at(2)},
		{Type: "decision", Title: "Keep WAL", Narrative: "readers never block", At: at(3)},
	}, nil)
	remember(t, db, beta, 4, []Observation{{Type: "feature", Title: "Beta parser", At: at(4)}}, nil)                 // observation 3
	ingest(t, db, Captured{Kind: CapturePrompt, Session: alpha, Prompt: Prompt{Text: "now the summary", At: at(5)}}) // prompt 2
	remember(t, db, alpha, 5, []Observation{{Type: "change", Title: "Same instant as prompt 2", At: at(5)}},         // observation 4
		&Summary{Request: "Fix the parser", Learned: "bounds", At: at(6)}) // summary 1
	return db
}

func TestTimeline(t *testing.T) {
	ctx := context.Background()
	db := memoryFixture(t)
	obs := func(id int64) vocab.Ref { return vocab.Ref{Kind: vocab.KindObservation, ID: id} }
	prompt := func(id int64) vocab.Ref { return vocab.Ref{Kind: vocab.KindPrompt, ID: id} }
	sum := vocab.Ref{Kind: vocab.KindSummary, ID: 1}
	for _, c := range []struct {
		name          string
		anchor        vocab.Ref
		before, after int
		want          []vocab.Ref
	}{
		// At the instant 5 the order is observation, summary, prompt: observation 4 first.
		{"all of alpha around observation 2", obs(2), 10, 10, []vocab.Ref{prompt(1), obs(1), obs(2), obs(4), prompt(2), sum}},
		{"one each side", obs(2), 1, 1, []vocab.Ref{obs(1), obs(2), obs(4)}},
		{"none before", obs(2), 0, 1, []vocab.Ref{obs(2), obs(4)}},
		{"tie: prompt 2 after observation 4", prompt(2), 1, 1, []vocab.Ref{obs(4), prompt(2), sum}},
		{"tie: observation 4 before prompt 2", obs(4), 1, 1, []vocab.Ref{obs(2), obs(4), prompt(2)}},
		{"anchored on a summary", sum, 2, 2, []vocab.Ref{obs(4), prompt(2), sum}},
		{"beta alone", obs(3), 5, 5, []vocab.Ref{obs(3)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := db.Timeline(ctx, c.anchor, c.before, c.after)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(refsOf(got), c.want) {
				t.Errorf("timeline %v, want %v", refsOf(got), c.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].At.Before(got[i-1].At) {
					t.Errorf("not oldest first: %v", got)
				}
			}
		})
	}
	got, _ := db.Timeline(ctx, prompt(1), 0, 0)
	if len(got) != 1 || got[0].Title != "fix the parser" || got[0].Type != "prompt" || got[0].Size != len("fix the parser\nplease") || got[0].Project != "alpha" {
		t.Errorf("prompt entry %+v: want its first line as title, kind as type, the full size", got)
	}
	if _, err := db.Timeline(ctx, obs(99), 1, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing anchor: %v, want ErrNotFound", err)
	}
	if _, err := db.Timeline(ctx, vocab.Ref{Kind: "event", ID: 1}, 1, 1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown kind: %v, want ErrInvalidArgument", err)
	}
}

func TestRecords(t *testing.T) {
	ctx := context.Background()
	db := memoryFixture(t)
	want := []vocab.Ref{{Kind: vocab.KindSummary, ID: 1}, {Kind: vocab.KindObservation, ID: 1}, {Kind: vocab.KindPrompt, ID: 2}}
	found, missing, err := db.Records(ctx, []vocab.Ref{want[0], {Kind: vocab.KindObservation, ID: 42}, want[1], want[2], {Kind: vocab.KindPrompt, ID: 9}})
	if err != nil {
		t.Fatal(err)
	}
	var got []vocab.Ref
	for _, r := range found {
		got = append(got, r.Ref)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(missing, []vocab.Ref{{Kind: vocab.KindObservation, ID: 42}, {Kind: vocab.KindPrompt, ID: 9}}) {
		t.Fatalf("found %v missing %v", got, missing)
	}
	if o := found[1].Observation; o == nil || o.Title != "Parser bound fixed" || !slices.Equal(o.Facts, []string{"len-1"}) || found[1].Origin != "observer" {
		t.Errorf("observation record %+v origin %q", o, found[1].Origin)
	}
	if s := found[0].Summary; s == nil || s.Request != "Fix the parser" || s.Learned != "bounds" {
		t.Errorf("summary record %+v", s)
	}
	if p := found[2].Prompt; p == nil || p.Text != "now the summary" || p.Project != "alpha" {
		t.Errorf("prompt record %+v", p)
	}
}

func TestRememberIsSearchableAtOnce(t *testing.T) {
	ctx := context.Background()
	db := memoryFixture(t)
	// The control: nothing matches the note's word before it is stored.
	if hits, err := db.SearchMemory(ctx, "zanzibar", rank.Filter{}, 10); err != nil || len(hits) != 0 {
		t.Fatalf("before: %v %v", hits, err)
	}
	id, err := db.Remember(ctx, Note{SessionID: "s-new", Project: "alpha", Cwd: "/w/alpha", Type: "decision",
		Title: "Deploys go through zanzibar", Text: "The user wants every deploy through the zanzibar pipeline.", At: at(9)})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchMemory(ctx, "pipeline", rank.Filter{Project: "alpha"}, 10)
	if err != nil || len(hits) != 1 || hits[0].ID != id || hits[0].Kind != vocab.KindObservation || hits[0].Type != "decision" {
		t.Fatalf("after: %+v %v", hits, err)
	}
	found, _, err := db.Records(ctx, []vocab.Ref{{Kind: vocab.KindObservation, ID: id}})
	if err != nil || len(found) != 1 || found[0].Origin != OriginModel || found[0].Observation.SessionID != "s-new" {
		t.Errorf("stored note %+v %v", found, err)
	}
	if n := count(t, db, `SELECT count(*) FROM sessions WHERE id = 's-new' AND project = 'alpha'`); n != 1 {
		t.Errorf("the note's session was not recorded")
	}
	for _, bad := range []Note{
		{Project: "alpha", Title: "x", At: at(1)},
		{SessionID: "s", Title: "x", At: at(1)},
		{SessionID: "s", Project: "alpha", Title: "  ", At: at(1)},
		{SessionID: "s", Project: "alpha", Title: "x"},
	} {
		if _, err := db.Remember(ctx, bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Remember(%+v) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestSearchMemoryFilters(t *testing.T) {
	ctx := context.Background()
	db := memoryFixture(t)
	for _, c := range []struct {
		name string
		f    rank.Filter
		want []vocab.Ref
	}{
		{"every kind and project", rank.Filter{}, []vocab.Ref{{Kind: vocab.KindObservation, ID: 1}, {Kind: vocab.KindObservation, ID: 3}, {Kind: vocab.KindSummary, ID: 1}, {Kind: vocab.KindPrompt, ID: 1}}},
		{"project", rank.Filter{Project: "beta"}, []vocab.Ref{{Kind: vocab.KindObservation, ID: 3}}},
		{"kinds", rank.Filter{Kinds: []string{vocab.KindPrompt, vocab.KindSummary}}, []vocab.Ref{{Kind: vocab.KindSummary, ID: 1}, {Kind: vocab.KindPrompt, ID: 1}}},
		{"type", rank.Filter{Type: "feature"}, []vocab.Ref{{Kind: vocab.KindObservation, ID: 3}}},
		{"type with other kinds only", rank.Filter{Type: "feature", Kinds: []string{vocab.KindPrompt}}, nil},
		{"since", rank.Filter{Since: at(4)}, []vocab.Ref{{Kind: vocab.KindObservation, ID: 3}, {Kind: vocab.KindSummary, ID: 1}}},
		{"until", rank.Filter{Until: at(4)}, []vocab.Ref{{Kind: vocab.KindObservation, ID: 1}, {Kind: vocab.KindPrompt, ID: 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits, err := db.SearchMemory(ctx, "parser", c.f, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []vocab.Ref
			for _, h := range hits {
				if h.Context {
					continue
				}
				got = append(got, h.Ref)
				if h.Size <= 0 || h.Title == "" || h.At.IsZero() {
					t.Errorf("hit %+v lacks its compact fields", h)
				}
			}
			slices.SortFunc(got, func(a, b vocab.Ref) int {
				if a.Kind != b.Kind {
					return map[string]int{vocab.KindObservation: 0, vocab.KindSummary: 1, vocab.KindPrompt: 2}[a.Kind] - map[string]int{vocab.KindObservation: 0, vocab.KindSummary: 1, vocab.KindPrompt: 2}[b.Kind]
				}
				return int(a.ID - b.ID)
			})
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("hits %v, want %v", got, c.want)
			}
		})
	}
}
