package store

import (
	"context"
	"errors"
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

type hitKey struct {
	Kind, Project, Title string
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

func keys(hits []rank.Hit) []hitKey {
	out := make([]hitKey, len(hits))
	for i, h := range hits {
		out[i] = hitKey{h.Kind, h.Project, h.Title}
	}
	return out
}

// searchFixture: two projects with observations, a summary and prompts.
func searchFixture(t *testing.T) *DB {
	t.Helper()
	db, _ := openTest(t)
	alpha, beta := session("a1", "alpha"), session("b1", "beta")
	remember(t, db, alpha, 10, []Observation{
		{Type: "bugfix", Title: "Parser off-by-one fixed", Narrative: "The tokenizer loop stopped one rune early.",
			Facts: []string{"loop bound was len-1"}, Concepts: []string{"gotcha"}, At: at(10)},
		{Type: "discovery", Title: "Cache keys", Narrative: "The parser cache is keyed by path and mtime.", At: at(11)},
		{Type: "decision", Title: "Use WAL mode", Subtitle: "sqlite journal", Narrative: "Readers never block writers.", At: at(12)},
	}, &Summary{Request: "Fix the parser crash", Learned: "tokenizer bounds", At: at(13)})
	remember(t, db, beta, 20, []Observation{
		{Type: "feature", Title: "Parser for TOML", Narrative: "Added a TOML parser to the config loader.", At: at(20)},
	}, nil)
	for _, p := range []struct {
		s    Session
		text string
	}{
		{alpha, "why does the parser crash on emoji?\nsecond line with details"},
		{beta, "add toml support to the loader"},
		{alpha, "Café résumé naïve — unicode words: 日本語 テスト"},
	} {
		ingest(t, db, Captured{Kind: CapturePrompt, Session: p.s, Prompt: Prompt{Text: p.text, At: at(30)}})
	}
	return db
}

func TestSearchHostileQueriesAreWords(t *testing.T) {
	db := searchFixture(t)
	for _, c := range []struct {
		query string
		want  int // hits expected
	}{
		{`"unterminated`, 0},
		{`"parser`, 5}, // an unterminated phrase runs to the end
		{`parser"`, 5},
		{`foo*`, 0},
		{`pars*`, 5}, // a prefix
		{`parser*`, 5},
		{`-bar`, 0},    // only an exclusion: nothing to find
		{`-parser`, 0}, // likewise
		{`a:b`, 0},     // "a" is a stop word and "b" is in no record
		{`zz:parser`, 5},
		{`title:parser`, 5}, // "title" is a word here, not a column filter
		{`NEAR(`, 0},
		{`NEAR(parser cache)`, 5}, // "near" is in no record: any of the words
		{`)`, 0},
		{`(`, 0},
		{`AND OR`, 1}, // only stop words: they are searched, and "and" is in one narrative
		{`NOT parser`, 5},
		{`parser AND`, 5},
		{`^parser`, 5},
		{`{title}: parser`, 5},
		{`'; DROP TABLE observations; --`, 0},
		{`" OR "" = "`, 0},
		{`**`, 0},
		{``, 0},
		{`   `, 0},
		{`!!! ??? ... --- ***`, 0},
		{"\x00parser\x00", 5},
	} {
		t.Run(c.query, func(t *testing.T) {
			hits, err := db.Search(context.Background(), c.query, "", 20)
			if err != nil {
				t.Fatalf("Search(%q): %v", c.query, err)
			}
			if hits = direct(hits); len(hits) != c.want {
				t.Errorf("Search(%q): %d hits %v, want %d", c.query, len(hits), keys(hits), c.want)
			}
		})
	}
	if n := count(t, db, "SELECT count(*) FROM observations"); n != 4 {
		t.Errorf("%d observations after hostile queries, want 4", n)
	}
}

func TestSearch(t *testing.T) {
	db := searchFixture(t)
	for _, c := range []struct {
		name, query, project string
		want                 []hitKey // in any order: bm25 ranks of different kinds are not comparable in a tiny corpus
	}{
		{"every kind is searched", "parser", "alpha", []hitKey{
			{vocab.KindObservation, "alpha", "Parser off-by-one fixed"},
			{vocab.KindSummary, "alpha", "Fix the parser crash"},
			{vocab.KindPrompt, "alpha", "why does the parser crash on emoji?"},
			{vocab.KindObservation, "alpha", "Cache keys"},
		}},
		{"all projects", "toml", "", []hitKey{
			{vocab.KindObservation, "beta", "Parser for TOML"},
			{vocab.KindPrompt, "beta", "add toml support to the loader"},
		}},
		{"scoped to a project never shows another's", "toml", "alpha", nil},
		{"unknown project", "parser", "gamma", nil},
		{"any word may match", "parser cache", "", []hitKey{
			{vocab.KindObservation, "alpha", "Cache keys"},
			{vocab.KindObservation, "alpha", "Parser off-by-one fixed"},
			{vocab.KindObservation, "beta", "Parser for TOML"},
			{vocab.KindSummary, "alpha", "Fix the parser crash"},
			{vocab.KindPrompt, "alpha", "why does the parser crash on emoji?"},
		}},
		{"a phrase", `"parser cache"`, "", []hitKey{{vocab.KindObservation, "alpha", "Cache keys"}}},
		{"a phrase is words in order", `"cache parser"`, "", nil},
		{"an excluded word", "parser -toml", "", []hitKey{
			{vocab.KindObservation, "alpha", "Cache keys"},
			{vocab.KindObservation, "alpha", "Parser off-by-one fixed"},
			{vocab.KindSummary, "alpha", "Fix the parser crash"},
			{vocab.KindPrompt, "alpha", "why does the parser crash on emoji?"},
		}},
		{"an excluded phrase", `parser -"parser cache" -crash`, "", []hitKey{
			{vocab.KindObservation, "alpha", "Parser off-by-one fixed"},
			{vocab.KindObservation, "beta", "Parser for TOML"},
		}},
		{"stemmed: crashing finds crash", "crashing", "", []hitKey{
			{vocab.KindSummary, "alpha", "Fix the parser crash"},
			{vocab.KindPrompt, "alpha", "why does the parser crash on emoji?"},
		}},
		{"CJK word", "日本語", "", []hitKey{{vocab.KindPrompt, "alpha", "Café résumé naïve — unicode words: 日本語 テスト"}}},
		{"CJK word's beginning", "日本", "", []hitKey{{vocab.KindPrompt, "alpha", "Café résumé naïve — unicode words: 日本語 テスト"}}},
		{"a CJK word not stored", "中文", "", nil},
		{"no document has both: any word", "toml wal", "", []hitKey{
			{vocab.KindObservation, "alpha", "Use WAL mode"},
			{vocab.KindObservation, "beta", "Parser for TOML"},
			{vocab.KindPrompt, "beta", "add toml support to the loader"},
		}},
		{"case and diacritics folded", "CAFE resume", "", []hitKey{
			{vocab.KindPrompt, "alpha", "Café résumé naïve — unicode words: 日本語 テスト"},
		}},
		{"facts are searched", "len", "", []hitKey{{vocab.KindObservation, "alpha", "Parser off-by-one fixed"}}},
		{"concepts are searched", "gotcha", "", []hitKey{{vocab.KindObservation, "alpha", "Parser off-by-one fixed"}}},
		{"subtitle is searched", "journal", "", []hitKey{{vocab.KindObservation, "alpha", "Use WAL mode"}}},
		{"summary fields are searched, stemmed like every kind", "bounds", "", []hitKey{
			{vocab.KindObservation, "alpha", "Parser off-by-one fixed"},
			{vocab.KindSummary, "alpha", "Fix the parser crash"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits, err := db.Search(context.Background(), c.query, c.project, 10)
			if err != nil {
				t.Fatal(err)
			}
			got := keys(direct(hits))
			sortKeys(got)
			sortKeys(c.want)
			if !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("Search(%q, %q)\n got %v\nwant %v", c.query, c.project, got, c.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Rank < hits[i-1].Rank {
					t.Errorf("hits not ordered by rank: %+v", hits)
				}
			}
		})
	}
}

func sortKeys(k []hitKey) {
	slices.SortFunc(k, func(a, b hitKey) int {
		return strings.Compare(a.Kind+a.Project+a.Title, b.Kind+b.Project+b.Title)
	})
}

// In a corpus where a word is rare (filler makes it so), a record holding more of the
// query's words ranks first, a title or facts match ranks before a narrative match, and
// limit keeps the best.
func TestSearchRanking(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	if err := SeedObservations(ctx, db, "filler", 200, t0); err != nil {
		t.Fatal(err)
	}
	// One session each: no record lends another context.
	for i, o := range []Observation{
		{Title: "Unrelated", Narrative: "Mentions the flaky migration once among many other words here."},
		{Title: "Flaky test", Narrative: "Fixed."},
		{Title: "Another", Facts: []string{"flaky in CI"}},
		{Title: "Both words", Narrative: "the flaky one broke the lexer"},
	} {
		remember(t, db, session("a"+strconv.Itoa(i), "alpha"), i+1, []Observation{o}, nil)
	}
	titles := func(hits []rank.Hit) []string {
		var got []string
		for _, h := range hits {
			got = append(got, h.Title)
		}
		return got
	}
	hits, err := db.Search(ctx, "flaky lexer", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	got := titles(hits)
	if len(got) != 4 || got[0] != "Both words" || got[3] != "Unrelated" {
		t.Errorf("order %v, want Both words first (both words), Unrelated last (narrative only)", got)
	}
	top, err := db.Search(ctx, "flaky", "alpha", 1)
	if err != nil || len(top) != 1 || top[0].Title == "Unrelated" || top[0].Title == "Both words" {
		t.Errorf("limit 1: %+v, %v; want the best hit only, a title or facts match", top, err)
	}
	if none, err := db.Search(ctx, "flaky", "", 0); none != nil || err != nil {
		t.Errorf("limit 0: %+v, %v", none, err)
	}
}

func TestSearchHitFields(t *testing.T) {
	db := searchFixture(t)
	hits, err := db.Search(context.Background(), "emoji", "", 10)
	if hits = direct(hits); err != nil || len(hits) != 1 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	h := hits[0]
	want := rank.Hit{Kind: vocab.KindPrompt, ID: 1, Project: "alpha", Session: "a1", Title: "why does the parser crash on emoji?",
		Snippet: "why does the parser crash on emoji? second line with details", Marks: []rank.Span{{Start: 29, End: 34}}, At: at(30), Rank: h.Rank}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("hit\n%+v\nwant\n%+v", h, want)
	}
	if h.Rank >= 0 {
		t.Errorf("rank %v: bm25 ranks are negative", h.Rank)
	}
	hits, err = db.Search(context.Background(), "tokenizer", "alpha", 10)
	if hits = direct(hits); err != nil || len(hits) != 2 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	for _, h := range hits {
		if !strings.Contains(rank.Marked(h.Snippet, h.Marks, "[", "]", nil), "[tokenizer]") {
			t.Errorf("snippet %q does not mark the match", h.Snippet)
		}
	}
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

// The FTS5 indexes follow their content tables through the triggers: an update or a
// delete of a row (no code path does either yet; a future cleanup or edit might) changes
// what search finds, and the index stays consistent with its content.
func TestFTSTriggersFollowUpdateAndDelete(t *testing.T) {
	ctx := context.Background()
	db := searchFixture(t)
	found := func(kind, query string) int {
		t.Helper()
		hits, err := db.Search(ctx, query, "", 20)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range direct(hits) {
			if h.Kind == kind {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		name       string
		sql        string
		gone, seen string
	}{
		{"observation update", `UPDATE observations SET title = 'Lexer rewritten' WHERE title = 'Use WAL mode'`, "wal", "lexer"},
		{"observation delete", `DELETE FROM observations WHERE title = 'Cache keys'`, "mtime", ""},
		{"summary update", `UPDATE summaries SET request = 'Speed up startup', learned = ''`, "bounds", "startup"},
		{"summary delete", `DELETE FROM summaries`, "startup", ""},
		{"prompt update", `UPDATE prompts SET text = 'yaml please' WHERE text LIKE 'add toml%'`, "support", "yaml"},
		{"prompt delete", `DELETE FROM prompts WHERE text = 'yaml please'`, "yaml", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			kind, _, _ := strings.Cut(c.name, " ")
			if found(kind, c.gone) == 0 {
				t.Fatalf("%q not found before the change", c.gone)
			}
			if _, err := db.sql.Exec(c.sql); err != nil {
				t.Fatal(err)
			}
			if n := found(kind, c.gone); n != 0 {
				t.Errorf("%q still found %d times", c.gone, n)
			}
			if c.seen != "" && found(kind, c.seen) != 1 {
				t.Errorf("%q not found after the change", c.seen)
			}
			if err := db.Integrity(ctx); err != nil {
				t.Errorf("Integrity: %v", err)
			}
		})
	}
}

func TestIntegrityFindsAnIndexOutOfSync(t *testing.T) {
	ctx := context.Background()
	db := searchFixture(t)
	if err := db.Integrity(ctx); err != nil {
		t.Fatalf("fresh database: %v", err)
	}
	if _, err := db.sql.Exec(`DROP TRIGGER prompts_search_unindex; DROP TRIGGER prompts_search_update; UPDATE prompts SET text = 'edited behind the index'`); err != nil {
		t.Fatal(err)
	}
	var ie *IntegrityError
	if err := db.Integrity(ctx); !errors.As(err, &ie) || !strings.Contains(ie.Problems[0], "search_fts") {
		t.Errorf("Integrity: %v, want an *IntegrityError naming search_fts", err)
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

func TestSeedObservations(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	if err := SeedObservations(ctx, db, "bench", 120, t0); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT count(*) FROM observations WHERE project = 'bench'"); n != 120 {
		t.Errorf("%d observations, want 120", n)
	}
	recent, err := db.RecentObservations(ctx, "bench", 2)
	if err != nil || len(recent) != 2 || !recent[0].At.Equal(t0) || !recent[1].At.Equal(at(-1)) {
		t.Fatalf("newest seeded: %+v, %v; want at t0 and one second before", recent, err)
	}
	if len(recent[0].Facts) != 3 || recent[0].Title == "" || recent[0].Narrative == "" {
		t.Errorf("seeded observation lacks text: %+v", recent[0])
	}
	hits, err := db.Search(ctx, strings.Fields(recent[0].Title)[0], "bench", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("a seeded word is not found: %v, %v", hits, err)
	}
	if err := db.Integrity(ctx); err != nil {
		t.Error(err)
	}
	// Deterministic: a second database seeded alike holds the same text.
	db2, _ := openTest(t)
	if err := SeedObservations(ctx, db2, "bench", 120, t0); err != nil {
		t.Fatal(err)
	}
	again, _ := db2.RecentObservations(ctx, "bench", 2)
	if !reflect.DeepEqual(recent, again) {
		t.Error("seeding is not deterministic")
	}
	if err := SeedObservations(ctx, db, "bench", -1, t0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("n -1: %v, want ErrInvalidArgument", err)
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
		t.Errorf("hits %v: want every kind, the observation (three of the words, stemmed) first", keys(hits))
	}
	if err := db.Integrity(ctx); err != nil {
		t.Error(err)
	}
	if got := keys(direct(mustSearch(t, db, "HMAC"))); len(got) != 1 || got[0].Title != "Webhook signatures failed" {
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

// Observations of one project with one type and the same title words collapse into the
// best of them; another type, another project or another title does not.
func TestSearchCollapsesNearDuplicates(t *testing.T) {
	db, _ := openTest(t)
	obs := []Observation{
		{Type: "bugfix", Title: "Retry the webhook on 502", Narrative: "webhook retried"},
		{Type: "bugfix", Title: "retry the Webhook on 502.", Narrative: "webhook retried again"},
		{Type: "bugfix", Title: "Retry  webhooks on 502!", Narrative: "webhook"},
		{Type: "decision", Title: "Retry the webhook on 502", Narrative: "webhook"},
		{Type: "bugfix", Title: "Retry the webhook on 503", Narrative: "webhook"},
	}
	// Stored directly: the observer would count these near-duplicates and not store them,
	// but an import or older memory holds them.
	insert := func(project string, i int, o Observation) {
		if _, err := db.sql.Exec(`INSERT OR IGNORE INTO sessions (id, project, cwd) VALUES (?, ?, '/')`, project, project); err != nil {
			t.Fatal(err)
		}
		if _, err := db.sql.Exec(`INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative, at)
			VALUES (?, ?, 'r', ?, ?, '', ?, ?)`, project, project, o.Type, o.Title, o.Narrative, at(i).UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range obs {
		insert("web", i*10, o)
	}
	insert("other", 90, obs[0])
	hits := mustSearch(t, db, "webhook")
	similar := map[string]int{}
	for _, h := range hits {
		similar[h.Project+" "+h.Type+" "+h.Title] += 1 + h.Similar
	}
	if len(hits) != 4 || slices.ContainsFunc(hits, func(h rank.Hit) bool { return h.Similar != 0 && h.Similar != 2 }) {
		t.Errorf("hits %+v: want 4, one standing for 2 similar", hits)
	}
	total := 0
	for _, n := range similar {
		total += n
	}
	if total != 6 {
		t.Errorf("hits and similar cover %d records, want 6: %v", total, similar)
	}
}

// Equal scores: the newer record first.
func TestSearchRecencyBreaksTies(t *testing.T) {
	db, _ := openTest(t)
	for i, title := range []string{"Cache warmed alpha", "Cache warmed beta", "Cache warmed gamma"} {
		remember(t, db, session("s"+strconv.Itoa(i), "web"), 10-i, []Observation{{Type: "change", Title: title, At: at(10 - i)}}, nil)
	}
	hits := mustSearch(t, db, "warmed")
	var got []string
	for _, h := range hits {
		got = append(got, h.Title)
	}
	if want := []string{"Cache warmed alpha", "Cache warmed beta", "Cache warmed gamma"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want newest first %v", got, want)
	}
}

// A pasted page is searched by its first words, without error; a query of punctuation
// alone finds nothing.
func TestSearchLongAndEmptyQueries(t *testing.T) {
	db := searchFixture(t)
	words := make([]string, 0, 2000)
	for i := range 2000 {
		words = append(words, "w"+strconv.Itoa(i))
	}
	page := strings.Join(words, " ")
	if len(page) < 10_000 {
		t.Fatal("the query is under 10 KB")
	}
	if hits := mustSearch(t, db, "parser "+page); len(direct(hits)) != 5 {
		t.Errorf("10 KB of words after parser: %d hits, want 5", len(direct(hits)))
	}
	if hits := mustSearch(t, db, page+" parser"); len(hits) != 0 {
		t.Errorf("a word past the first 64 distinct ones was searched: %v", keys(hits))
	}
	if hits := mustSearch(t, db, "?!… — ()[]{} ''"); hits != nil {
		t.Errorf("punctuation only: %v", hits)
	}
}

// The records next to a strong match in its session are found by it, after it; a record
// of another session is not.
func TestSearchContext(t *testing.T) {
	db, _ := openTest(t)
	remember(t, db, session("s", "web"), 1, []Observation{
		{Type: "discovery", Title: "Refresh token rotation logs users out", At: at(1)},
		{Type: "bugfix", Title: "Grace period for the previous token", Narrative: "Accept the old one for 30 s.", At: at(2)},
		{Type: "change", Title: "Unrelated later work", At: at(3)},
		{Type: "change", Title: "Much later work", At: at(4)},
	}, nil)
	remember(t, db, session("t", "web"), 5, []Observation{{Type: "change", Title: "Another session", At: at(5)}}, nil)
	hits := mustSearch(t, db, "users logged out refresh")
	var got []string
	for _, h := range hits[1:] {
		if h.Context {
			got = append(got, h.Title)
		}
	}
	slices.Sort(got)
	if len(hits) != 3 || hits[0].Title != "Refresh token rotation logs users out" || hits[0].Context ||
		!reflect.DeepEqual(got, []string{"Grace period for the previous token", "Unrelated later work"}) {
		t.Fatalf("hits %+v: want the match, then the two records after it as its context (not the third)", hits)
	}
	for _, h := range hits {
		if h.Session != "s" {
			t.Errorf("%q of another session found as context", h.Title)
		}
	}
	if hits := mustSearch(t, db, "users logged out refresh -grace"); slices.ContainsFunc(hits, func(h rank.Hit) bool { return h.Title == "Grace period for the previous token" }) {
		t.Errorf("an excluded word's record came back as context: %v", keys(hits))
	}
}

// A quoted phrase alone ranks its matches newest first: each holds what was asked for. The
// control: the same words unquoted rank the record holding them most often first.
func TestSearchPhraseAloneNewestFirst(t *testing.T) {
	db, _ := openTest(t)
	titles := func(hits []rank.Hit) (out []string) {
		for _, h := range hits {
			out = append(out, h.Title)
		}
		return out
	}
	remember(t, db, session("s1", "web"), 1, []Observation{{Type: "change", Title: "Refresh token rotation",
		Narrative: "refresh token rotation; the refresh token is rotated; refresh token again", At: at(1)}}, nil)
	remember(t, db, session("s2", "web"), 2, []Observation{{Type: "change", Title: "Login page", Narrative: "uses a refresh token once", At: at(2)}}, nil)
	if hits := mustSearch(t, db, `"refresh token"`); len(hits) != 2 || hits[0].Title != "Login page" {
		t.Errorf("phrase: %v, want the newer first", titles(hits))
	}
	if hits := mustSearch(t, db, `refresh token`); len(hits) != 2 || hits[0].Title != "Refresh token rotation" {
		t.Errorf("words: %v, want the one holding them most first", titles(hits))
	}
}

// A phrase alone ranks newest first across kinds: an observation newer than a pool's worth
// of older prompts holding the phrase is the first hit. The control: the oldest prompt is
// left out of the first page.
func TestSearchPhraseAloneNewestAcrossKinds(t *testing.T) {
	db, _ := openTest(t)
	s := session("s", "web")
	var recs []Captured
	for i := range 110 { // past the pool of 100 ranked
		recs = append(recs, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{RecordID: "p" + strconv.Itoa(i),
			Text: "why does the refresh token expire, take " + strconv.Itoa(i), At: at(i + 1)}})
	}
	ingest(t, db, recs...)
	// Another session: no prompt lends it context.
	remember(t, db, session("t", "web"), 1000, []Observation{{Type: "change", Title: "Refresh token lifetime raised",
		Narrative: "The refresh token now lives 30 days.", At: at(1000)}}, nil)
	hits, err := db.Search(context.Background(), `"refresh token"`, "web", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 || hits[0].Kind != vocab.KindObservation || hits[0].Context {
		t.Fatalf("hits %v: want 10, the newer observation first, by its own match", keys(hits))
	}
	for _, h := range hits[1:] {
		if h.Kind != vocab.KindPrompt || h.Title == "why does the refresh token expire, take 0" {
			t.Errorf("hit %v: want the newest prompts after the observation, not the oldest", keys([]rank.Hit{h}))
		}
	}
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

// A question asked again, in other words' case and punctuation, is one hit: asked 3 times,
// with its sessions. Another question, or the same one in another project, is not.
func TestSearchCollapsesAskedPrompts(t *testing.T) {
	db, _ := openTest(t)
	insertRecord(t, db, vocab.KindPrompt, "web", "s1", 10, "Why does the refund webhook answer 500?")
	insertRecord(t, db, vocab.KindPrompt, "web", "s2", 20, "why does refund webhook answer 500")
	insertRecord(t, db, vocab.KindPrompt, "web", "s3", 30, "Why does the refund webhook answer 500?!\n")
	insertRecord(t, db, vocab.KindPrompt, "web", "s3", 31, "why does the refund webhook answer 502?")
	insertRecord(t, db, vocab.KindPrompt, "other", "o1", 40, "Why does the refund webhook answer 500?")
	hits := mustSearch(t, db, "refund webhook 500")
	var asked []rank.Hit
	for _, h := range hits {
		if h.Asked > 0 {
			asked = append(asked, h)
		}
	}
	if len(hits) != 3 || len(asked) != 1 {
		t.Fatalf("hits %+v: want 3, one of them asked 3 times", hits)
	}
	a := asked[0]
	if a.Project != "web" || a.Asked != 3 || len(a.Sessions) != 3 || a.Sessions[0] != a.Session {
		t.Errorf("asked %+v: want project web, asked 3 times in s1, s2, s3, its own session first", a)
	}
	got := slices.Clone(a.Sessions)
	slices.Sort(got)
	if !slices.Equal(got, []string{"s1", "s2", "s3"}) {
		t.Errorf("sessions %v, want s1 s2 s3", a.Sessions)
	}
	if note := a.AskedNote(); !strings.HasPrefix(note, "asked 3 times, in sessions ") {
		t.Errorf("note %q", note)
	}
	for _, h := range hits {
		if h.ID != a.ID && (h.Asked != 0 || h.AskedNote() != "") {
			t.Errorf("hit %+v stands for no other prompt", h)
		}
	}
}

// A prompt ranks below an observation of its session that holds as many of the query's
// terms, however much better its own words score: the record that answers first. One of
// another session, or holding fewer of the terms, does not move it.
func TestSearchAnswerRanksAboveItsQuestion(t *testing.T) {
	const question = "refund webhook timeout"
	answer := "Refund webhook acknowledged before processing, no more timeout\n" + strings.Repeat("The handler now writes the event to the outbox and answers at once; a worker applies it later. ", 8)
	partial := "Refund webhook acknowledged before processing\n" + strings.Repeat("The handler now writes the event to the outbox and answers at once; a worker applies it later. ", 8)
	for _, c := range []struct {
		name, obsSession, obs string
		answerFirst           bool
	}{
		{"same session", "s1", answer, true},
		{"another session", "s2", answer, false},
		{"fewer terms", "s1", partial, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			// The answer is recorded before the question: context lends it little.
			insertRecord(t, db, vocab.KindObservation, "web", c.obsSession, 10, c.obs)
			insertRecord(t, db, vocab.KindPrompt, "web", "s1", 20, "refund webhook timeout?")
			hits := direct(mustSearch(t, db, question))
			if len(hits) != 2 {
				t.Fatalf("hits %+v: want the prompt and the observation", hits)
			}
			if first := hits[0].Kind == vocab.KindObservation; first != c.answerFirst {
				t.Errorf("observation first: %v, want %v (hits %+v)", first, c.answerFirst, hits)
			}
		})
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
	matches, err := db.index().Matches(ctx, `"flaky"`, rank.Filter{Project: project}, window, 10, false)
	if err != nil {
		return nil, err
	}
	refs := make([]vocab.Ref, len(matches))
	for i, m := range matches {
		refs[i] = m.Ref
	}
	details, err := db.index().Details(ctx, refs)
	var got []string
	for _, d := range details {
		got = append(got, d.Title)
	}
	slices.Sort(got)
	return got, err
}
