package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// The search index (DESIGN §23) is storage's side of search: one FTS5 table, search_fts,
// over every kind, the way each kind's rows become its rows, and the statements that read
// it, as package rank's Index. What a query means and how its matches are ranked is rank's.

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

// searchDocs are the kinds' index rows, in rowid order. Built at first use: every hook
// starts this binary, and only a search or an upgrade reads them.
var searchDocs = sync.OnceValue(func() []searchDoc {
	return []searchDoc{
		{vocab.KindObservation, "observations", 0, []string{"{r}title", "{r}subtitle", "{r}narrative",
			listText("{r}facts", "char(10)"), listText("{r}concepts", "' '"),
			listText("{r}files_modified", "' '") + " || ' ' || " + listText("{r}files_read", "' '")},
			"title"},
		{vocab.KindSummary, "summaries", 1 << kindShift, []string{"{r}request", "''",
			"concat_ws(char(10), nullif({r}investigated, ''), nullif({r}learned, ''), nullif({r}completed, ''), nullif({r}next_steps, ''), nullif({r}notes, ''))",
			"NULL", "NULL", "NULL"}, "request"},
		{vocab.KindPrompt, "prompts", 2 << kindShift, []string{"''", "''", "{r}text", "NULL", "NULL", "NULL"}, "text"},
	}
})

func (d searchDoc) values(row string) string {
	out := make([]string, len(d.cols))
	for i, c := range d.cols {
		out[i] = strings.ReplaceAll(c, "{r}", row)
	}
	return strings.Join(out, ", ")
}

func searchDocOf(kind string) searchDoc {
	for _, d := range searchDocs() {
		if d.kind == kind {
			return d
		}
	}
	panic("store: unknown kind " + kind)
}

// titleRunes: a prompt's title is its first line, cut to this many runes.
const titleRunes = 100

// firstLine is a prompt's title: its first non-blank line, cut to titleRunes.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > titleRunes {
			line = string([]rune(line)[:titleRunes]) + "…"
		}
		return line
	}
	return ""
}

