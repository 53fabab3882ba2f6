package store

import (
	"context"
	"database/sql"
	"math"
	"slices"
)

// The statements of TurnsOf: a turn runs from a user prompt to the answer its Stop
// captured, and the tool events between them are the turn's.
const (
	sqlEventBefore   = `SELECT max(at) FROM events WHERE session_id = ? AND at < ?`
	sqlPendingAfter  = `SELECT min(at) FROM events WHERE session_id = ? AND at > ? AND state = 'pending'`
	sqlTurnEnd       = `SELECT min(at) FROM answers WHERE session_id = ? AND at >= ?`
	sqlTurnStart     = `SELECT max(at) FROM prompts WHERE session_id = ? AND at <= ?`
	sqlPromptsWithin = `
SELECT id, session_id, project, text, at FROM prompts
WHERE session_id = ? AND at > ? AND at <= ? ORDER BY at DESC, id DESC`
	sqlAnswersWithin = `
SELECT id, session_id, project, text, at, record_id FROM answers
WHERE session_id = ? AND at > ? AND at <= ? ORDER BY at DESC, id DESC`
)

// Turns are the user prompts and the assistant's answers one observer run is shown, each
// oldest first.
type Turns struct {
	Prompts []Prompt
	Answers []Answer
}

// TurnsOf returns the prompts and answers of the turns that batch (a run's claimed events,
// oldest first) covers, at most limit of each (the latest). The batch covers:
//   - from the end (the answer) of the turn of the session's last event before the batch,
//     or, when that turn goes on into the batch (a batch cut mid-turn), from that turn's
//     prompt; from the session's start when no event came before;
//   - to the end of the turn of the batch's last event when an event after it is pending
//     (the next batch starts there), else everything captured so far.
//
// So a turn without tool use goes with the batch after it (or the last one), and a turn's
// prompt and answer are shown twice only when its events are split across batches. An
// empty batch (a final run whose events earlier runs took) covers the whole session.
func (db *DB) TurnsOf(ctx context.Context, sessionID string, batch []Event, limit int) (Turns, error) {
	var t Turns
	if limit <= 0 {
		return t, nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if len(batch) > 0 {
		var err error
		if lo, hi, err = db.turnSpan(ctx, sessionID, batch[0].At.UnixNano(), batch[len(batch)-1].At.UnixNano()); err != nil {
			return t, db.fail("turns of", err)
		}
	}
	rows, err := db.sql.QueryContext(ctx, sqlPromptsWithin+sqlLimit(limit), sessionID, lo, hi)
	if err != nil {
		return t, db.fail("turns of", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var p Prompt
		var at sql.NullInt64
		err := r.Scan(&p.ID, &p.SessionID, &p.Project, &p.Text, &at)
		p.At = fromNanos(at)
		t.Prompts = append(t.Prompts, p)
		return err
	})
	if err != nil {
		return t, db.fail("turns of", err)
	}
	if rows, err = db.sql.QueryContext(ctx, sqlAnswersWithin+sqlLimit(limit), sessionID, lo, hi); err != nil {
		return t, db.fail("turns of", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var a Answer
		var at sql.NullInt64
		err := r.Scan(&a.ID, &a.SessionID, &a.Project, &a.Text, &at, &a.RecordID)
		a.At = fromNanos(at)
		t.Answers = append(t.Answers, a)
		return err
	})
	if err != nil {
		return t, db.fail("turns of", err)
	}
	slices.Reverse(t.Prompts)
	slices.Reverse(t.Answers)
	return t, nil
}

// turnSpan is the time span (lo, hi] of the turns a batch from first to last covers.
func (db *DB) turnSpan(ctx context.Context, sessionID string, first, last int64) (lo, hi int64, err error) {
	at := func(query string, t int64) (sql.NullInt64, error) {
		var v sql.NullInt64
		err := db.sql.QueryRowContext(ctx, query, sessionID, t).Scan(&v)
		return v, err
	}
	lo, hi = math.MinInt64, math.MaxInt64
	prev, err := at(sqlEventBefore, first)
	if err != nil {
		return 0, 0, err
	}
	if prev.Valid {
		end, err := at(sqlTurnEnd, prev.Int64)
		if err != nil {
			return 0, 0, err
		}
		if end.Valid && end.Int64 < first {
			lo = end.Int64
		} else if start, err := at(sqlTurnStart, first); err != nil {
			return 0, 0, err
		} else if start.Valid {
			lo = start.Int64 - 1
		} else {
			lo = prev.Int64
		}
	}
	next, err := at(sqlPendingAfter, last)
	if err != nil {
		return 0, 0, err
	}
	if next.Valid {
		end, err := at(sqlTurnEnd, last)
		if err != nil {
			return 0, 0, err
		}
		if end.Valid && end.Int64 < next.Int64 {
			hi = end.Int64
		} else {
			hi = next.Int64 - 1
		}
	}
	return lo, hi, nil
}
