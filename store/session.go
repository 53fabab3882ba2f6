package store

import (
	"context"
	"database/sql"
	"slices"
)

// What one session left behind, for its observer runs.
const (
	sqlNeedsSummary = `
SELECT EXISTS (SELECT 1 FROM events WHERE session_id = ?1 AND state = 'pending')
	OR max(
		coalesce((SELECT max(at) FROM events WHERE session_id = ?1), 0),
		coalesce((SELECT max(at) FROM prompts WHERE session_id = ?1), 0)
	) > coalesce((SELECT max(at) FROM summaries WHERE session_id = ?1), 0)`
	sqlSessionPrompts = `
SELECT id, session_id, project, text, at FROM prompts
WHERE session_id = ? ORDER BY at DESC, id DESC LIMIT ?`
	sqlSessionObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE session_id = ? ORDER BY at DESC, id DESC LIMIT ?`
)

// NeedsSummary reports whether a session's final observer run has anything to do: it
// has pending events, or captured an event or prompt after its latest summary (or has
// none yet).
func (db *DB) NeedsSummary(ctx context.Context, sessionID string) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, sqlNeedsSummary, sessionID).Scan(&ok)
	return ok, db.fail("needs summary", err)
}

// SessionPrompts returns the session's latest limit prompts, oldest first.
func (db *DB) SessionPrompts(ctx context.Context, sessionID string, limit int) ([]Prompt, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, sqlSessionPrompts, sessionID, limit)
	if err != nil {
		return nil, db.fail("session prompts", err)
	}
	var out []Prompt
	err = scanAll(rows, func(r *sql.Rows) error {
		var p Prompt
		var at sql.NullInt64
		err := r.Scan(&p.ID, &p.SessionID, &p.Project, &p.Text, &at)
		p.At = fromNanos(at)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, db.fail("session prompts", err)
	}
	slices.Reverse(out)
	return out, nil
}

// SessionObservations returns the session's latest limit observations, oldest first.
func (db *DB) SessionObservations(ctx context.Context, sessionID string, limit int) ([]Observation, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, sqlSessionObservations, sessionID, limit)
	if err != nil {
		return nil, db.fail("session observations", err)
	}
	out, err := scanObservations(rows)
	if err != nil {
		return nil, db.fail("session observations", err)
	}
	slices.Reverse(out)
	return out, nil
}
