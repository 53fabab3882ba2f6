package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// How search ranks (DESIGN §23). One FTS5 index, search_fts, holds every kind, so a
// record's BM25 score means the same whatever its kind. The query's words are ORed;
// a record's own score is its BM25 with column weights (searchRank), raised for each
// further query term it holds (coverageBoost). A record also takes a share of the
// scores of the best matches next to it in its session (contextShare): the records around
// one that answers are usually about the same thing, and are found by its words. The
// highest score ranks first, the newer of two equal scores first. Observations of one
// project with the same type and a near-equal title collapse into the best of them,
// which counts the others as Similar.

// searchColumns are the index's columns, the same for every kind.
var searchColumns = []string{"title", "subtitle", "body", "facts", "concepts", "files"}

// searchRank is BM25 with a weight per searchColumns entry: facts and files, which name
// what a record is about in few words, weigh twice. A title weighs as its narrative does:
// its words mostly recur there, so a title match already counts twice (a heavier title
// lowered LoCoMo's hit@5, whose titles repeat each turn's first words).
const searchRank = "bm25(search_fts, 1.0, 1.0, 1.0, 2.0, 1.0, 2.0)"

// kindShift: a record's rowid in search_fts is its id plus its kind's offset, a multiple
// of 1<<kindShift, so each kind is one rowid range (ids stay below 2^40).
const kindShift = 40

// searchDoc is how one kind's rows become index rows: one SQL expression per
// searchColumns entry, "{r}" standing for the row ("", "new." or "old.").
type searchDoc struct {
	kind, table string
	offset      int64
	cols        []string
	title       string // the content column a hit shows as its title
}

// listText is a JSON list column (of strings, as marshalLists writes it) as text, its
// items joined by sep. It uses scalar functions only: FTS5 reads the view search_docs
// through a schema-qualified name, where a table-valued function (json_each) cannot be
// found. A list is '["a","b"]'; the JSON escapes a text is likely to hold are undone, a
// rarer one stays as written (it only changes a snippet's looks).
func listText(col, sep string) string {
	expr := `substr(` + col + `, 3, length(` + col + `) - 4)`
	for _, r := range [][2]string{{`'","'`, sep}, {`'\"'`, `'"'`}, {`'\n'`, `char(10)`}, {`'\t'`, `' '`},
		{`'\u003c'`, `'<'`}, {`'\u003e'`, `'>'`}, {`'\u0026'`, `'&'`}, {`'\\'`, `'\'`}} {
		expr = `replace(` + expr + `, ` + r[0] + `, ` + r[1] + `)`
	}
	return expr
}

var searchDocs = []searchDoc{
	{vocab.KindObservation, "observations", 0, []string{"{r}title", "{r}subtitle", "{r}narrative",
		listText("{r}facts", "char(10)"), listText("{r}concepts", "' '"),
		listText("{r}files_modified", "' '") + " || ' ' || " + listText("{r}files_read", "' '")},
		"title"},
	{vocab.KindSummary, "summaries", 1 << kindShift, []string{"{r}request", "''",
		"concat_ws(char(10), nullif({r}investigated, ''), nullif({r}learned, ''), nullif({r}completed, ''), nullif({r}next_steps, ''), nullif({r}notes, ''))",
		"NULL", "NULL", "NULL"}, "request"},
	{vocab.KindPrompt, "prompts", 2 << kindShift, []string{"''", "''", "{r}text", "NULL", "NULL", "NULL"}, "text"},
}

func (d searchDoc) values(row string) string {
	out := make([]string, len(d.cols))
	for i, c := range d.cols {
		out[i] = strings.ReplaceAll(c, "{r}", row)
	}
	return strings.Join(out, ", ")
}

func searchDocOf(kind string) searchDoc {
	for _, d := range searchDocs {
		if d.kind == kind {
			return d
		}
	}
	panic("store: unknown kind " + kind)
}

// The ranking's constants.
const (
	// pool is how many best own matches are ranked further (at least the limit asked
	// for); the contextFrom best of them lend context to their neighbours.
	pool        = 100
	contextFrom = 15
	// contextNear: the records on each side of a match, in its session, that take a share
	// of its score; contextShare: the share of those after it (what follows a prompt or
	// a finding answers it), earlierShare times that for those before it.
	contextNear  = 2
	contextShare = 0.5
	earlierShare = 0.5
	// coverageBoost raises a record's own score by this fraction of it for each query term
	// beyond the first that it holds, so more of the query's words rank higher.
	coverageBoost = 0.5
	// maxTerms bounds the terms of one query: a pasted page is searched by its first
	// maxTerms distinct words.
	maxTerms = 64
	// exclusionPool: a query with -word ranks this many times pool before dropping the
	// records holding it.
	exclusionPool = 4
	// ubiquitySample: how many of a term's newest matches tell whether it is in most
	// records (see informative).
	ubiquitySample = 200
)

