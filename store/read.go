package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Hit kinds.
const (
	KindObservation = "observation"
	KindSummary     = "summary"
	KindPrompt      = "prompt"
)

const observationColumns = `id, session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at`

const (
	sqlRecentObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE project = ? ORDER BY at DESC, id DESC LIMIT ?`
	sqlLatestSummary = `
SELECT id, session_id, project, run_id, request, investigated, learned, completed, next_steps, notes, at
FROM summaries WHERE project = ? ORDER BY at DESC, id DESC LIMIT 1`
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
