package forget

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

var at = memtest.At

func memory(t *testing.T) (*store.DB, string) {
	db, path := memtest.Open(t)
	memtest.Fill(t, db)
	return db, path
}

// rows counts what is left, per table, read through a second connection.
func rows(t *testing.T, path string) map[string]int {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := map[string]int{}
	for _, q := range []struct{ name, query string }{
		{"sessions", "SELECT count(*) FROM sessions"},
		{"observations", "SELECT count(*) FROM observations"},
		{"summaries", "SELECT count(*) FROM summaries"},
		{"prompts", "SELECT count(*) FROM prompts"},
		{"events", "SELECT count(*) FROM events"},
		// The search index holds every kind, each in its rowid range (store's kindShift).
		{"fts:zebrafish", "SELECT count(*) FROM search_fts WHERE search_fts MATCH 'zebrafish' AND rowid < 1 << 40"},
		{"fts:login-summary", "SELECT count(*) FROM search_fts WHERE search_fts MATCH 'login' AND rowid >= 1 << 40 AND rowid < 2 << 40"},
		{"fts:login-prompt", "SELECT count(*) FROM search_fts WHERE search_fts MATCH 'login' AND rowid >= 2 << 40"},
	} {
		var n int
		if err := c.QueryRow(q.query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q.query, err)
		}
		out[q.name] = n
	}
	return out
}