// rankWindow bounds the work of ranking: bm25 costs a lookup per matching row, so a
// word found in most of 100,000 observations took ~200 ms to rank. When there are more
// matches than this, only the newest rankWindow of them, whatever their kind, are ranked
// (see matches), which favours recent memory: 1,000 keeps a common word's search near
// 10 ms at 100,000 observations (2,000 took about twice that). A window per kind ranked
// three times as many rows over a history with prompts and summaries, the older kinds
// reaching back twenty times further. Fewer matches are all ranked.
const rankWindow = 1000

// Snippet marks: the store returns a snippet's text plain and where its matched words are
// (Hit.Marks); each renderer marks them its own way, or not at all.
const (
	snippetCut   = "…"
	snippetWords = 16
	titleRunes   = 100 // a prompt's title is its first line, cut to this many runes
	markOpen     = "\x02"
	markClose    = "\x03"
)

// Span is a byte range [Start, End) of a hit's Snippet: a word the query matched.
type Span struct{ Start, End int }

// term is one FTS5 query term: a word, a quoted phrase's words, or a prefix.
type term struct {
	words  []string
	prefix bool
}

func (t term) fts() string {
	s := `"` + strings.Join(t.words, " ") + `"`
	if t.prefix {
		s += "*"
	}
	return s
}

// query is a parsed search query: terms any of which may match, and terms none of which
// may.
type query struct {
	terms, not []term
}

// parseQuery reads a query as words, never as FTS5 syntax. Words are cut at every rune
// that is not a letter, number or combining mark, and ORed. Three forms keep their
// meaning: "a quoted phrase" matches those words in that order, -word (or -"phrase")
// excludes the records holding it, and word* matches every word it begins. Stop words
// ("the", "did", "what") are dropped unless the query holds nothing else. A word in a
// script written without spaces (Han, Kana, Hangul) is matched as a prefix, since the
// index keeps a run of such letters as one word.
func parseQuery(q string) query {
	var out query
	var plain []term
	seen := map[string]bool{}
	add := func(t term, neg bool) {
		key := strings.ToLower(t.fts())
		if len(t.words) == 0 || seen[key] || len(out.terms)+len(plain)+len(out.not) >= maxTerms {
			return
		}
		seen[key] = true
		switch {
		case neg:
			out.not = append(out.not, t)
		case len(t.words) == 1 && !t.prefix:
			plain = append(plain, t)
		default:
			out.terms = append(out.terms, t)
		}
	}
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		neg := false
		if r == '-' && (i == 0 || isSpaceBefore(q, i)) && i+n < len(q) {
			next, _ := utf8.DecodeRuneInString(q[i+n:])
			if next == '"' || isWordRune(next) {
				neg = true
				i += n
				r, n = utf8.DecodeRuneInString(q[i:])
			}
		}
		switch {
		case r == '"':
			end := strings.IndexByte(q[i+1:], '"')
			inner := q[i+1:]
			if end >= 0 {
				inner = q[i+1 : i+1+end]
				i += end + 2
			} else {
				i = len(q)
			}
			add(term{words: searchWords(inner)}, neg)
		case isWordRune(r):
			j := i + strings.IndexFunc(q[i:], func(r rune) bool { return !isWordRune(r) })
			if j < i {
				j = len(q)
			}
			w := q[i:j]
			prefix := j < len(q) && q[j] == '*' || spaceless(w)
			add(term{words: []string{w}, prefix: prefix}, neg)
			i = j
		default:
			i += n
		}
	}
	var content []term
	for _, t := range plain {
		if !stopWords()[strings.ToLower(t.words[0])] {
			content = append(content, t)
		}
	}
	if len(content) == 0 && len(out.terms) == 0 {
		content = plain
	}
	out.terms = append(content, out.terms...)
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

func isSpaceBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) || r == '('
}

// spaceless: w holds a letter of a script written without spaces between words.
func spaceless(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
	}) >= 0
}

// searchWords cuts text into words the way the index does before stemming.
func searchWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

func joinTerms(ts []term) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.fts()
	}
	return strings.Join(s, " OR ")
}

