package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Hit kinds.
const (
	KindObservation = "observation"
	KindSummary     = "summary"
	KindPrompt      = "prompt"
)

// Snippet markers around matched words, and the ellipsis where text was cut.
const (
	SnippetOpen  = "**"
	SnippetClose = "**"
	snippetCut   = "…"
	snippetWords = 16
	titleRunes   = 100 // a prompt's title is its first line, cut to this many runes
)

const observationColumns = `id, session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at`

const (
	sqlRecentObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE project = ? ORDER BY at DESC, id DESC LIMIT ?`
)

// RecentObservations returns the project's newest observations, newest first. Only that
// exact project's: observations of other projects never appear. limit <= 0 returns none.
func (db *DB) RecentObservations(ctx context.Context, project string, limit int) ([]Observation, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, sqlRecentObservations, project, limit)
	if err != nil {
		return nil, db.fail("recent observations", err)
	}
	out, err := scanObservations(rows)
	return out, db.fail("recent observations", err)
}

// scanObservations reads rows of observationColumns.
func scanObservations(rows *sql.Rows) ([]Observation, error) {
	var out []Observation
	err := scanAll(rows, func(r *sql.Rows) error {
		var o Observation
		var at sql.NullInt64
		var lists [4]string
		if err := r.Scan(&o.ID, &o.SessionID, &o.Project, &o.RunID, &o.Type, &o.Title, &o.Subtitle,
			&o.Narrative, &lists[0], &lists[1], &lists[2], &lists[3], &at); err != nil {
			return err
		}
		o.At = fromNanos(at)
		for i, dst := range []*[]string{&o.Facts, &o.Concepts, &o.FilesRead, &o.FilesModified} {
			if err := json.Unmarshal([]byte(lists[i]), dst); err != nil {
				return err
			}
			if len(*dst) == 0 {
				*dst = nil
			}
		}
		out = append(out, o)
		return nil
	})
	return out, err
}

// Search finds observations, summaries and prompts matching query, best first (FTS5 bm25:
// a lower Rank is better), each with a snippet. project "" searches every project.
//
// The query is always plain words, never FTS5 syntax: it is cut into words at every rune
// that is not a letter, number or combining mark, each word is quoted as an FTS5 string,
// and all words must match (AND). When that finds nothing and there are several words,
// any word may match (OR), so a long question still finds something. A query with no
// words, or limit <= 0, returns no hits and no error. A word found in thousands of rows
// ranks only the newest of them (see rankWindow).
func (db *DB) Search(ctx context.Context, query, project string, limit int) ([]Hit, error) {
	words := searchWords(query)
	if len(words) == 0 || limit <= 0 {
		return nil, nil
	}
	return db.searchFiltered(ctx, words, searchFilter{project: project}, limit)
}

// searchFiltered is Search's AND-then-OR over words, narrowed by f.
func (db *DB) searchFiltered(ctx context.Context, words []string, f searchFilter, limit int) ([]Hit, error) {
	hits, err := db.search(ctx, ftsQuery(words, " AND "), f, limit, rankWindow)
	if err == nil && len(hits) == 0 && len(words) > 1 {
		hits, err = db.search(ctx, ftsQuery(words, " OR "), f, limit, rankWindow)
	}
	return hits, db.fail("search", err)
}

func searchWords(query string) []string {
	return strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
}

// ftsQuery quotes each word as an FTS5 string. The words hold no '"' (only letters,
// numbers and marks), so no input can end a string early or reach the query syntax.
func ftsQuery(words []string, op string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	return strings.Join(q, op)
}

// searchTable describes one searchable kind: its FTS5 table, its content table, and the
// content column a hit shows as its title.
type searchTable struct {
	kind, fts, content, title string
}

var searchTables = []searchTable{
	{KindObservation, "observations_fts", "observations", "title"},
	{KindSummary, "summaries_fts", "summaries", "request"},
	{KindPrompt, "prompts_fts", "prompts", "text"},
}

// rankWindow bounds the work of ranking: bm25 costs a lookup per matching row, so a
// word found in most of 100,000 observations took ~200 ms to rank. When a kind has more
// matches than this, only its newest rankWindow matches (by id, which grows with time)
// are ranked: a search stays within ~25 ms at 100,000 observations and favours recent
// memory. Fewer matches are all ranked.
const rankWindow = 2000

// searchFilter narrows a search beyond its words: project ("" = every project), kinds
// (nil = every kind), an observation type (only observations have one), and a time range
// (zero = open).
type searchFilter struct {
	project      string
	kinds        []string
	obsType      string
	since, until time.Time
	noSnippet    bool // hits carry kind, id and rank only (snippet() is costly on long rows)
}

// from is the FROM … WHERE clause of t's rows matching match and f, with its arguments.
// The content table is joined only when f looks at it.
func (t searchTable) from(match string, f searchFilter) (string, []any) {
	var conds []string
	args := []any{match}
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
	if len(conds) == 0 {
		return ` FROM ` + t.fts + ` WHERE ` + t.fts + ` MATCH ?`, args
	}
	return ` FROM ` + t.fts + ` JOIN ` + t.content + ` c ON c.id = ` + t.fts + `.rowid
		WHERE ` + t.fts + ` MATCH ? AND ` + strings.Join(conds, " AND "), args
}

// search ranks the newest `window` matches of each kind in two steps: first only (kind,
// id, rank) of the best `limit`, then the shown columns and the snippet for those few,
// because snippet() is costly and SQLite would compute it for every match before sorting.
func (db *DB) search(ctx context.Context, match string, f searchFilter, limit, window int) ([]Hit, error) {
	var parts []string
	var args []any
	for _, t := range searchTables {
		if f.kinds != nil && !slices.Contains(f.kinds, t.kind) {
			continue
		}
		from, fargs := t.from(match, f)
		var oldest int64 // the oldest id inside the window; 0 when every match fits
		err := db.sql.QueryRowContext(ctx, `SELECT `+t.fts+`.rowid`+from+` ORDER BY `+t.fts+`.rowid DESC LIMIT 1 OFFSET ?`,
			append(fargs, window-1)...).Scan(&oldest)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		parts = append(parts, `SELECT '`+t.kind+`' AS kind, `+t.fts+`.rowid AS id, `+t.fts+`.rank AS rank`+from+
			` AND `+t.fts+`.rowid >= ?`)
		args = append(append(args, fargs...), oldest)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, strings.Join(parts, "\nUNION ALL\n")+"\nORDER BY rank LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	err = scanAll(rows, func(r *sql.Rows) error {
		var h Hit
		err := r.Scan(&h.Kind, &h.ID, &h.Rank)
		hits = append(hits, h)
		return err
	})
	if err != nil {
		return nil, err
	}
	if f.noSnippet {
		return hits, nil
	}
	for i := range hits {
		if err := db.fillHit(ctx, &hits[i], match); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

func (db *DB) fillHit(ctx context.Context, h *Hit, match string) error {
	var t searchTable
	for _, t = range searchTables {
		if t.kind == h.Kind {
			break
		}
	}
	var at sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `
SELECT c.project, c.session_id, c.`+t.title+`, c.at, snippet(`+t.fts+`, -1, ?, ?, ?, ?)
FROM `+t.fts+` JOIN `+t.content+` c ON c.id = `+t.fts+`.rowid
WHERE `+t.fts+` MATCH ? AND `+t.fts+`.rowid = ?`,
		SnippetOpen, SnippetClose, snippetCut, snippetWords, match, h.ID).
		Scan(&h.Project, &h.Session, &h.Title, &at, &h.Snippet)
	h.At = fromNanos(at)
	if h.Kind == KindPrompt {
		h.Title = firstLine(h.Title)
	}
	return err
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
