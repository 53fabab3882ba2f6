package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/claude-mem/claude-mem-go/rank"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// RunLockFile is runLockFile for the external tests, which may import observer.
const RunLockFile = runLockFile

// What only tests ask of a database: the product reaches none of it.

const sqlLatestSummary = `
SELECT id, session_id, project, run_id, request, investigated, learned, completed, next_steps, notes, at
FROM summaries WHERE project = ? ORDER BY at DESC, id DESC LIMIT 1`

// RequestFinal records that SessionEnd asked for the session's summary (a resumed session
// that ends again asks anew, with its attempts reset): until a final run writes it
// (FinalDone), PendingFinals keeps offering the session, so a final run that was paused or
// failed comes back.
func (db *DB) RequestFinal(ctx context.Context, sessionID string) error {
	return db.update(ctx, "request final", sqlRequestFinal, sessionID)
}

// LatestSummary returns the project's newest session summary, or nil when it has none.
func (db *DB) LatestSummary(ctx context.Context, project string) (*Summary, error) {
	var s Summary
	var at sql.NullInt64
	err := db.sql.QueryRowContext(ctx, sqlLatestSummary, project).
		Scan(&s.ID, &s.SessionID, &s.Project, &s.RunID, &s.Request, &s.Investigated, &s.Learned,
			&s.Completed, &s.NextSteps, &s.Notes, &at)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, db.fail("latest summary", err)
	}
	s.At = fromNanos(at)
	return &s, nil
}

// Integrity runs PRAGMA integrity_check and, on a read-write database, FTS5's
// integrity-check of the full-text index against the records (it is an INSERT, so
// SQLite refuses it on a read-only connection); it returns an *IntegrityError listing
// what they found.
func (db *DB) Integrity(ctx context.Context) error {
	rows, err := db.sql.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return db.fail("integrity check", err)
	}
	var problems []string
	err = scanAll(rows, func(r *sql.Rows) error {
		var p string
		err := r.Scan(&p)
		if p != "ok" {
			problems = append(problems, p)
		}
		return err
	})
	if err != nil {
		return db.fail("integrity check", err)
	}
	if !db.readOnly {
		_, err := db.sql.ExecContext(ctx, `INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)`)
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CORRUPT {
			problems = append(problems, fmt.Sprintf("the full-text index search_fts does not match the records: %v", err))
		} else if err != nil {
			return db.fail("integrity check", err)
		}
	}
	if len(problems) > 0 {
		return &IntegrityError{Problems: problems}
	}
	return nil
}

// IntegrityError lists what Integrity's checks reported.
type IntegrityError struct {
	Problems []string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("store: integrity check failed: %d problem(s), first: %s", len(e.Problems), e.Problems[0])
}

// SearchIndex is the search index rank.Search reads for f.
func (db *DB) SearchIndex(f rank.Filter) rank.Index { return db.index(f) }