func TestSelectors(t *testing.T) {
	ctx := context.Background()
	before := map[string]int{"sessions": 4, "observations": 4, "summaries": 1, "prompts": 2, "events": 4,
		"fts:zebrafish": 1, "fts:login-summary": 1, "fts:login-prompt": 1}
	for _, tc := range []struct {
		name string
		sel  Selector
		want Plan
		left map[string]int // what changes from before
	}{
		{"ids", Selector{Refs: obs(1, 99, 4, 99)},
			Plan{Observations: 2, Titles: []string{"Zebrafish validator checks login emails", "API limiter buckets"}, Missing: obs(99)},
			map[string]int{"observations": 2, "fts:zebrafish": 0}},
		// Summary 1 and prompt 1 are not observation 1: each id names its own kind's row.
		{"a summary's id", Selector{Refs: []vocab.Ref{{Kind: vocab.KindSummary, ID: 1}}},
			Plan{Summaries: 1, Titles: []string{"Fix the login form"}},
			map[string]int{"summaries": 0, "fts:login-summary": 0}},
		{"a prompt's id", Selector{Refs: []vocab.Ref{{Kind: vocab.KindPrompt, ID: 1}}},
			Plan{Prompts: 1},
			map[string]int{"prompts": 1, "fts:login-prompt": 0}},
		{"ids of every kind, some of no record", Selector{Refs: []vocab.Ref{{Kind: vocab.KindPrompt, ID: 9}, {Kind: vocab.KindObservation, ID: 2},
			{Kind: vocab.KindSummary, ID: 1}, {Kind: vocab.KindSummary, ID: 2}, {Kind: vocab.KindPrompt, ID: 2}}},
			Plan{Observations: 1, Summaries: 1, Prompts: 1, Sessions: 0, Titles: []string{"Quokka cookie cache", "Fix the login form"},
				Missing: []vocab.Ref{{Kind: vocab.KindPrompt, ID: 9}, {Kind: vocab.KindSummary, ID: 2}}},
			map[string]int{"observations": 3, "summaries": 0, "prompts": 1, "fts:login-summary": 0}},
		{"a session keeping events stays", Selector{Refs: obs(4)},
			Plan{Observations: 1, Titles: []string{"API limiter buckets"}},
			map[string]int{"observations": 3}},
		{"session", Selector{Session: "s1"},
			Plan{Observations: 2, Summaries: 1, Prompts: 1, Events: 2, Sessions: 1,
				Titles: []string{"Zebrafish validator checks login emails", "Quokka cookie cache", "Fix the login form"}},
			map[string]int{"sessions": 3, "observations": 2, "summaries": 0, "prompts": 1, "events": 2,
				"fts:zebrafish": 0, "fts:login-summary": 0, "fts:login-prompt": 0}},
		{"project", Selector{Project: "web"},
			Plan{Observations: 3, Summaries: 1, Prompts: 2, Events: 3, Sessions: 3,
				Titles: []string{"Zebrafish validator checks login emails", "Quokka cookie cache", "Fix the login form", "Platypus later change"}},
			map[string]int{"sessions": 1, "observations": 1, "summaries": 0, "prompts": 0, "events": 1,
				"fts:zebrafish": 0, "fts:login-summary": 0, "fts:login-prompt": 0}},
		{"before", Selector{Before: at(60)},
			Plan{Observations: 3, Summaries: 1, Prompts: 1, Events: 3, Sessions: 3,
				Titles: []string{"Zebrafish validator checks login emails", "Quokka cookie cache", "Fix the login form", "API limiter buckets"}},
			map[string]int{"sessions": 1, "observations": 1, "summaries": 0, "prompts": 1, "events": 1,
				"fts:zebrafish": 0, "fts:login-summary": 0, "fts:login-prompt": 0}},
		{"project and before intersect", Selector{Project: "web", Before: at(5)},
			Plan{Observations: 1, Prompts: 1, Events: 2, Titles: []string{"Zebrafish validator checks login emails"}},
			map[string]int{"observations": 3, "prompts": 1, "events": 2, "fts:zebrafish": 0, "fts:login-prompt": 0}},
		{"ids and project intersect", Selector{Refs: obs(1, 4), Project: "api"},
			Plan{Observations: 1, Titles: []string{"API limiter buckets"}},
			map[string]int{"observations": 3}},
		{"nothing matches", Selector{Project: "nosuch"}, Plan{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, path := memory(t)
			if got := rows(t, path); !equalMaps(got, before) {
				t.Fatalf("before: %v, want %v", got, before)
			}
			p, err := Preview(ctx, db, nil, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if !equalPlans(p, tc.want) {
				t.Errorf("Preview = %+v, want %+v", p, tc.want)
			}
			if got := rows(t, path); !equalMaps(got, before) {
				t.Fatalf("Preview removed rows: %v", got)
			}
			p, err = Apply(ctx, db, nil, tc.sel, false)
			if err != nil {
				t.Fatal(err)
			}
			if !equalPlans(p, tc.want) {
				t.Errorf("Apply = %+v, want %+v", p, tc.want)
			}
			want := map[string]int{}
			for k, v := range before {
				want[k] = v
			}
			for k, v := range tc.left {
				want[k] = v
			}
			if got := rows(t, path); !equalMaps(got, want) {
				t.Errorf("after: %v, want %v", got, want)
			}
			// The indexes' step with their tables: store's TestForgetKeepsIndexesInStep.
			// Forgetting again finds nothing.
			if p, err := Preview(ctx, db, nil, tc.sel); err != nil || !p.Empty() {
				t.Errorf("second Preview = %+v, %v; want nothing", p, err)
			}
		})
	}
}

// obs are refs of observations.
func obs(ids ...int64) []vocab.Ref {
	var refs []vocab.Ref
	for _, id := range ids {
		refs = append(refs, vocab.Ref{Kind: vocab.KindObservation, ID: id})
	}
	return refs
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func equalPlans(a, b Plan) bool {
	return a.Observations == b.Observations && a.Summaries == b.Summaries && a.Prompts == b.Prompts &&
		a.Events == b.Events && a.Journals == b.Journals && a.Sessions == b.Sessions && a.More == b.More &&
		slices.Equal(a.Titles, b.Titles) && slices.Equal(a.Missing, b.Missing)
}

func TestEmptySelector(t *testing.T) {
	db, path := memory(t)
	if _, err := Preview(context.Background(), db, nil, Selector{}); !errors.Is(err, ErrEmptySelector) {
		t.Errorf("Preview: %v, want ErrEmptySelector", err)
	}
	if _, err := Apply(context.Background(), db, nil, Selector{Refs: []vocab.Ref{}}, true); !errors.Is(err, ErrEmptySelector) {
		t.Errorf("Apply: %v, want ErrEmptySelector", err)
	}
	if n := rows(t, path)["observations"]; n != 4 {
		t.Errorf("%d observations left, want 4", n)
	}
}

// Forgetting the only observation of a session (an imported one, say) removes the session.
func TestIDsEmptyASession(t *testing.T) {
	ctx := context.Background()
	db, path := memory(t)
	memtest.Start(t, db, store.Session{ID: "solo", Project: "web", StartedAt: at(300)})
	memtest.Complete(t, db, "rs", []store.Observation{{SessionID: "solo", Project: "web", Type: "change", Title: "alone", At: at(301)}}, nil)
	p, err := Apply(ctx, db, nil, Selector{Refs: obs(5)}, false)
	if err != nil || p.Observations != 1 || p.Sessions != 1 {
		t.Fatalf("Apply = %+v, %v; want one observation and its session", p, err)
	}
	if n := rows(t, path)["sessions"]; n != 4 {
		t.Errorf("%d sessions left, want 4", n)
	}
}

func TestTitlesBounded(t *testing.T) {
	ctx := context.Background()
	db, _ := memory(t)
	s := store.Session{ID: "many", Project: "big", Cwd: "/big", StartedAt: at(200)}
	memtest.Start(t, db, s)
	var obs []store.Observation
	for i := range 25 {
		obs = append(obs, store.Observation{SessionID: "many", Project: "big", Type: "change", Title: "t" + string(rune('a'+i)), At: at(200 + i)})
	}
	memtest.Complete(t, db, "rb", obs, nil)
	p, err := Preview(ctx, db, nil, Selector{Project: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Titles) != MaxTitles || p.More != 5 || p.Titles[0] != "ta" {
		t.Errorf("titles %d (first %q), more %d; want %d from ta, 5 more", len(p.Titles), p.Titles[0], p.More, MaxTitles)
	}
}

// A forgotten session's pending journals go, in every journal dir; another session's stay.
func TestJournals(t *testing.T) {
	ctx := context.Background()
	db, _ := memory(t)
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		for _, name := range []string{"s1.jsonl", "s2.jsonl"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(`{"id":"x","kind":"prompt","session":"s"}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	exists := func(d, name string) bool { _, err := os.Stat(filepath.Join(d, name)); return err == nil }
	p, err := Preview(ctx, db, dirs, Selector{Session: "s1"})
	if err != nil || p.Journals != 2 {
		t.Fatalf("Preview journals = %d, %v; want 2", p.Journals, err)
	}
	if !exists(dirs[0], "s1.jsonl") || !exists(dirs[1], "s1.jsonl") {
		t.Fatal("Preview removed a journal")
	}
	p, err = Apply(ctx, db, dirs, Selector{Session: "s1"}, false)
	if err != nil || p.Journals != 2 {
		t.Fatalf("Apply journals = %d, %v; want 2", p.Journals, err)
	}
	for _, d := range dirs {
		if exists(d, "s1.jsonl") {
			t.Errorf("%s/s1.jsonl survived", d)
		}
		if !exists(d, "s2.jsonl") {
			t.Errorf("%s/s2.jsonl (another session) removed", d)
		}
	}
	// A session that keeps rows keeps its journal: ids forget observations, not the session.
	p, err = Apply(ctx, db, dirs, Selector{Refs: obs(3)}, false)
	if err != nil || p.Journals != 0 || !exists(dirs[0], "s2.jsonl") {
		t.Errorf("forgetting one observation of s2: journals %d, %v, s2.jsonl exists %v", p.Journals, err, exists(dirs[0], "s2.jsonl"))
	}
}

// After forget with vacuum no byte of the forgotten title is in the database or its WAL,
// nor its words in a full-text segment; search finds nothing.
func TestVacuumLeavesNoBytes(t *testing.T) {
	ctx := context.Background()
	db, path := memory(t)
	title := []byte("Zebrafish validator checks login emails")
	word := []byte("zebrafish") // as the full-text index stores it
	files := func() []byte {
		var all []byte
		for _, p := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		return all
	}
	if b := files(); !bytes.Contains(b, title) || !bytes.Contains(b, word) {
		t.Fatal("control: the title is not in the files before forget")
	}
	if hits, err := db.Search(ctx, "zebrafish", "", 10); err != nil || len(hits) == 0 {
		t.Fatalf("control: search finds %d hits, %v", len(hits), err)
	}
	if _, err := Apply(ctx, db, nil, Selector{Refs: obs(1)}, false); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(files(), title) {
		t.Fatal("control: without vacuum the title is already gone from the files, so this test shows nothing")
	}
	if _, err := Apply(ctx, db, nil, Selector{Session: "s1"}, true); err != nil {
		t.Fatal(err)
	}
	b := files()
	if bytes.Contains(b, title) {
		t.Error("the forgotten title is still in the database files after vacuum")
	}
	if bytes.Contains(b, word) || bytes.Contains(b, []byte("Zebrafish")) {
		t.Error("a word of the forgotten title is still in the database files after vacuum")
	}
	if !bytes.Contains(b, []byte("Platypus later change")) {
		t.Error("an observation not forgotten is gone from the files")
	}
	if hits, err := db.Search(ctx, "zebrafish", "", 10); err != nil || len(hits) != 0 {
		t.Errorf("search after forget: %d hits, %v", len(hits), err)
	}
}

// The run dirs (transcript, stderr) of the observer runs that read or wrote forgotten rows
// go; another run's stays.
func TestTranscripts(t *testing.T) {
	ctx := context.Background()
	db, path := memory(t)
	runs := filepath.Join(filepath.Dir(path), "observer-sessions")
	run, other := spawn.NewRunID(at(200)), spawn.NewRunID(at(201))
	for _, id := range []string{run, other} {
		if err := os.MkdirAll(filepath.Join(runs, id), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, id, "transcript.jsonl"), []byte("platypus\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := store.Session{ID: "t1", Project: "web", StartedAt: at(200)}
	memtest.Event(t, db, s, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "x", Input: "{}", Response: "{}", At: at(200)})
	if _, err := db.Claim(ctx, "t1", run, 10, at(201)); err != nil {
		t.Fatal(err)
	}
	memtest.Complete(t, db, run, []store.Observation{{Type: "change", Title: "seen by the run", At: at(202)}}, nil)
	p, err := Preview(ctx, db, nil, Selector{Session: "t1"})
	if err != nil || p.Transcripts != 1 {
		t.Fatalf("Preview = %+v, %v; want one transcript", p, err)
	}
	if p, err = Apply(ctx, db, nil, Selector{Session: "t1"}, false); err != nil || p.Transcripts != 1 {
		t.Fatalf("Apply = %+v, %v; want one transcript", p, err)
	}
	if _, err := os.Stat(filepath.Join(runs, run)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the forgotten session's run dir survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(runs, other, "transcript.jsonl")); err != nil {
		t.Errorf("another run's transcript went: %v", err)
	}
}

// A removed session's observer runs keep their cost but lose its id and project.
func TestRunsOfARemovedSession(t *testing.T) {
	ctx := context.Background()
	db, path := memory(t)
	c, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{"s1", "s2"} {
		if _, err := c.Exec(`INSERT INTO runs (id, session_id, project, outcome, started_at, ended_at, cost_usd)
VALUES (?, ?, 'web', 'ok', 1, 2, 0.25)`, "run-"+s, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Apply(ctx, db, nil, Selector{Session: "s1"}, false); err != nil {
		t.Fatal(err)
	}
	var named, cost float64
	if err := c.QueryRow(`SELECT count(*) FILTER (WHERE session_id <> '' OR project <> ''), sum(cost_usd) FROM runs`).Scan(&named, &cost); err != nil {
		t.Fatal(err)
	}
	var s1 int
	c.QueryRow(`SELECT count(*) FROM runs WHERE session_id = 's1'`).Scan(&s1)
	if s1 != 0 || named != 1 || cost != 0.5 {
		t.Errorf("runs naming s1 %d, named %v, cost %v; want 0, 1 (s2's), 0.5", s1, named, cost)
	}
}