// from is the FROM … WHERE clause of d's index rows matching match and f, with its
// arguments: d's rowid range, which FTS5 seeks to. The content table is joined, as c, only
// when f looks at it or joined is set.
func (d searchDoc) from(match string, f rank.Filter, joined bool) (string, []any) {
	conds := []string{`search_fts MATCH ?`, `search_fts.rowid >= ?`, `search_fts.rowid < ?`}
	args := []any{match, d.offset, d.offset + 1<<kindShift}
	add := func(cond string, arg any) { conds = append(conds, cond); args = append(args, arg) }
	if f.Project != "" {
		add("c.project = ?", f.Project)
	}
	if f.Type != "" {
		add("c.type = ?", f.Type)
	}
	if !f.Since.IsZero() {
		add("c.at >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("c.at < ?", f.Until.UnixNano())
	}
	// An author by sync_ids' primary key: only pulled records have one.
	switch origin := `SELECT 1 FROM sync_ids s WHERE s.kind = '` + d.kind + `' AND s.local_id = CAST(c.id AS TEXT) AND s.author`; f.Author {
	case "":
	case rank.Own:
		conds = append(conds, `NOT EXISTS (`+origin+` <> '')`)
	default:
		add(`EXISTS (`+origin+` = ?)`, f.Author)
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
// Rank is better), each with a snippet, as rank.Search ranks them. project "" searches
// every project.
func (db *DB) Search(ctx context.Context, query, project string, limit int) ([]rank.Hit, error) {
	return db.SearchWithin(ctx, query, rank.Filter{Project: project}, limit)
}

// SearchWithin is Search narrowed by f.
func (db *DB) SearchWithin(ctx context.Context, query string, f rank.Filter, limit int) ([]rank.Hit, error) {
	hits, err := rank.Search(searchContext(ctx), db.index(f), query, f, limit)
	if err == nil && f.Author == "" {
		err = db.withOrigins(ctx, hits) // only the hits shown: see ftsIndex
	}
	return hits, db.fail("search", err)
}

// searchContext: a search is some twenty statements of a few milliseconds in all: with a
// context that can be cancelled the driver starts a goroutine per statement to interrupt
// it, and those wake-ups cost more than any statement; a search under way finishes instead.
func searchContext(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// ftsIndex is rank.Index over db's search_fts.
type ftsIndex struct {
	db      *DB
	origins bool // Details reads each record's origin (author, machine)
}

// index is the search index for a search narrowed by f. Details reads every candidate's
// origin only when f filters by author (ranking needs it then); otherwise who made a hit is
// read for the hits returned alone, a join fewer for each of a pool of hundreds.
func (db *DB) index(f rank.Filter) ftsIndex { return ftsIndex{db: db, origins: f.Author != ""} }

// Matches reads the window without scoring, then scores it with one cursor: bm25 weighs
// each word by the rows that hold it, counted through the word's whole list of rows once
// per cursor, so a cursor per kind counted every list once per kind (three times over a
// coding history with prompts and summaries), and ranked a window per kind.
func (x ftsIndex) Matches(ctx context.Context, match string, f rank.Filter, window, n int, flat bool) ([]rank.Match, error) {
	docs, err := x.storedDocs(ctx, f)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	if !flat && len(docs) == 1 {
		// One kind stored: its newest window is scored as FTS5 reads it, in one pass (a
		// history of observations alone pays nothing for the other kinds).
		from, args := docs[0].from(match, f, false)
		return scored(ctx, x.db.sql, `SELECT * FROM (SELECT search_fts.rowid AS rid, `+searchRank+` AS score`+from+
			` ORDER BY search_fts.rowid DESC`+sqlLimit(window)+`) ORDER BY score, rid`+sqlLimit(n), args...)
	}
	conn, err := x.db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if flat { // every match alike, the newest first
		rids, err := newestMatches(ctx, conn, docs, match, f, window, n)
		out := make([]rank.Match, len(rids))
		for i, rid := range rids {
			out[i] = rank.Match{Ref: refOf(rid)}
		}
		return out, err
	}
	rids, err := newestMatches(ctx, conn, docs, match, f, window, window)
	if err != nil || len(rids) == 0 {
		return nil, err
	}
	list, _ := json.Marshal(rids)
	// Equal scores at the cut: the older first, as FTS5 reads them. Which of equal scores
	// make the pool moved LoCoMo's hit@5 by a question (newest first lost one); the hits'
	// own order still breaks ties by recency (rank). The window is a filter (+), never a
	// constraint FTS5 would be handed one rowid at a time.
	return scored(ctx, conn, `SELECT rowid AS rid, `+searchRank+` AS score FROM search_fts
WHERE search_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))
ORDER BY score, rid`+sqlLimit(n), match, slices.Min(rids), slices.Max(rids), string(list))
}

// scored reads the matches a statement scores (rid, score).
func scored(ctx context.Context, q querier, stmt string, args ...any) ([]rank.Match, error) {
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	var out []rank.Match
	err = scanAll(rows, func(r *sql.Rows) error {
		var rid int64
		var score float64
		err := r.Scan(&rid, &score)
		out = append(out, rank.Match{Ref: refOf(rid), Score: -score})
		return err
	})
	return out, err
}

// newestMatches are the rowids of the newest n matches of match within f, by time (equal
// times: the newer id first), among each kind's newest window, whatever their kind. Each
// kind's matches are read newest first (ids grow with time), one cursor each, and merged
// as they are read: a kind stops at the oldest of the n, where reading each kind's newest
// window first read and joined up to window rows of every kind (two thirds of them left
// out over a coding history).
func newestMatches(ctx context.Context, conn *sql.Conn, docs []searchDoc, match string, f rank.Filter, window, n int) ([]int64, error) {
	type head struct {
		rows    *sql.Rows
		rid, at int64
		ok      bool
	}
	var heads []*head
	defer func() {
		for _, h := range heads {
			h.rows.Close()
		}
	}()
	next := func(h *head) error {
		if h.ok = h.rows.Next(); !h.ok {
			return h.rows.Err()
		}
		return h.rows.Scan(&h.rid, &h.at)
	}
	for _, d := range docs {
		from, args := d.from(match, f, true)
		rows, err := conn.QueryContext(ctx, `SELECT search_fts.rowid, c.at`+from+` ORDER BY search_fts.rowid DESC`+sqlLimit(window), args...)
		if err != nil {
			return nil, err
		}
		h := &head{rows: rows}
		heads = append(heads, h)
		if err := next(h); err != nil {
			return nil, err
		}
	}
	var out []int64
	for len(out) < n {
		var best *head
		for _, h := range heads {
			if h.ok && (best == nil || h.at > best.at || h.at == best.at && h.rid > best.rid) {
				best = h
			}
		}
		if best == nil {
			break
		}
		out = append(out, best.rid)
		if err := next(best); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refOf is the record of a search_fts rowid.
func refOf(rid int64) vocab.Ref {
	return vocab.Ref{Kind: searchDocs()[rid>>kindShift].kind, ID: rid & (1<<kindShift - 1)}
}

// storedDocs are the kinds f allows that hold any record, by one seek each. A kind
// without a match costs the window its cursor's seek; asking which kinds match cost three
// cursors more, each seeking every word (and merging a prefix's words) again.
func (x ftsIndex) storedDocs(ctx context.Context, f rank.Filter) ([]searchDoc, error) {
	var allowed []searchDoc
	var parts []string
	for _, d := range searchDocs() {
		if f.Kinds != nil && !slices.Contains(f.Kinds, d.kind) || f.Type != "" && d.kind != vocab.KindObservation {
			continue
		}
		parts = append(parts, `SELECT `+strconv.Itoa(len(allowed))+` WHERE EXISTS (SELECT 1 FROM `+d.table+`)`)
		allowed = append(allowed, d)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := x.db.sql.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
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
	return out, err
}

// Density is one statement: the newest id, then each match's sample-th newest.
func (x ftsIndex) Density(ctx context.Context, kind string, matches []string, sample int) (int64, []int64, error) {
	d := searchDocOf(kind)
	parts := []string{`SELECT -1, coalesce(max(id), 0) FROM ` + d.table}
	var args []any
	for i, m := range matches {
		parts = append(parts, `SELECT `+strconv.Itoa(i)+`, (SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rowid >= ? AND rowid < ?
ORDER BY rowid DESC LIMIT 1 OFFSET `+strconv.Itoa(sample-1)+`)`)
		args = append(args, m, d.offset, d.offset+1<<kindShift)
	}
	rows, err := x.db.sql.QueryContext(ctx, strings.Join(parts, "\nUNION ALL\n"), args...)
	if err != nil {
		return 0, nil, err
	}
	var newest int64
	nth := make([]int64, len(matches))
	err = scanAll(rows, func(r *sql.Rows) error {
		var i int
		var v sql.NullInt64
		err := r.Scan(&i, &v)
		switch {
		case i < 0:
			newest = v.Int64
		case v.Valid:
			nth[i] = v.Int64 - d.offset
		}
		return err
	})
	return newest, nth, err
}

// Holding looks each match up only within the rowid span of each kind's refs (FTS5 seeks
// to it), not through its whole list of rows: a common word is in most of them.
func (x ftsIndex) Holding(ctx context.Context, matches []string, refs []vocab.Ref) ([]map[vocab.Ref]bool, error) {
	// The refs' rowids, and each kind's span of them (FTS5 seeks to it).
	type span struct{ lo, hi int64 }
	var spans []span
	rids := make([]int64, 0, len(refs))
	for _, d := range searchDocs() {
		s := span{-1, -1}
		for _, r := range refs {
			if r.Kind != d.kind {
				continue
			}
			rid := d.offset + r.ID
			rids = append(rids, rid)
			if s.lo < 0 {
				s = span{rid, rid}
			}
			s.lo, s.hi = min(s.lo, rid), max(s.hi, rid)
		}
		if s.lo >= 0 {
			spans = append(spans, s)
		}
	}
	out := make([]map[vocab.Ref]bool, len(matches))
	for i := range out {
		out[i] = map[vocab.Ref]bool{}
	}
	if len(spans) == 0 {
		return out, nil
	}
	// One statement for every match and span: each is a cursor of its own, and a
	// statement for each cost its preparation and driver round. Only the rows asked about
	// come back: a common word holds most rows of a span, each a step of the driver.
	list, _ := json.Marshal(rids)
	args := []any{string(list)}
	var arms []string
	for i, m := range matches {
		args = append(args, m)
		for _, sp := range spans {
			arms = append(arms, fmt.Sprintf(`SELECT %d, rowid FROM search_fts WHERE search_fts MATCH ?%d AND rowid BETWEEN %d AND %d
AND +rowid IN (SELECT value FROM json_each(?1))`, i, len(args), sp.lo, sp.hi))
		}
	}
	rows, err := x.db.sql.QueryContext(ctx, strings.Join(arms, "\nUNION ALL\n"), args...)
	if err != nil {
		return nil, err
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var i int
		var rid int64
		err := r.Scan(&i, &rid)
		out[i][refOf(rid)] = true
		return err
	})
	return out, err
}

// idsOf are the ids of refs of d's kind, as the JSON list a statement reads with json_each.
func (d searchDoc) idsOf(refs []vocab.Ref) (string, bool) {
	var ids []int64
	for _, r := range refs {
		if r.Kind == d.kind {
			ids = append(ids, r.ID)
		}
	}
	list, _ := json.Marshal(ids)
	return string(list), len(ids) > 0
}

// Details reads one statement per kind. A prompt's title is its first line; its key, the
// whole text's.
func (x ftsIndex) Details(ctx context.Context, refs []vocab.Ref) ([]rank.Detail, error) {
	var out []rank.Detail
	for _, d := range searchDocs() {
		list, ok := d.idsOf(refs)
		if !ok {
			continue
		}
		typ, sub := "''", "''"
		if d.kind == vocab.KindObservation {
			typ, sub = "type", "subtitle"
		}
		// The origin by sync_ids' primary key, when asked for (see DB.index).
		origin, args := `'', ''`, []any{list}
		if x.origins {
			origin = `coalesce(author, ''), coalesce(machine, '') FROM ` + d.table + ` LEFT JOIN sync_ids ON kind = ? AND local_id = CAST(id AS TEXT)`
			args = []any{d.kind, list}
		} else {
			origin += ` FROM ` + d.table
		}
		rows, err := x.db.sql.QueryContext(ctx, `SELECT id, project, session_id, `+d.title+`, `+typ+`, `+sub+`, at, `+origin+`
WHERE id IN (SELECT value FROM json_each(?))`, args...)
		if err != nil {
			return nil, err
		}
		err = scanAll(rows, func(r *sql.Rows) error {
			h := rank.Detail{Ref: vocab.Ref{Kind: d.kind}}
			var t sql.NullInt64
			if err := r.Scan(&h.ID, &h.Project, &h.Session, &h.Title, &h.Type, &h.Subtitle, &t, &h.Author, &h.Machine); err != nil {
				return err
			}
			h.At, h.Time, h.Key = fromNanos(t), t.Int64, TitleKey(h.Title)
			if d.kind == vocab.KindPrompt {
				h.Title = firstLine(h.Title)
			}
			out = append(out, h)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Neighbours is one statement for every record around: each prepared alone cost more
// than it ran. An observation is its own pivot in (at, id) order; another kind's pivot is
// its time alone (id 0).
func (x ftsIndex) Neighbours(ctx context.Context, around []rank.Detail, n int) ([][2][]int64, error) {
	src := make([][3]any, len(around))
	for i, a := range around {
		pivot := a.ID
		if a.Kind != vocab.KindObservation {
			pivot = 0
		}
		src[i] = [3]any{a.Session, a.Time, pivot}
	}
	list, _ := json.Marshal(src)
	rows, err := x.db.sql.QueryContext(ctx, `SELECT s.key,
 (SELECT json_group_array(id) FROM (SELECT id FROM observations WHERE session_id = s.value->>0
  AND (at, id) < (s.value->>1, s.value->>2) ORDER BY at DESC, id DESC`+sqlLimit(n)+`)),
 (SELECT json_group_array(id) FROM (SELECT id FROM observations WHERE session_id = s.value->>0
  AND (at, id) > (s.value->>1, s.value->>2) ORDER BY at ASC, id ASC`+sqlLimit(n)+`))
FROM json_each(?) s ORDER BY s.key`, string(list))
	if err != nil {
		return nil, err
	}
	near := make([][2][]int64, len(around))
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
	return near, err
}

// bodyColumn is searchColumns' "body": what a hit with no matched word shows the start of.
const bodyColumn = 2

// Texts reads one statement per kind.
func (x ftsIndex) Texts(ctx context.Context, refs []vocab.Ref) (map[vocab.Ref]rank.Text, error) {
	out := map[vocab.Ref]rank.Text{}
	for _, d := range searchDocs() {
		list, ok := d.idsOf(refs)
		if !ok {
			continue
		}
		rows, err := x.db.sql.QueryContext(ctx, `SELECT id, `+d.values("")+` FROM `+d.table+` WHERE id IN (SELECT value FROM json_each(?))`, list)
		if err != nil {
			return nil, err
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
			out[vocab.Ref{Kind: d.kind, ID: id}] = rank.Text{Columns: text, Body: bodyColumn}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
