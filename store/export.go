package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// ExportFilter selects what Export reads: one project ("" for all) and rows at or after
// Since (zero: all).
type ExportFilter struct {
	Project string
	Since   time.Time
}

// ExportVisitor receives Export's rows, one function per kind.
type ExportVisitor struct {
	Session     func(Session) error
	Prompt      func(Prompt) error
	Observation func(Observation) error
	Summary     func(Summary) error
}

// The export's statements. Each kind is ordered by its content alone, never by row ids, so
// the same memory reads in the same order from any database it was imported into. Sessions
// are those the filter selects and those any exported row belongs to.
const (
	sqlExportSessions = `
SELECT id, project, cwd, started_at, ended_at FROM sessions s
WHERE ((?1 = '' OR s.project = ?1) AND coalesce(s.started_at, 0) >= ?2)
	OR s.id IN (SELECT session_id FROM prompts WHERE (?1 = '' OR project = ?1) AND at >= ?2)
	OR s.id IN (SELECT session_id FROM observations WHERE (?1 = '' OR project = ?1) AND at >= ?2)
	OR s.id IN (SELECT session_id FROM summaries WHERE (?1 = '' OR project = ?1) AND at >= ?2)
ORDER BY id`
	sqlExportPrompts = `
SELECT id, session_id, project, text, at FROM prompts
WHERE (?1 = '' OR project = ?1) AND at >= ?2
ORDER BY at, session_id, project, text`
	sqlExportObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE (?1 = '' OR project = ?1) AND at >= ?2
ORDER BY at, session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified`
	sqlExportSummaries = `
SELECT id, session_id, project, run_id, request, investigated, learned, completed, next_steps, notes, at
FROM summaries WHERE (?1 = '' OR project = ?1) AND at >= ?2
ORDER BY at, session_id, project, request, investigated, learned, completed, next_steps, notes`
)

// Export reads the filter's sessions, prompts, observations and summaries, in that order,
// from one snapshot of the database. Events (raw tool input and output, the observer's
// queue) are not exported.
func (db *DB) Export(ctx context.Context, f ExportFilter, v ExportVisitor) error {
	since := int64(math.MinInt64)
	if !f.Since.IsZero() {
		since = f.Since.UnixNano()
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.fail("export", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, sqlExportSessions, f.Project, since)
	if err != nil {
		return db.fail("export", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var s Session
		var start, end sql.NullInt64
		if err := r.Scan(&s.ID, &s.Project, &s.Cwd, &start, &end); err != nil {
			return err
		}
		s.StartedAt, s.EndedAt = fromNanos(start), fromNanos(end)
		return v.Session(s)
	})
	if err != nil {
		return db.fail("export", err)
	}
	if rows, err = tx.QueryContext(ctx, sqlExportPrompts, f.Project, since); err != nil {
		return db.fail("export", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var p Prompt
		var at sql.NullInt64
		if err := r.Scan(&p.ID, &p.SessionID, &p.Project, &p.Text, &at); err != nil {
			return err
		}
		p.At = fromNanos(at)
		return v.Prompt(p)
	})
	if err != nil {
		return db.fail("export", err)
	}
	if rows, err = tx.QueryContext(ctx, sqlExportObservations, f.Project, since); err != nil {
		return db.fail("export", err)
	}
	obs, err := scanObservations(rows)
	if err != nil {
		return db.fail("export", err)
	}
	for _, o := range obs {
		if err := v.Observation(o); err != nil {
			return db.fail("export", err)
		}
	}
	if rows, err = tx.QueryContext(ctx, sqlExportSummaries, f.Project, since); err != nil {
		return db.fail("export", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var s Summary
		var at sql.NullInt64
		if err := r.Scan(&s.ID, &s.SessionID, &s.Project, &s.RunID, &s.Request, &s.Investigated, &s.Learned,
			&s.Completed, &s.NextSteps, &s.Notes, &at); err != nil {
			return err
		}
		s.At = fromNanos(at)
		return v.Summary(s)
	})
	return db.fail("export", err)
}

// ImportBatch is one part of what ImportParts stores. Every row's session must be in
// Sessions or already in the database.
type ImportBatch struct {
	Sessions     []Session
	Prompts      []Prompt
	Observations []Observation
	Summaries    []Summary
}

// ImportCount is how many rows of one kind Import added and skipped.
type ImportCount struct{ Added, Skipped int }

// ImportResult counts per kind.
type ImportResult struct {
	Sessions, Prompts, Observations, Summaries ImportCount
}

// ImportRunID is the run id of imported observations and summaries.
const ImportRunID = "import"

// The import's statements. A row is already there when a row with its content hash is
// (hashedThere, through the hash index), or a row never hashed (captured here) has its
// content: the group query lists the unhashed rows of one session and time, in the order
// of the lookup's numbered arguments from 1, and each group is read once per import (a
// lookup per row that scanned its session and time made rows sharing a timestamp
// quadratic: 9,851 prompts, 76 s). The inserts take a JSON array of rows, each an array in
// the order of the lookup's arguments (from 0: the content hash first).
const (
	sqlImportSession = `
INSERT INTO sessions (id, project, cwd, started_at, ended_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING`
	sqlPromptHashed = `
SELECT EXISTS (SELECT 1 FROM prompts WHERE content_hash = ?1 AND content_hash <> '')`
	sqlPromptGroup = `
SELECT session_id, at, project, text FROM prompts
WHERE session_id = ?1 AND at = ?2 AND content_hash = ''`
	sqlInsertPrompts = `
INSERT INTO prompts (session_id, project, text, at, content_hash)
SELECT value->>1, value->>3, value->>4, value->>2, value->>0 FROM json_each(?) ORDER BY key`
	sqlObservationHashed = `
SELECT EXISTS (SELECT 1 FROM observations WHERE content_hash = ?1 AND content_hash <> '')`
	sqlObservationGroup = `
SELECT session_id, at, project, type, title, subtitle, narrative, facts, concepts, files_read,
	files_modified FROM observations
WHERE session_id = ?1 AND at = ?2 AND content_hash = ''`
	sqlInsertObservations = `
INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at, origin, content_hash)
SELECT value->>1, value->>3, '` + ImportRunID + `', value->>4, value->>5, value->>6, value->>7,
	value->>8, value->>9, value->>10, value->>11, value->>2, 'import', value->>0
FROM json_each(?) ORDER BY key`
	sqlSummaryHashed = `
SELECT EXISTS (SELECT 1 FROM summaries WHERE content_hash = ?1 AND content_hash <> '')`
	sqlSummaryGroup = `
SELECT session_id, at, project, request, investigated, learned, completed, next_steps, notes
FROM summaries WHERE session_id = ?1 AND at = ?2 AND content_hash = ''`
	sqlInsertSummaries = `
INSERT INTO summaries (session_id, project, run_id, request, investigated, learned, completed,
	next_steps, notes, at, content_hash)
SELECT value->>1, value->>3, '` + ImportRunID + `', value->>4, value->>5, value->>6, value->>7,
	value->>8, value->>9, value->>2, value->>0
FROM json_each(?) ORDER BY key`
)

// ImportParts stores a batch given in parts, so a large file is stored in bounded memory:
// parts calls add with each part in turn, all in one transaction; an error from parts (a
// bad line found late in the file) or from add stores nothing. A row that an earlier part
// stored is found stored, so parts need not be disjoint. It is idempotent: a session whose
// id is stored, and a prompt, observation or summary whose content is stored (same
// session, project, time and text), are skipped, so importing a file twice adds nothing.
// Imported rows keep their content hash; imported observations have origin "import".
//
// Every row is looked up before any is inserted, and the new rows go in batches of one
// statement each: FTS5 writes its pending index at each statement of a transaction that
// changed it, so a statement per row cost a flush per row (10,000 observations: 10 s).
func (db *DB) ImportParts(ctx context.Context, parts func(add func(ImportBatch) error) error) (ImportResult, error) {
	var res ImportResult
	var partsErr error // the file's own problem, returned as it is (not a store failure)
	err := db.write(ctx, func(tx *sql.Tx) error {
		res = ImportResult{}
		lk := importLookups{
			prompts:      lookup{hashed: sqlPromptHashed, group: sqlPromptGroup},
			observations: lookup{hashed: sqlObservationHashed, group: sqlObservationGroup},
			summaries:    lookup{hashed: sqlSummaryHashed, group: sqlSummaryGroup},
		}
		var addErr error
		err := parts(func(b ImportBatch) error { addErr = importPart(ctx, tx, b, &lk, &res); return addErr })
		if err != nil && addErr == nil {
			partsErr = err
		}
		if err != nil || res.Prompts.Added+res.Observations.Added+res.Summaries.Added == 0 {
			return err
		}
		// A bulk load leaves the index in a dozen segments, each of which every query word
		// is sought in: merged into one, a question over 100,000 imported observations
		// costs a fifth less. It rewrites the index (half a second per 100,000 rows).
		_, err = tx.ExecContext(ctx, `INSERT INTO search_fts (search_fts) VALUES ('optimize')`)
		return err
	})
	if partsErr != nil {
		return ImportResult{}, partsErr
	}
	return res, db.fail("import", err)
}

// importLookups are an import's lookups, one per kind, kept from part to part.
type importLookups struct{ prompts, observations, summaries lookup }

// lookup finds whether a row of one kind is stored: by its content hash, or among the
// unhashed rows of its session and time, read once per import (the import adds hashed
// rows only, so what it read stays true) and kept as the hashes of their values (an int64
// time and the columns' text, compared exactly as SQL's = would).
type lookup struct {
	hashed, group string // the queries: sqlPromptHashed, sqlPromptGroup, …
	unhashed      map[groupKey]map[string]bool
}

type groupKey struct {
	session string
	at      int64
}

// importPart stores one part of an import in tx, counting into res.
func importPart(ctx context.Context, tx *sql.Tx, b ImportBatch, lk *importLookups, res *ImportResult) error {
	for _, s := range b.Sessions {
		r, err := tx.ExecContext(ctx, sqlImportSession, s.ID, s.Project, s.Cwd, nanos(s.StartedAt), nanos(s.EndedAt))
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n > 0 {
			res.Sessions.Added++
		} else {
			res.Sessions.Skipped++
		}
	}
	var prompts, observations, summaries [][]any
	for _, p := range b.Prompts {
		prompts = append(prompts, []any{promptHash(p), p.SessionID, p.At.UnixNano(), p.Project, p.Text})
	}
	for _, o := range b.Observations {
		lists, err := marshalLists(o.Facts, o.Concepts, o.FilesRead, o.FilesModified)
		if err != nil {
			return err
		}
		observations = append(observations, []any{observationHash(o), o.SessionID, o.At.UnixNano(), o.Project, o.Type,
			o.Title, o.Subtitle, o.Narrative, lists[0], lists[1], lists[2], lists[3]})
	}
	for _, s := range b.Summaries {
		summaries = append(summaries, []any{summaryHash(s), s.SessionID, s.At.UnixNano(), s.Project, s.Request,
			s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Notes})
	}
	var err error
	if prompts, err = lk.prompts.newRows(ctx, tx, &res.Prompts, prompts); err != nil {
		return err
	}
	if observations, err = lk.observations.newRows(ctx, tx, &res.Observations, observations); err != nil {
		return err
	}
	if summaries, err = lk.summaries.newRows(ctx, tx, &res.Summaries, summaries); err != nil {
		return err
	}
	for _, ins := range []struct {
		query string
		rows  [][]any
	}{{sqlInsertPrompts, prompts}, {sqlInsertObservations, observations}, {sqlInsertSummaries, summaries}} {
		if err := insertBatches(ctx, tx, ins.query, ins.rows); err != nil {
			return err
		}
	}
	return nil
}

// newRows keeps the rows (content hash, session, time, then the rest of the content) that
// l does not find stored, nor earlier in the batch, and counts added and skipped.
func (l *lookup) newRows(ctx context.Context, tx *sql.Tx, c *ImportCount, rows [][]any) ([][]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	hashed, err := tx.PrepareContext(ctx, l.hashed)
	if err != nil {
		return nil, err
	}
	defer hashed.Close()
	group, err := tx.PrepareContext(ctx, l.group)
	if err != nil {
		return nil, err
	}
	defer group.Close()
	seen := map[any]bool{}
	var out [][]any
	for _, r := range rows {
		found, err := l.there(ctx, hashed, group, r)
		if err != nil {
			return nil, err
		}
		if found || seen[r[0]] {
			c.Skipped++
			continue
		}
		seen[r[0]] = true
		out = append(out, r)
		c.Added++
	}
	return out, nil
}

// there reports whether row r is stored: its hash is, or an unhashed row of its session
// and time has its content.
func (l *lookup) there(ctx context.Context, hashed, group *sql.Stmt, r []any) (bool, error) {
	var found bool
	if err := hashed.QueryRowContext(ctx, r[0]).Scan(&found); err != nil || found {
		return found, err
	}
	k := groupKey{r[1].(string), r[2].(int64)}
	set, ok := l.unhashed[k]
	if !ok {
		rows, err := group.QueryContext(ctx, k.session, k.at)
		if err != nil {
			return false, err
		}
		set = map[string]bool{}
		vals := make([]any, len(r)-1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := scanAll(rows, func(rs *sql.Rows) error {
			if err := rs.Scan(ptrs...); err != nil {
				return err
			}
			set[contentHash(vals...)] = true
			return nil
		}); err != nil {
			return false, err
		}
		if l.unhashed == nil {
			l.unhashed = map[groupKey]map[string]bool{}
		}
		l.unhashed[k] = set
	}
	return set[contentHash(r[1:]...)], nil
}

// importBatch is how many rows one insert statement takes.
const importBatch = 512

// insertBatches runs query (which reads its rows from the JSON array ?1) over rows.
func insertBatches(ctx context.Context, tx *sql.Tx, query string, rows [][]any) error {
	for len(rows) > 0 {
		n := min(len(rows), importBatch)
		batch, err := json.Marshal(rows[:n])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, query, string(batch)); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// promptHash, observationHash and summaryHash are a row's content hash (the content_hash
// column): sha256 of its kind and content (session, project, time, text), never its local
// id, run or origin, so the same memory has the same hash in every database.
func promptHash(p Prompt) string {
	return contentHash(vocab.KindPrompt, p.SessionID, p.Project, p.At.UnixNano(), p.Text)
}

// observationHash: see promptHash.
func observationHash(o Observation) string {
	return contentHash(vocab.KindObservation, o.SessionID, o.Project, o.At.UnixNano(), o.Type, o.Title, o.Subtitle,
		o.Narrative, nonNil(o.Facts), nonNil(o.Concepts), nonNil(o.FilesRead), nonNil(o.FilesModified))
}

// summaryHash: see promptHash.
func summaryHash(s Summary) string {
	return contentHash(vocab.KindSummary, s.SessionID, s.Project, s.At.UnixNano(), s.Request, s.Investigated,
		s.Learned, s.Completed, s.NextSteps, s.Notes)
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// contentHash hashes the JSON array of the values: unambiguous (each string quoted and
// escaped), and stable across Go versions.
func contentHash(values ...any) string {
	b, err := json.Marshal(values)
	if err != nil {
		panic(err) // strings, ints and string lists always marshal
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