// stopWords are English words too common to tell records apart: a query's plain words
// among them are not searched. Built at first use, as every table of the binary, since
// every hook starts it.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves what which who
whom this that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so than
too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven
isn ma mightn mustn needn shan shouldn wasn weren won wouldn`) {
		m[w] = true
	}
	return m
})

// searchFilter narrows a search beyond its words: project ("" = every project), kinds
// (nil = every kind), an observation type (only observations have one), and a time range
// (zero = open).
type searchFilter struct {
	project      string
	kinds        []string
	obsType      string
	since, until time.Time
	noSnippet    bool // hits carry no snippet (it reads every field of each hit)
}

// from is the FROM … WHERE clause of d's index rows matching match and f, with its
// arguments: d's rowid range, which FTS5 seeks to. The content table is joined, as c, only
// when f looks at it or joined is set.
func (d searchDoc) from(match string, f searchFilter, joined bool) (string, []any) {
	conds := []string{`search_fts MATCH ?`, `search_fts.rowid >= ?`, `search_fts.rowid < ?`}
	args := []any{match, d.offset, d.offset + 1<<kindShift}
	add := func(cond string, arg any) { conds = append(conds, cond); args = append(args, arg) }
	if f.project != "" {
		add("c.project = ?", f.project)
	}
	if f.obsType != "" {
		add("c.type = ?", f.obsType)
	}
	if !f.since.IsZero() {
		add("c.at >= ?", f.since.UnixNano())
	}
	if !f.until.IsZero() {
		add("c.at < ?", f.until.UnixNano())
	}
	join := ""
	if len(conds) > 3 || joined {
		// The filter index (migration 8) holds every column filtered on: the planner would
		// seek each match's wide row by its rowid instead.
		join = ` JOIN ` + d.table + ` c INDEXED BY ` + d.table + `_filter ON c.id = search_fts.rowid - ` + strconv.FormatInt(d.offset, 10)
	}
	return ` FROM search_fts` + join + ` WHERE ` + strings.Join(conds, " AND "), args
}

// Search finds observations, summaries and prompts matching query, best first (a lower
// Rank is better), each with a snippet. project "" searches every project. The query is
// read by parseQuery; one with nothing to search, or limit <= 0, returns no hits and no
// error.
func (db *DB) Search(ctx context.Context, query, project string, limit int) ([]Hit, error) {
	return db.searchFiltered(ctx, query, searchFilter{project: project}, limit)
}

// candidate is one record being ranked.
type candidate struct {
	Hit
	own   float64 // its own BM25 score (positive: higher is better), 0 when found by context
	terms int     // how many of the query's terms it holds
	ctx   float64 // the share of its neighbours' scores it takes
	at    int64
	// same is what near-equal records share (see collapse), "" for none; below, when
	// positive, a score this prompt ranks under (see answeredFirst).
	same  string
	below float64
}

func (c *candidate) score() float64 {
	s := c.matchScore() + c.ctx
	if c.below > 0 && s >= c.below {
		s = math.Nextafter(c.below, 0)
	}
	return s
}

// matchScore is c's score for what it holds itself.
func (c *candidate) matchScore() float64 {
	return c.own * (1 + coverageBoost*float64(max(c.terms-1, 0)))
}

type rowKey struct {
	kind string
	id   int64
}

func (db *DB) searchFiltered(ctx context.Context, text string, f searchFilter, limit int) ([]Hit, error) {
	// A search is some twenty statements of a few milliseconds in all: with a context that
	// can be cancelled the driver starts a goroutine per statement to interrupt it, and
	// those wake-ups cost more than any statement; a search under way finishes instead.
	ctx = context.WithoutCancel(ctx)
	q := parseQuery(text)
	if len(q.terms) == 0 || limit <= 0 {
		return nil, nil
	}
	hits, err := db.rank(ctx, q, f, limit, rankWindow)
	return hits, db.fail("search", err)
}

// rank ranks the records matching q within f; window is rankWindow but in tests.
func (db *DB) rank(ctx context.Context, q query, f searchFilter, limit, window int) ([]Hit, error) {
	n := max(pool, limit)
	if len(q.not) > 0 {
		n *= exclusionPool // so that enough remain once the excluded are dropped
	}
	terms, flat, err := db.informative(ctx, q.terms)
	if err != nil {
		return nil, err
	}
	q.terms = terms
	cands, err := db.matches(ctx, joinTerms(q.terms), f, window, n, flat)
	if err == nil {
		cands, err = db.withoutExcluded(ctx, cands, q)
	}
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	byKey := map[rowKey]*candidate{}
	for i := range cands {
		byKey[rowKey{cands[i].Kind, cands[i].ID}] = &cands[i]
	}
	if err := db.coverage(ctx, q, byKey); err != nil {
		return nil, err
	}
	if err := db.details(ctx, cands); err != nil {
		return nil, err
	}
	// The best matches, counting coverage, lend context.
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.matchScore(), a.matchScore()) })
	for i := range cands {
		byKey[rowKey{cands[i].Kind, cands[i].ID}] = &cands[i]
	}
	found, err := db.context(ctx, cands, byKey, q, f)
	if err != nil {
		return nil, err
	}
	cands = append(cands, found...)
	answeredFirst(cands)
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score(), a.score()), cmp.Compare(b.at, a.at), cmp.Compare(b.ID, a.ID))
	})
	hits := collapse(cands, limit)
	if f.noSnippet {
		return hits, nil
	}
	// The snippet marks what matched; the exclusions are left out.
	return hits, db.snippets(ctx, hits, q.terms)
}

// informative leaves out of terms those in more than 4 in 5 of the newest observations,
// while another term remains, and reports whether what is left is such a term (flat).
// BM25 gives a word in most records no weight (FTS5 floors its IDF when it is in over half
// of them), so it cannot tell records apart, yet ranking reads its whole list of rows: a
// word in 90,000 of 100,000 observations cost more than the rest of the search. A query
// of such words alone is ranked by recency (flat), and so is a phrase alone. A term is
// judged on its newest
// ubiquitySample matches in an observation index of at least 4×ubiquitySample records,
// where one bounded seek tells how dense it is.
func (db *DB) informative(ctx context.Context, terms []term) (kept []term, flat bool, err error) {
	if len(terms) == 1 && len(terms[0].words) > 1 {
		// A phrase alone: its matches are what was asked for, newest first. BM25 would
		// order them by length and count only, after reading every row of the phrase's
		// words for an IDF that a one-term query does not need (23 ms over 100,000).
		return terms, true, nil
	}
	d := searchDocOf(vocab.KindObservation)
	// One statement: the newest id, then each term's ubiquitySample-th newest match.
	parts := []string{`SELECT -1, coalesce(max(id), 0) FROM observations`}
	var args []any
	for i, t := range terms {
		parts = append(parts, `SELECT `+strconv.Itoa(i)+`, (SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid >= ? AND rowid < ?
ORDER BY rowid DESC LIMIT 1 OFFSET `+strconv.Itoa(ubiquitySample-1)+`)`)
		args = append(args, t.fts(), d.offset, d.offset+1<<kindShift)
	}
	rows, err := db.sql.QueryContext(ctx, strings.Join(parts, "\nUNION ALL\n"), args...)
	if err != nil {
		return nil, false, err
	}
	var newest int64
	nth := make([]sql.NullInt64, len(terms)) // null: fewer than ubiquitySample matches
	err = scanAll(rows, func(r *sql.Rows) error {
		var i int
		var v sql.NullInt64
		err := r.Scan(&i, &v)
		if i < 0 {
			newest = v.Int64
		} else {
			nth[i] = v
		}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if newest < 4*ubiquitySample || len(terms) < 2 && !nth[0].Valid {
		return terms, false, nil
	}
	var dense []term
	for i, t := range terms {
		if !nth[i].Valid || 5*ubiquitySample < 4*(d.offset+newest-nth[i].Int64+1) {
			kept = append(kept, t) // fewer matches, or in under 4 in 5 of the records they span
		} else {
			dense = append(dense, t)
		}
	}
	if len(kept) == 0 {
		return dense, true, nil
	}
	return kept, false, nil
}

// matches returns the n best own matches over the kinds f allows, among the newest window
// matches of them all: each kind's newest window matches by id (which grows with time),
// then the newest window of those by time, whatever their kind. One statement reads the
// window without scoring, then scores it with one cursor: bm25 weighs each word by the
// rows that hold it, counted through the word's whole list of rows once per cursor, so a
// cursor per kind counted every list once per kind (three times over a coding history with
// prompts and summaries), and ranked a window per kind.
func (db *DB) matches(ctx context.Context, match string, f searchFilter, window, n int, flat bool) ([]candidate, error) {
	docs, err := db.matchingDocs(ctx, match, f)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	var parts []string
	var args []any
	for _, d := range docs {
		from, fargs := d.from(match, f, true)
		parts = append(parts, `SELECT * FROM (SELECT search_fts.rowid AS rid, c.at AS at`+from+
			` ORDER BY search_fts.rowid DESC`+sqlLimit(window)+`)`)
		args = append(args, fargs...)
	}
	// Equal times: the newer id first (rowids put every prompt after every observation).
	newest := strings.Join(parts, "\nUNION ALL\n") + "\nORDER BY at DESC, rid DESC"
	stmt := newest + sqlLimit(n) // flat: every match alike (see informative), the newest first
	switch {
	case !flat && len(docs) == 1:
		// One kind matches: its newest window is scored as FTS5 reads it, in one pass (a
		// history of observations alone pays nothing for the other kinds).
		from, fargs := docs[0].from(match, f, false)
		stmt, args = `SELECT * FROM (SELECT search_fts.rowid AS rid, `+searchRank+` AS score`+from+
			` ORDER BY search_fts.rowid DESC`+sqlLimit(window)+`) ORDER BY score, rid`+sqlLimit(n), fargs
	case !flat:
		// Equal scores at the cut: the older first, as FTS5 reads them. Which of equal
		// scores make the pool moved LoCoMo's hit@5 by a question (newest first lost one);
		// the hits' own order still breaks ties by recency (rank). The window is a filter
		// (+), never a constraint FTS5 would be handed one rowid at a time.
		stmt = `WITH w AS MATERIALIZED (SELECT rid FROM (` + newest + sqlLimit(window) + `))
