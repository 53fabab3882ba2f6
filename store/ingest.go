package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Kinds of a Captured record: what a hook wrote to the capture journal (DESIGN.md §15).
const (
	CaptureStart  = "start"  // SessionStart: the session exists
	CapturePrompt = "prompt" // UserPromptSubmit
	CaptureEvent  = "event"  // PostToolUse, PostToolUseFailure
	CaptureAnswer = "answer" // Stop: the turn's last assistant message
	CaptureEnd    = "end"    // SessionEnd
)

// Captured is one capture journal record as ingestion stores it.
type Captured struct {
	Kind    string
	Session Session // the session row it belongs to (its start time: the record's)
	Prompt  Prompt  // CapturePrompt; RecordID set
	Event   Event   // CaptureEvent; RecordID set
	Answer  Answer  // CaptureAnswer; RecordID set
	At      time.Time
	// Final (CaptureEnd): the observer is on, so a session that left anything to observe
	// owes a summary.
	Final bool
	// Day and Redacted: the secrets replaced at capture, per kind, counted on the local
	// day Day (YYYY-MM-DD) once the record is stored.
	Day      string
	Redacted map[string]int
}

// Ingest stores records in one transaction: all of them or none. A prompt or event whose
// record id is stored already is skipped (a journal ingested again after a crash between
// commit and removal), and so is its redaction count. added is the number of prompts,
// events and answers newly stored.
func (db *DB) Ingest(ctx context.Context, recs []Captured) (added int, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		added = 0
		for _, r := range recs {
			n, err := ingestOne(ctx, tx, r)
			if err != nil {
				return fmt.Errorf("%s record of session %q: %w", r.Kind, r.Session.ID, err)
			}
			added += n
		}
		return nil
	})
	return added, db.fail("ingest", err)
}

func ingestOne(ctx context.Context, tx *sql.Tx, r Captured) (int, error) {
	if r.Kind == CaptureEnd {
		// A session never recorded (nothing of it captured) is left unrecorded.
		return 0, endSession(ctx, tx, r)
	}
	if err := upsertSession(ctx, tx, r.Session); err != nil {
		return 0, err
	}
	var added bool
	var err error
	switch r.Kind {
	case CaptureStart:
		return 0, nil
	case CapturePrompt:
		added, err = insertPrompt(ctx, tx, r.Session, r.Prompt)
	case CaptureEvent:
		added, err = insertEvent(ctx, tx, r.Session, r.Event)
	case CaptureAnswer:
		added, err = insertAnswer(ctx, tx, r.Session, r.Answer)
	default:
		return 0, fmt.Errorf("unknown kind: %w", ErrInvalidArgument)
	}
	if err != nil || !added {
		return 0, err
	}
	for kind, n := range r.Redacted {
		if _, err := tx.ExecContext(ctx, sqlAddRedactions, r.Day, r.Session.Project, kind, n); err != nil {
			return 0, err
		}
	}
	return 1, nil
}

// endSession sets the end time and, for a Final end that left anything to observe, asks
// for the summary. Only an end time not yet recorded does so, so a record ingested twice
// does not reset the summary's attempts.
func endSession(ctx context.Context, tx *sql.Tx, r Captured) error {
	if r.At.IsZero() {
		return fmt.Errorf("end without a time: %w", ErrInvalidArgument)
	}
	at := r.At.UnixNano()
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_at = ?1 WHERE id = ?2 AND ended_at IS NOT ?1`, at, r.Session.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 || !r.Final {
		return err
	}
	var owed bool
	if err := tx.QueryRowContext(ctx, sqlNeedsSummary, r.Session.ID, TrivialChars).Scan(&owed); err != nil || !owed {
		return err
	}
	_, err = tx.ExecContext(ctx, sqlRequestFinal, r.Session.ID)
	return err
}
