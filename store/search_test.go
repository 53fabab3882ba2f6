package store

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// remember stores observations and a summary for s the way the observer does: an event,
// a claim, a CompleteRun.
func remember(t *testing.T, db *DB, s Session, sec int, obs []Observation, sum *Summary) {
	t.Helper()
	ctx := context.Background()
	run := s.ID + "-run-" + strings.Repeat("x", sec%7) + string(rune('a'+sec%26))
	ingest(t, db, Captured{Kind: CaptureEvent, Session: s, Event: Event{Input: "x", At: at(sec)}})
	if _, err := db.Claim(ctx, s.ID, run, 100, at(sec)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CompleteRun(ctx, run, RunAnswer{Observations: obs, Summary: sum}); err != nil {
		t.Fatal(err)
	}
}

// direct are the hits that hold a query word themselves (not found by context alone).
func direct(hits []rank.Hit) []rank.Hit {
	var out []rank.Hit
	for _, h := range hits {
		if !h.Context {
			out = append(out, h)
		}
	}
	return out
}

// Past the window, only the newest matches of each kind are ranked, and the window counts
// only the searched project's rows.
func TestSearchRanksOnlyTheNewestWindow(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	// One session each, so no record is found as another's context.
	for i, o := range []Observation{
		{Project: "alpha", Title: "Flaky old title match"}, // best bm25, but oldest
		{Project: "alpha", Title: "second", Narrative: "flaky narrative words words words"},
		{Project: "alpha", Title: "third", Narrative: "flaky narrative words words words"},
		{Project: "beta", Title: "Flaky in beta one"}, {Project: "beta", Title: "Flaky in beta two"}, {Project: "beta", Title: "Flaky in beta three"},
	} {
		remember(t, db, session("s"+strconv.Itoa(i), o.Project), i+1, []Observation{o}, nil)
	}
	for _, c := range []struct {
		project string
		window  int
		want    []string
	}{
		{"alpha", 3, []string{"Flaky old title match", "second", "third"}},
		{"alpha", 2, []string{"second", "third"}},
		{"alpha", 1, []string{"third"}},
		{"", 2, []string{"Flaky in beta three", "Flaky in beta two"}},
	} {
		got, err := windowTitles(ctx, db, c.project, c.window)
		slices.Sort(got)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("project %q, window %d: %v, %v; want %v", c.project, c.window, got, err, c.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	long := strings.Repeat("é", 150)
	for _, c := range []struct{ in, want string }{
		{"one line", "one line"},
		{"\n\n  first real  \nsecond", "first real"},
		{"", ""},
		{long, strings.Repeat("é", 100) + "…"},
	} {
		if got := firstLine(c.in); got != c.want {
			t.Errorf("firstLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRecentObservations(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	remember(t, db, session("a1", "alpha"), 1, []Observation{
		{Title: "old", At: at(1)}, {Title: "newest", At: at(50)}, {Title: "middle", At: at(20)},
		{Title: "same time, later id", At: at(20)},
	}, nil)
	remember(t, db, session("b1", "beta"), 2, []Observation{{Title: "other project", At: at(99)}}, nil)
	titles := func(obs []Observation) []string {
		var out []string
		for _, o := range obs {
			out = append(out, o.Title)
		}
		return out
	}
	for _, c := range []struct {
		project string
		limit   int
		want    []string
	}{
		{"alpha", 10, []string{"newest", "same time, later id", "middle", "old"}},
		{"alpha", 2, []string{"newest", "same time, later id"}},
		{"alpha", 0, nil},
		{"beta", 10, []string{"other project"}},
		{"", 10, nil},
		{"gamma", 10, nil},
	} {
		got, err := db.RecentObservations(ctx, c.project, c.limit)
		if err != nil || !reflect.DeepEqual(titles(got), c.want) {
			t.Errorf("RecentObservations(%q, %d) = %v, %v; want %v", c.project, c.limit, titles(got), err, c.want)
		}
	}
}

func TestLatestSummary(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	if s, err := db.LatestSummary(ctx, "alpha"); s != nil || err != nil {
		t.Errorf("no summaries: %+v, %v; want nil, nil", s, err)
	}
	remember(t, db, session("a1", "alpha"), 1, nil, &Summary{Request: "first", At: at(1)})
	remember(t, db, session("a2", "alpha"), 2, nil, &Summary{Request: "second", At: at(2)})
	remember(t, db, session("b1", "beta"), 3, nil, &Summary{Request: "beta's", At: at(3)})
	s, err := db.LatestSummary(ctx, "alpha")
	if err != nil || s == nil || s.Request != "second" || s.SessionID != "a2" {
		t.Errorf("LatestSummary(alpha) = %+v, %v; want a2's second", s, err)
	}
}

// A database of the schema before the search index (three unstemmed indexes) is migrated: its records are
// in the one stemmed index, searchable across kinds, and the index matches them.
func TestSearchMigrationRebuildsTheIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	before := slices.IndexFunc(migrations, func(s step) bool {
		return s.run != nil && reflect.ValueOf(s.run).Pointer() == reflect.ValueOf(rebuildSearch).Pointer()
	})
	raw := openAt(t, path, migrations[:before])
	_, err := raw.sql.Exec(`
INSERT INTO sessions (id, project, cwd) VALUES ('s', 'web', '/web');
INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative, facts, at)
	VALUES ('s', 'web', 'r', 'bugfix', 'Webhook signatures failed', '', 'The secret was rotated.', '["verification uses HMAC"]', 1);
INSERT INTO summaries (session_id, project, run_id, request, investigated, learned, completed, next_steps, notes, at)
	VALUES ('s', 'web', 'r', 'Fix webhooks', '', 'signing secrets rotate', '', '', '', 2);
INSERT INTO prompts (session_id, project, text, at) VALUES ('s', 'web', 'why is the webhook failing?', 3)`)
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%\\_fts%' ESCAPE '\\' AND name NOT LIKE 'search\\_fts%' ESCAPE '\\'"); n != 0 {
		t.Errorf("%d objects of the old indexes are left", n)
	}
	hits, err := db.Search(ctx, "webhook signature verification failing", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, h := range direct(hits) {
		kinds[h.Kind] = true
	}
	if len(kinds) != 3 || hits[0].Kind != vocab.KindObservation {
		t.Errorf("hits %+v: want every kind, the observation (three of the words, stemmed) first", hits)
	}
	if err := db.Integrity(ctx); err != nil {
		t.Error(err)
	}
	if got := direct(mustSearch(t, db, "HMAC")); len(got) != 1 || got[0].Title != "Webhook signatures failed" {
		t.Errorf("a fact's word: %v", got)
	}
}

func mustSearch(t *testing.T, db *DB, q string) []rank.Hit {
	t.Helper()
	hits, err := db.Search(context.Background(), q, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// insertRecord stores a prompt or an observation directly, as an import does, in session
// sid of project at second sec.
func insertRecord(t *testing.T, db *DB, kind, project, sid string, sec int, text string) {
	t.Helper()
	if _, err := db.sql.Exec(`INSERT OR IGNORE INTO sessions (id, project, cwd) VALUES (?, ?, '/')`, sid, project); err != nil {
		t.Fatal(err)
	}
	var err error
	if kind == vocab.KindPrompt {
		_, err = db.sql.Exec(`INSERT INTO prompts (session_id, project, text, at) VALUES (?, ?, ?, ?)`, sid, project, text, at(sec).UnixNano())
	} else {
		title, narrative, _ := strings.Cut(text, "\n")
		_, err = db.sql.Exec(`INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative, at)
			VALUES (?, ?, 'r', 'bugfix', ?, '', ?, ?)`, sid, project, title, narrative, at(sec).UnixNano())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The window is the newest matches of every kind together, by time: a kind's older
// matches are left out when newer ones of another kind fill it.
func TestSearchWindowSpansEveryKind(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	for i, r := range []struct{ kind, text string }{
		{vocab.KindObservation, "flaky one"}, {vocab.KindPrompt, "flaky two?"}, {vocab.KindObservation, "flaky three"},
		{vocab.KindPrompt, "flaky four?"}, {vocab.KindObservation, "flaky five"},
	} {
		// One session each, so no record is found as another's context.
		insertRecord(t, db, r.kind, "web", "s"+strconv.Itoa(i), i+1, r.text)
	}
	for _, c := range []struct {
		window int
		want   []string
	}{
		{5, []string{"flaky five", "flaky four?", "flaky one", "flaky three", "flaky two?"}},
		{3, []string{"flaky five", "flaky four?", "flaky three"}},
		{1, []string{"flaky five"}},
	} {
		got, err := windowTitles(ctx, db, "web", c.window)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("window %d: %v, %v; want %v", c.window, got, err, c.want)
		}
	}
}

// windowTitles are the titles, sorted, of the index's matches of "flaky" in project
// within window, scored as ranking asks for them.
func windowTitles(ctx context.Context, db *DB, project string, window int) ([]string, error) {
	matches, err := db.index(rank.Filter{}).Matches(ctx, `"flaky"`, rank.Filter{Project: project}, window, 10, false)
	if err != nil {
		return nil, err
	}
	refs := make([]vocab.Ref, len(matches))
	for i, m := range matches {
		refs[i] = m.Ref
	}
	details, err := db.index(rank.Filter{}).Details(ctx, refs)
	var got []string
	for _, d := range details {
		got = append(got, d.Title)
	}
	slices.Sort(got)
	return got, err
}