SELECT rowid AS rid, ` + searchRank + ` AS score FROM search_fts
WHERE search_fts MATCH ? AND rowid BETWEEN (SELECT min(rid) FROM w) AND (SELECT max(rid) FROM w)
AND +rowid IN (SELECT rid FROM w)
ORDER BY score, rid` + sqlLimit(n)
		args = append(args, match)
	}
	rows, err := db.sql.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	var out []candidate
	err = scanAll(rows, func(r *sql.Rows) error {
		var rid int64
		var score sql.NullFloat64
		err := r.Scan(&rid, &score)
		var c candidate
		c.Kind, c.ID = searchDocs[rid>>kindShift].kind, rid&(1<<kindShift-1)
		c.own, c.terms = -score.Float64, 1
		if flat {
			c.own = 1 // the score was the record's time: every match weighs alike
		}
		out = append(out, c)
		return err
	})
	return out, err
}

// matchingDocs are the kinds f allows that hold a match of match at all, whatever f's
// other filters: one seek each, in one statement.
func (db *DB) matchingDocs(ctx context.Context, match string, f searchFilter) ([]searchDoc, error) {
	var allowed []searchDoc
	var parts []string
	var args []any
	for _, d := range searchDocs {
		if f.kinds != nil && !slices.Contains(f.kinds, d.kind) || f.obsType != "" && d.kind != vocab.KindObservation {
			continue
		}
		parts = append(parts, `SELECT `+strconv.Itoa(len(allowed))+` FROM search_fts WHERE search_fts MATCH ? AND rowid >= ? AND rowid < ? LIMIT 1`)
		args = append(args, match, d.offset, d.offset+1<<kindShift)
		allowed = append(allowed, d)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT * FROM (`+strings.Join(parts, `) UNION ALL SELECT * FROM (`)+`)`, args...)
	if err != nil {
		return nil, err
	}
	var out []searchDoc
	err = scanAll(rows, func(r *sql.Rows) error {
		var i int
		err := r.Scan(&i)
		out = append(out, allowed[i])
		return err
	})
	slices.SortFunc(out, func(a, b searchDoc) int { return cmp.Compare(a.offset, b.offset) })
	return out, err
}

