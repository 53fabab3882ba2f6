package rank_test

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// The engine's behaviour, over a real store: a ranking rule is tested where its matches
// come from.

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

// searchable is a new database holding memtest.Searchable.
func searchable(t *testing.T) *store.DB {
	t.Helper()
	db, _ := memtest.Open(t)
	memtest.Searchable(t, db)
	return db
}

func mustSearch(t *testing.T, db *store.DB, q string) []rank.Hit {
	t.Helper()
	hits, err := db.Search(context.Background(), q, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestSearchHostileQueriesAreWords(t *testing.T) {
	db := searchable(t)
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
	if ps, err := db.Projects(context.Background()); err != nil || len(ps) != 2 || ps[0].Observations+ps[1].Observations != 4 {
		t.Errorf("projects %+v, %v after hostile queries, want 4 observations in 2", ps, err)
	}
}

func TestSearch(t *testing.T) {
	db := searchable(t)
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
	db, _ := memtest.Open(t)
	if err := seed.Observations(ctx, db, "filler", 200, memtest.T0); err != nil {
		t.Fatal(err)
	}
	// One session each: no record lends another context.
	for i, o := range []store.Observation{
		{Title: "Unrelated", Narrative: "Mentions the flaky migration once among many other words here."},
		{Title: "Flaky test", Narrative: "Fixed."},
		{Title: "Another", Facts: []string{"flaky in CI"}},
		{Title: "Both words", Narrative: "the flaky one broke the lexer"},
	} {
		memtest.Remember(t, db, memtest.Session("a"+strconv.Itoa(i), "alpha"), i+1, []store.Observation{o}, nil)
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
	db := searchable(t)
	hits, err := db.Search(context.Background(), "emoji", "", 10)
	if hits = direct(hits); err != nil || len(hits) != 1 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	h := hits[0]
	want := rank.Hit{Kind: vocab.KindPrompt, ID: 1, Project: "alpha", Session: "a1", Title: "why does the parser crash on emoji?",
		Snippet: "why does the parser crash on emoji? second line with details", Marks: []rank.Span{{Start: 29, End: 34}}, At: memtest.At(30), Rank: h.Rank}
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

// Observations of one project with one type and the same title words collapse into the
// best of them; another type, another project or another title does not.
func TestSearchCollapsesNearDuplicates(t *testing.T) {
	db, _ := memtest.Open(t)
	obs := []store.Observation{
		{Type: "bugfix", Title: "Retry the webhook on 502", Narrative: "webhook retried"},
		{Type: "bugfix", Title: "retry the Webhook on 502.", Narrative: "webhook retried again"},
		{Type: "bugfix", Title: "Retry  webhooks on 502!", Narrative: "webhook"},
		{Type: "decision", Title: "Retry the webhook on 502", Narrative: "webhook"},
		{Type: "bugfix", Title: "Retry the webhook on 503", Narrative: "webhook"},
	}
	// Stored directly: the observer would count these near-duplicates and not store them,
	// but an import or older memory holds them.
	insert := func(project string, i int, o store.Observation) {
		o.SessionID, o.Project, o.At = project, project, memtest.At(i)
		memtest.Import(t, db, store.ImportBatch{Sessions: []store.Session{{ID: project, Project: project, Cwd: "/"}},
			Observations: []store.Observation{o}})
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
	db, _ := memtest.Open(t)
	for i, title := range []string{"Cache warmed alpha", "Cache warmed beta", "Cache warmed gamma"} {
		memtest.Remember(t, db, memtest.Session("s"+strconv.Itoa(i), "web"), 10-i, []store.Observation{{Type: "change", Title: title, At: memtest.At(10 - i)}}, nil)
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
	db := searchable(t)
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
	db, _ := memtest.Open(t)
	memtest.Remember(t, db, memtest.Session("s", "web"), 1, []store.Observation{
		{Type: "discovery", Title: "Refresh token rotation logs users out", At: memtest.At(1)},
		{Type: "bugfix", Title: "Grace period for the previous token", Narrative: "Accept the old one for 30 s.", At: memtest.At(2)},
		{Type: "change", Title: "Unrelated later work", At: memtest.At(3)},
		{Type: "change", Title: "Much later work", At: memtest.At(4)},
	}, nil)
	memtest.Remember(t, db, memtest.Session("t", "web"), 5, []store.Observation{{Type: "change", Title: "Another session", At: memtest.At(5)}}, nil)
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
	db, _ := memtest.Open(t)
	titles := func(hits []rank.Hit) (out []string) {
		for _, h := range hits {
			out = append(out, h.Title)
		}
		return out
	}
	memtest.Remember(t, db, memtest.Session("s1", "web"), 1, []store.Observation{{Type: "change", Title: "Refresh token rotation",
		Narrative: "refresh token rotation; the refresh token is rotated; refresh token again", At: memtest.At(1)}}, nil)
	memtest.Remember(t, db, memtest.Session("s2", "web"), 2, []store.Observation{{Type: "change", Title: "Login page", Narrative: "uses a refresh token once", At: memtest.At(2)}}, nil)
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
	db, _ := memtest.Open(t)
	s := memtest.Session("s", "web")
	var recs []store.Captured
	for i := range 110 { // past the pool of 100 ranked
		recs = append(recs, store.Captured{Kind: store.CapturePrompt, Session: s, Prompt: store.Prompt{RecordID: "p" + strconv.Itoa(i),
			Text: "why does the refresh token expire, take " + strconv.Itoa(i), At: memtest.At(i + 1)}})
	}
	if _, err := db.Ingest(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	// Another session: no prompt lends it context.
	memtest.Remember(t, db, memtest.Session("t", "web"), 1000, []store.Observation{{Type: "change", Title: "Refresh token lifetime raised",
		Narrative: "The refresh token now lives 30 days.", At: memtest.At(1000)}}, nil)
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

// A question asked again, in other words' case and punctuation, is one hit: asked 3 times,
// with its sessions. Another question, or the same one in another project, is not.
func TestSearchCollapsesAskedPrompts(t *testing.T) {
	db, _ := memtest.Open(t)
	memtest.Imported(t, db, vocab.KindPrompt, "web", "s1", 10, "Why does the refund webhook answer 500?")
	memtest.Imported(t, db, vocab.KindPrompt, "web", "s2", 20, "why does refund webhook answer 500")
	memtest.Imported(t, db, vocab.KindPrompt, "web", "s3", 30, "Why does the refund webhook answer 500?!\n")
	memtest.Imported(t, db, vocab.KindPrompt, "web", "s3", 31, "why does the refund webhook answer 502?")
	memtest.Imported(t, db, vocab.KindPrompt, "other", "o1", 40, "Why does the refund webhook answer 500?")
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
			db, _ := memtest.Open(t)
			// The answer is recorded before the question: context lends it little.
			memtest.Imported(t, db, vocab.KindObservation, "web", c.obsSession, 10, c.obs)
			memtest.Imported(t, db, vocab.KindPrompt, "web", "s1", 20, "refund webhook timeout?")
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

// An exclusion that drops nothing ranks as the query without it: the best pool of the
// matches left is ranked, not the four times as many read so that enough remain. The
// control: a weak match next to the best one is found by context alone in the plain search
// (ranked in a larger pool it would have come back as a match of its own, ranked otherwise).
func TestSearchExclusionRanksThePlainPool(t *testing.T) {
	db, _ := memtest.Open(t)
	long := strings.Repeat("word ", 300)
	memtest.Remember(t, db, memtest.Session("a", "web"), 1, []store.Observation{
		{Type: "discovery", Title: "Flaky", At: memtest.At(1)},
		{Type: "discovery", Title: "Long note", Narrative: "flaky " + long, At: memtest.At(2)},
	}, nil)
	var many, short []store.Observation
	for i := range 120 {
		many = append(many, store.Observation{Type: "discovery", Title: "Flaky case " + strconv.Itoa(i) + " " + strings.Repeat("more ", 40), At: memtest.At(10 + i)})
	}
	for i := range 500 {
		short = append(short, store.Observation{Type: "discovery", Title: "note " + strconv.Itoa(i), At: memtest.At(200 + i)})
	}
	memtest.Remember(t, db, memtest.Session("b", "web"), 10, many, nil)
	memtest.Remember(t, db, memtest.Session("c", "web"), 200, short, nil)
	plain := mustSearch(t, db, "flaky")
	note := slices.IndexFunc(plain, func(h rank.Hit) bool { return h.Title == "Long note" })
	if len(plain) == 0 || plain[0].Title != "Flaky" || note < 0 || !plain[note].Context {
		t.Fatalf("plain hits %v: want the best match first, and the long note after it by context alone", keys(plain))
	}
	excluding := mustSearch(t, db, "flaky -nosuchword")
	if !reflect.DeepEqual(excluding, plain) {
		i := slices.IndexFunc(excluding, func(h rank.Hit) bool { return h.Title == "Long note" })
		t.Errorf("excluding a word no record holds: the long note is hit %d, context %v; want the plain search's hits (hit %d, by context)",
			i, i >= 0 && excluding[i].Context, note)
	}
}
