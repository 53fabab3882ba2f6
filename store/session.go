package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"
)

// What one session left behind, for its observer runs.
const (
	sqlRequestFinal  = `UPDATE sessions SET final_pending = 1, final_attempts = 0 WHERE id = ?`
	sqlFinalSettled  = `SELECT final_pending = 0 AND final_attempts > 0 FROM sessions WHERE id = ?`
	sqlBeginFinal    = `UPDATE sessions SET final_attempts = final_attempts + 1 WHERE id = ?`
	sqlFinalDone     = `UPDATE sessions SET final_pending = 0 WHERE id = ?`
	sqlPendingFinals = `
SELECT id FROM sessions WHERE final_pending = 1 AND ended_at < ? AND final_attempts < ?
ORDER BY ended_at LIMIT 64`
	// sqlNotTrivial (?1 the session, ?2 TrivialChars) holds for a session worth a run.
	sqlNotTrivial = `(EXISTS (SELECT 1 FROM events WHERE session_id = ?1)
	OR coalesce((SELECT sum(length(text)) FROM prompts WHERE session_id = ?1), 0)
	 + coalesce((SELECT sum(length(text)) FROM answers WHERE session_id = ?1), 0) >= ?2)`
	sqlTrivial      = `SELECT NOT ` + sqlNotTrivial
	sqlNeedsSummary = `
SELECT (EXISTS (SELECT 1 FROM events WHERE session_id = ?1 AND state = 'pending')
	OR max(
		coalesce((SELECT max(at) FROM events WHERE session_id = ?1), 0),
		coalesce((SELECT max(at) FROM prompts WHERE session_id = ?1), 0),
		coalesce((SELECT max(at) FROM answers WHERE session_id = ?1), 0)
	) > coalesce((SELECT max(at) FROM summaries WHERE session_id = ?1), 0))
	AND ` + sqlNotTrivial
	sqlSessionPrompts = `
SELECT id, session_id, project, text, at FROM prompts
WHERE session_id = ? ORDER BY at DESC, id DESC`
	sqlSessionObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE session_id = ? ORDER BY at DESC, id DESC`
)

// TrivialChars is the size under which a session without a tool event is trivial: its
// prompts and answers together have fewer characters (§24).
const TrivialChars = 1000

// NeedsSummary reports whether a session's final observer run has anything to do: it is
// not Trivial, and it has pending events or captured an event, prompt or answer after its
// latest summary (or has none yet).
func (db *DB) NeedsSummary(ctx context.Context, sessionID string) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, sqlNeedsSummary, sessionID, TrivialChars).Scan(&ok)
	return ok, db.fail("needs summary", err)
}

// Trivial reports a session that costs no observer run: no tool event, and its prompts
// and answers together under TrivialChars characters (a "hello"). Its prompts stay stored
// and searchable; it owes no summary.
func (db *DB) Trivial(ctx context.Context, sessionID string) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, sqlTrivial, sessionID, TrivialChars).Scan(&ok)
	return ok, db.fail("trivial", err)
}

// SessionPrompts returns the session's latest limit prompts, oldest first.
func (db *DB) SessionPrompts(ctx context.Context, sessionID string, limit int) ([]Prompt, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, sqlSessionPrompts+sqlLimit(limit), sessionID)
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
	if err == nil {
		err = db.withOrigins(ctx, out)
	}
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
	rows, err := db.sql.QueryContext(ctx, sqlSessionObservations+sqlLimit(limit), sessionID)
	if err != nil {
		return nil, db.fail("session observations", err)
	}
	out, err := scanObservations(rows)
	if err == nil {
		err = db.withOrigins(ctx, out)
	}
	if err != nil {
		return nil, db.fail("session observations", err)
	}
	slices.Reverse(out)
	return out, nil
}

// BeginFinal counts one summary run started for the session (PendingFinals stops offering
// it after maxAttempts, so a summary that can never be written costs a bounded number of runs).
func (db *DB) BeginFinal(ctx context.Context, sessionID string) error {
	return db.update(ctx, "begin final", sqlBeginFinal, sessionID)
}

// FinalSettled reports that a final run already wrote the summary last requested, so a
// second final run started meanwhile (each SessionStart may offer it) writes none.
func (db *DB) FinalSettled(ctx context.Context, sessionID string) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, sqlFinalSettled, sessionID).Scan(&ok)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return ok, db.fail("final settled", err)
}

// FinalDone records that a final run wrote the summary.
func (db *DB) FinalDone(ctx context.Context, sessionID string) error {
	return db.update(ctx, "final done", sqlFinalDone, sessionID)
}

// PendingFinals lists, oldest end first, sessions that ended before endedBefore whose
// requested summary no run has written, with fewer than maxAttempts runs started for it.
func (db *DB) PendingFinals(ctx context.Context, endedBefore time.Time, maxAttempts int) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, sqlPendingFinals, endedBefore.UnixNano(), maxAttempts)
	if err != nil {
		return nil, db.fail("pending finals", err)
	}
	var out []string
	err = scanAll(rows, func(r *sql.Rows) error {
		var id string
		err := r.Scan(&id)
		out = append(out, id)
		return err
	})
	return out, db.fail("pending finals", err)
}

// update runs one statement in a write transaction.
func (db *DB) update(ctx context.Context, what, query string, args ...any) error {
	return db.fail(what, db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	}))
}
