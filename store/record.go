package store

import (
	"context"
	"database/sql"
	"fmt"
)

// upsertSession inserts the session, or fills only what an earlier row left empty: the
// first project, cwd and start time seen are kept.
func upsertSession(ctx context.Context, tx *sql.Tx, s Session) error {
	if s.ID == "" {
		return fmt.Errorf("session without an id: %w", ErrInvalidArgument)
	}
	_, err := tx.ExecContext(ctx, `
INSERT INTO sessions (id, project, cwd, started_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (id) DO UPDATE SET
	project    = CASE WHEN sessions.project = '' THEN excluded.project ELSE sessions.project END,
	cwd        = CASE WHEN sessions.cwd = '' THEN excluded.cwd ELSE sessions.cwd END,
	started_at = coalesce(sessions.started_at, excluded.started_at)
WHERE (sessions.project = '' AND excluded.project <> '')
   OR (sessions.cwd = '' AND excluded.cwd <> '')
   OR (sessions.started_at IS NULL AND excluded.started_at IS NOT NULL)`,
		s.ID, s.Project, s.Cwd, nanos(s.StartedAt))
	return err
}

// belongs checks that a row's session, when given, is the session it is recorded under.
func belongs(s Session, sessionID string) error {
	if sessionID != "" && sessionID != s.ID {
		return fmt.Errorf("row of session %q recorded under session %q: %w", sessionID, s.ID, ErrInvalidArgument)
	}
	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// insertPrompt stores p unless its record id is stored already; added says which.
func insertPrompt(ctx context.Context, tx *sql.Tx, s Session, p Prompt) (added bool, err error) {
	if err := belongs(s, p.SessionID); err != nil {
		return false, err
	}
	if p.At.IsZero() {
		return false, fmt.Errorf("prompt without a time: %w", ErrInvalidArgument)
	}
	return inserted(tx.ExecContext(ctx, `
INSERT INTO prompts (session_id, project, text, at, record_id) VALUES (?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`,
		s.ID, orDefault(p.Project, s.Project), p.Text, p.At.UnixNano(), p.RecordID))
}

// insertAnswer stores a unless its record id is stored already; added says which.
func insertAnswer(ctx context.Context, tx *sql.Tx, s Session, a Answer) (added bool, err error) {
	if err := belongs(s, a.SessionID); err != nil {
		return false, err
	}
	if a.At.IsZero() {
		return false, fmt.Errorf("answer without a time: %w", ErrInvalidArgument)
	}
	return inserted(tx.ExecContext(ctx, `
INSERT INTO answers (session_id, project, text, at, record_id) VALUES (?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`,
		s.ID, orDefault(a.Project, s.Project), a.Text, a.At.UnixNano(), a.RecordID))
}

// insertEvent stores e unless its (session, tool use id) or its record id is stored
// already; added says which.
func insertEvent(ctx context.Context, tx *sql.Tx, s Session, e Event) (added bool, err error) {
	if err := belongs(s, e.SessionID); err != nil {
		return false, err
	}
	if e.At.IsZero() {
		return false, fmt.Errorf("event without a time: %w", ErrInvalidArgument)
	}
	// No conflict target: either unique index (tool use, record id) makes it a duplicate.
	return inserted(tx.ExecContext(ctx, `
INSERT INTO events (session_id, project, hook, tool_name, tool_use_id, input, response, is_error, cwd, at, record_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`,
		s.ID, orDefault(e.Project, s.Project), e.Hook, e.ToolName, e.ToolUseID, e.Input, e.Response,
		e.IsError, orDefault(e.Cwd, s.Cwd), e.At.UnixNano(), e.RecordID))
}

func inserted(r sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}