// coverage counts, for each candidate, how many of q's terms it holds. Each term is
// looked up only within the rowid span of each kind's candidates (FTS5 seeks to it), not
// through its whole list of rows: a common word is in most of them.
func (db *DB) coverage(ctx context.Context, q query, byKey map[rowKey]*candidate) error {
	if len(q.terms) < 2 {
		return nil
	}
	type span struct{ lo, hi int64 }
	spans := map[string]*span{}
	for k, c := range byKey {
		rid := searchDocOf(k.kind).offset + k.id
		if s := spans[k.kind]; s == nil {
			spans[k.kind] = &span{rid, rid}
		} else {
			s.lo, s.hi = min(s.lo, rid), max(s.hi, rid)
		}
		c.terms = 0
	}
	// One statement for every term and span, prepared once.
	st, err := db.sql.PrepareContext(ctx, `SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid BETWEEN ? AND ?`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, t := range q.terms {
		for _, s := range spans {
			rows, err := st.QueryContext(ctx, t.fts(), s.lo, s.hi)
			if err != nil {
				return err
			}
			err = scanAll(rows, func(r *sql.Rows) error {
				var rid int64
				err := r.Scan(&rid)
				if c := byKey[rowKey{searchDocs[rid>>kindShift].kind, rid & (1<<kindShift - 1)}]; c != nil {
					c.terms++
				}
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// details fills what a hit shows and what ranking needs of each candidate, one query per
// kind.
func (db *DB) details(ctx context.Context, cands []candidate) error {
	for _, d := range searchDocs {
		at := map[int64]*candidate{}
		var ids []int64
		for i := range cands {
			if cands[i].Kind == d.kind {
				at[cands[i].ID] = &cands[i]
				ids = append(ids, cands[i].ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		list, _ := json.Marshal(ids)
		typ, sub := "''", "''"
		if d.kind == vocab.KindObservation {
			typ, sub = "type", "subtitle"
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT id, project, session_id, `+d.title+`, `+typ+`, `+sub+`, at FROM `+d.table+
			` WHERE id IN (SELECT value FROM json_each(?))`, string(list))
		if err != nil {
			return err
		}
		err = scanAll(rows, func(r *sql.Rows) error {
			var id int64
			var h Hit
			var t sql.NullInt64
			if err := r.Scan(&id, &h.Project, &h.Session, &h.Title, &h.Type, &h.Subtitle, &t); err != nil {
				return err
			}
			c := at[id]
			c.Project, c.Session, c.Title, c.Type, c.Subtitle = h.Project, h.Session, h.Title, h.Type, h.Subtitle
			c.At, c.at = fromNanos(t), t.Int64
			switch c.Kind {
			case vocab.KindObservation:
				if key := TitleKey(c.Title); key != "" {
					c.same = c.Project + "\x00" + c.Type + "\x00" + key
				}
			case vocab.KindPrompt:
				if key := TitleKey(c.Title); key != "" {
					c.same = c.Project + "\x00" + vocab.KindPrompt + "\x00" + key
				}
				c.Title = firstLine(c.Title)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// context gives each observation near one of the contextFrom best candidates, in its
// session, a share of that candidate's own score, and returns the observations it found
// that way which matched nothing themselves (within f).
func (db *DB) context(ctx context.Context, cands []candidate, byKey map[rowKey]*candidate, q query, f searchFilter) ([]candidate, error) {
	n := min(contextFrom, len(cands))
	if n == 0 {
		return nil, nil
	}
	// An observation's neighbours are the observations just before and after it; a
	// prompt's or a summary's, those just before and after its time (pivot 0). One
	// statement for every source: each prepared alone cost more than it ran.
	src := make([][3]any, n)
	for i, c := range cands[:n] {
		pivot := c.ID
		if c.Kind != vocab.KindObservation {
			pivot = 0
		}
		src[i] = [3]any{c.Session, c.at, pivot}
	}
	list, _ := json.Marshal(src)
	rows, err := db.sql.QueryContext(ctx, `SELECT s.key,
 (SELECT json_group_array(id) FROM (SELECT id FROM observations WHERE session_id = s.value->>0
  AND (at, id) < (s.value->>1, s.value->>2) ORDER BY at DESC, id DESC`+sqlLimit(contextNear)+`)),
 (SELECT json_group_array(id) FROM (SELECT id FROM observations WHERE session_id = s.value->>0
  AND (at, id) > (s.value->>1, s.value->>2) ORDER BY at ASC, id ASC`+sqlLimit(contextNear)+`))
FROM json_each(?) s ORDER BY s.key`, string(list))
	if err != nil {
		return nil, err
	}
	near := make([][2][]int64, n) // each source's neighbours before and after it, nearest first
	err = scanAll(rows, func(r *sql.Rows) error {
		var i int
		var before, after string
		if err := r.Scan(&i, &before, &after); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(before), &near[i][0]); err != nil {
			return err
		}
		return json.Unmarshal([]byte(after), &near[i][1])
	})
	if err != nil {
		return nil, err
	}
	var found []candidate
	newByKey := map[rowKey]int{}
	for i, src := range cands[:n] {
		for side, ids := range near[i] {
			for _, id := range ids {
				share := contextShare * src.matchScore()
				if side == 0 {
					share *= earlierShare
				}
				k := rowKey{vocab.KindObservation, id}
				if c := byKey[k]; c != nil {
					c.ctx += share
					continue
				}
				if j, ok := newByKey[k]; ok {
					found[j].ctx += share
					continue
				}
				newByKey[k] = len(found)
				found = append(found, candidate{Hit: Hit{Kind: vocab.KindObservation, ID: id, Context: true}, ctx: share})
			}
		}
	}
	// A neighbour is a hit only within f, and never when the query excludes it.
	if err := db.details(ctx, found); err != nil {
		return nil, err
	}
	found, err = db.withoutExcluded(ctx, found, q)
	if err != nil {
		return nil, err
	}
	kept := found[:0]
	for _, c := range found {
		if (f.project == "" || c.Project == f.project) && (f.since.IsZero() || !c.At.Before(f.since)) &&
			(f.until.IsZero() || c.At.Before(f.until)) && (f.obsType == "" || c.Type == f.obsType) &&
			(f.kinds == nil || slices.Contains(f.kinds, vocab.KindObservation)) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// excluded returns which of cands hold one of q's excluded terms: one lookup per kind over
// the candidates' rowid span. Exclusions are applied to the ranked candidates rather than
// in the match: "a NOT b" with a common b walked most of the index (60 ms at 100,000
// observations).
func (db *DB) excluded(ctx context.Context, cands []candidate, q query) (map[rowKey]bool, error) {
	out := map[rowKey]bool{}
	if len(q.not) == 0 {
		return out, nil
	}
	for _, d := range searchDocs {
		lo, hi := int64(-1), int64(-1)
		for _, c := range cands {
			if c.Kind == d.kind {
				if lo < 0 {
					lo, hi = c.ID, c.ID
				}
				lo, hi = min(lo, c.ID), max(hi, c.ID)
			}
		}
		if lo < 0 {
			continue
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid BETWEEN ? AND ?`,
			joinTerms(q.not), d.offset+lo, d.offset+hi)
		if err != nil {
			return nil, err
		}
		err = scanAll(rows, func(r *sql.Rows) error {
			var rid int64
			err := r.Scan(&rid)
			out[rowKey{d.kind, rid - d.offset}] = true
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// withoutExcluded drops the candidates holding one of q's excluded terms.
func (db *DB) withoutExcluded(ctx context.Context, cands []candidate, q query) ([]candidate, error) {
	ex, err := db.excluded(ctx, cands, q)
	if err != nil || len(ex) == 0 {
		return cands, err
	}
	kept := cands[:0]
	for _, c := range cands {
		if !ex[rowKey{c.Kind, c.ID}] {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// answeredFirst ranks each set of near-equal prompts (one question asked again, see
// collapse) just below the best observation or summary of any of their sessions that holds
// as many of the query's terms: the record that answers is worth more than the question,
// however many times it was asked. cands' scores are final but for this.
func answeredFirst(cands []candidate) {
	type asked struct {
		terms    int
		sessions map[string]bool
		below    float64
	}
	questions := map[string]*asked{}
	for _, c := range cands {
		if c.Kind != vocab.KindPrompt || c.same == "" {
			continue
		}
		q := questions[c.same]
		if q == nil {
			q = &asked{sessions: map[string]bool{}}
			questions[c.same] = q
		}
		q.terms = max(q.terms, c.terms)
		q.sessions[c.Session] = true
	}
	if len(questions) == 0 {
		return
	}
	for _, q := range questions {
		for i := range cands {
			if c := &cands[i]; c.Kind != vocab.KindPrompt && !c.Context && c.terms >= q.terms && q.sessions[c.Session] {
				q.below = max(q.below, c.score())
			}
		}
	}
	for i := range cands {
		if c := &cands[i]; c.Kind == vocab.KindPrompt && c.same != "" {
			c.below = questions[c.same].below
		}
	}
}

// collapse keeps the first limit hits of ranked candidates, each standing for the
// lower-ranked near-equal ones (candidate.same): an observation for those of its project
// with its type and title key (TitleKey, the observer's duplicate rule), counted in
// Similar; a prompt for those of its project whose text has its key, counted in Asked
// with their sessions. A record without a key stands for none.
func collapse(cands []candidate, limit int) []Hit {
	var hits []Hit
	first := map[string]int{}
	for _, c := range cands {
		if c.same != "" {
			if i, ok := first[c.same]; ok {
				if i < 0 {
					continue
				}
				h := &hits[i]
				if c.Kind == vocab.KindPrompt {
					if h.Asked == 0 {
						h.Asked, h.Sessions = 1, []string{h.Session}
					}
					h.Asked++
					if !slices.Contains(h.Sessions, c.Session) {
						h.Sessions = append(h.Sessions, c.Session)
					}
				} else {
					h.Similar++
				}
				continue
			}
			first[c.same] = len(hits)
			if len(hits) == limit {
				first[c.same] = -1
			}
		}
		if len(hits) < limit {
			c.Hit.Rank = -c.score()
			hits = append(hits, c.Hit)
		}
	}
	return hits
}

// snippets fills each hit's Snippet and Marks: up to snippetWords words of its field that
// holds the most of the query's words, around where they are densest, or the start of its
// body when none does (a hit found by its context). It reads the fields with one statement
// per kind and picks the words in Go: FTS5's snippet(), a statement per hit that tokenized
// every field again, was a sixth of a whole `hook search`. A word is marked when it has a
// query word's stem (sameStem), as the porter tokenizer matched it.
func (db *DB) snippets(ctx context.Context, hits []Hit, terms []term) error {
	var words []string
	var prefixes []bool
	for _, t := range terms {
		for _, w := range t.words {
			words, prefixes = append(words, strings.ToLower(w)), append(prefixes, t.prefix)
		}
	}
	for _, d := range searchDocs {
		at := map[int64][]*Hit{}
		var ids []int64
		for i := range hits {
			if hits[i].Kind == d.kind {
				at[hits[i].ID] = append(at[hits[i].ID], &hits[i])
				ids = append(ids, hits[i].ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		list, _ := json.Marshal(ids)
		rows, err := db.sql.QueryContext(ctx, `SELECT id, `+d.values("")+` FROM `+d.table+` WHERE id IN (SELECT value FROM json_each(?))`, string(list))
		if err != nil {
			return err
		}
		err = scanAll(rows, func(r *sql.Rows) error {
			var id int64
			fields := make([]sql.NullString, len(searchColumns))
			dest := []any{&id}
			for i := range fields {
				dest = append(dest, &fields[i])
			}
			if err := r.Scan(dest...); err != nil {
				return err
			}
			text := make([]string, len(fields))
			for i, f := range fields {
				text[i] = f.String
			}
			snip, marks := snippetOf(text, words, prefixes)
			for _, h := range at[id] {
				h.Snippet, h.Marks = snip, marks
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// bodyColumn is searchColumns' "body": what a hit with no matched word shows the start of.
const bodyColumn = 2

// snippetOf is the snippet of fields (searchColumns' texts) for the query's words.
func snippetOf(fields, words []string, prefixes []bool) (string, []Span) {
	best, bestN := -1, 0
	split := make([][]string, len(fields))
	for i, f := range fields {
		split[i] = strings.Fields(f)
		n := 0
		for _, tok := range split[i] {
			if markedToken(tok, words, prefixes) != tok {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return unmark(leadWords(fields[bodyColumn], snippetWords))
	}
	toks := split[best]
	start := 0
	if len(toks) > snippetWords {
		hit := make([]int, len(toks)+1) // hit[i]: matched tokens before i
		for i, tok := range toks {
			hit[i+1] = hit[i]
			if markedToken(tok, words, prefixes) != tok {
				hit[i+1]++
			}
		}
		most := -1
		for i := 0; i+snippetWords <= len(toks); i++ {
			if n := hit[i+snippetWords] - hit[i]; n > most {
				start, most = i, n
			}
		}
	}
	end := min(start+snippetWords, len(toks))
	var b strings.Builder
	if start > 0 {
		b.WriteString(snippetCut)
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		b.WriteString(markedToken(toks[i], words, prefixes))
	}
	if end < len(toks) {
		b.WriteString(snippetCut)
	}
	return unmark(b.String())
}

// markedToken is tok with each of its words that a query word matches between markOpen and
// markClose.
func markedToken(tok string, words []string, prefixes []bool) string {
	var b strings.Builder
	i := 0
	for i < len(tok) {
		r, n := utf8.DecodeRuneInString(tok[i:])
		if !isWordRune(r) {
			b.WriteString(tok[i : i+n])
			i += n
			continue
		}
		j := i
		for j < len(tok) {
			r, n := utf8.DecodeRuneInString(tok[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		w := tok[i:j]
		if matchesWord(strings.ToLower(w), words, prefixes) {
			b.WriteString(markOpen + w + markClose)
		} else {
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

func matchesWord(w string, words []string, prefixes []bool) bool {
	for i, q := range words {
		if prefixes[i] && strings.HasPrefix(w, q) || sameStem(w, q) {
			return true
		}
	}
	return false
}

// sameStem approximates the porter stemmer's "these two words are one": equal, or sharing
// a prefix of at least four letters that leaves at most three of the query word (fail,
// failing, failed; configure, configuration). It only decides which words a snippet marks.
func sameStem(w, q string) bool {
	if w == q {
		return true
	}
	if len(q) < 4 || len(w) < 4 {
		return false
	}
	p := 0
	for p < len(w) && p < len(q) && w[p] == q[p] {
		p++
	}
	return p >= 4 && p >= len(q)-3
}

// leadWords is text's first n words, with the cut mark when there were more.
func leadWords(text string, n int) string {
	f := strings.Fields(text)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + snippetCut
}

// unmark takes snippet()'s marks out of s and returns where they were. A snippet is one
// line: every run of spaces and line breaks becomes one space.
func unmark(s string) (string, []Span) {
	var b strings.Builder
	var marks []Span
	start, space := -1, false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case string(r) == markOpen:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			start = b.Len()
		case string(r) == markClose:
			if start >= 0 {
				marks = append(marks, Span{start, b.Len()})
				start = -1
			}
		case unicode.IsSpace(r):
			space = true
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}

// firstLine is a prompt's title: its first non-blank line, cut to titleRunes.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > titleRunes {
			line = string([]rune(line)[:titleRunes]) + snippetCut
		}
		return line
	}
	return ""
}

// Marked is s with each of marks (sorted, not overlapping) wrapped in open and close, and
// every part of s passed through esc (nil: as it is): how a renderer that shows marks
// (a terminal, HTML) writes a hit's Snippet.
func Marked(s string, marks []Span, open, close string, esc func(string) string) string {
	if esc == nil {
		esc = func(s string) string { return s }
	}
	var b strings.Builder
	last := 0
	for _, m := range marks {
		if m.Start < last || m.End > len(s) || m.Start > m.End {
			continue
		}
		b.WriteString(esc(s[last:m.Start]) + open + esc(s[m.Start:m.End]) + close)
		last = m.End
	}
	b.WriteString(esc(s[last:]))
	return b.String()
}
