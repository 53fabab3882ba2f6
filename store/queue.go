package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/claude-mem/claude-mem-go/redact"
)

// The event queue: pending → processing (Claim) → done (CompleteRun) | pending again
// (Release, RequeueStale) | failed (Release after maxAttempts). No state change ever
// deletes an event. An event's RunID is the last run that claimed it.

const eventColumns = `id, session_id, project, hook, tool_name, tool_use_id, input, response,
	is_error, cwd, at, state, attempts, run_id`

// The queue's statements, named so that a test can check each one's query plan.
const (
	sqlHasPending    = `SELECT EXISTS (SELECT 1 FROM events WHERE session_id = ? AND state = 'pending')`
	sqlStaleSessions = `
SELECT session_id, min(at) FROM events WHERE state = 'pending'
GROUP BY session_id HAVING min(at) < ?1
UNION ALL
SELECT session_id, at FROM events WHERE state = 'processing' AND claimed_at < ?1`
	// sqlClaim's %s is its LIMIT (sqlLimit).
	sqlClaim = `
UPDATE events SET state = 'processing', run_id = ?1, claimed_at = ?2
WHERE id IN (
	SELECT id FROM events WHERE session_id = ?3 AND state = 'pending' ORDER BY at, id %s
)
RETURNING ` + eventColumns
	sqlRequeueStale = `
UPDATE events SET state = 'pending', claimed_at = NULL
WHERE state = 'processing' AND claimed_at < ?`
	sqlRunClaim = `
SELECT session_id, project, claimed_at FROM events
WHERE run_id = ? AND state = 'processing' ORDER BY claimed_at LIMIT 1`
	sqlRunSeen        = `SELECT EXISTS (SELECT 1 FROM events WHERE run_id = ?)`
	sqlRunDone        = `UPDATE events SET state = 'done', claimed_at = NULL WHERE run_id = ? AND state = 'processing'`
	sqlReleasePending = `UPDATE events SET state = 'pending', claimed_at = NULL WHERE run_id = ? AND state = 'processing'`
	sqlReleaseCounted = `
UPDATE events SET attempts = attempts + 1, claimed_at = NULL,
	state = CASE WHEN attempts + 1 >= ?2 THEN 'failed' ELSE 'pending' END
WHERE run_id = ?1 AND state = 'processing'
RETURNING state`
	sqlCounts      = `SELECT state, count(*) FROM events GROUP BY state`
	sqlClaimedRuns = `SELECT run_id, session_id, project, claimed_at FROM events WHERE state = 'processing'`
)

// HasPending reports whether the session has events waiting for the observer.
func (db *DB) HasPending(ctx context.Context, sessionID string) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, sqlHasPending, sessionID).Scan(&ok)
	return ok, db.fail("has pending", err)
}

// StaleSessions lists, oldest pending or claimed event first, the sessions whose oldest pending event is older than
// olderThan (their Stop or SessionEnd never started an observer: a crash, a closed
// terminal) or that have events claimed before olderThan by a run that never finished (an
// observer killed or lost in a reboot), so SessionStart starts one. A run still alive holds
// the session lock, so a second observer only waits for it.
func (db *DB) StaleSessions(ctx context.Context, olderThan time.Time) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, sqlStaleSessions, olderThan.UnixNano())
	if err != nil {
		return nil, db.fail("stale sessions", err)
	}
	type stale struct {
		id     string
		oldest int64
	}
	var found []stale
	err = scanAll(rows, func(r *sql.Rows) error {
		var s stale
		err := r.Scan(&s.id, &s.oldest)
		found = append(found, s)
		return err
	})
	// Few rows: sorted and deduplicated here rather than by temp b-trees. Oldest first, so
	// a backlog (a paused observer, a budget reached yesterday) is worked off in order.
	slices.SortFunc(found, func(a, b stale) int { return cmp.Or(cmp.Compare(a.oldest, b.oldest), cmp.Compare(a.id, b.id)) })
	var out []string
	seen := map[string]bool{}
	for _, s := range found {
		if !seen[s.id] {
			seen[s.id] = true
			out = append(out, s.id)
		}
	}
	return out, db.fail("stale sessions", err)
}

// ClaimedRun is a run that holds claimed events (processing): a live run's, or one whose
// process is gone before it completed or released them.
type ClaimedRun struct {
	ID, SessionID, Project string
	Events                 int
	ClaimedAt              time.Time
}

// ClaimedRuns lists the runs holding claimed events, oldest claim first. Few rows (a batch
// per live run): they are grouped here rather than by temp b-trees.
func (db *DB) ClaimedRuns(ctx context.Context) ([]ClaimedRun, error) {
	rows, err := db.sql.QueryContext(ctx, sqlClaimedRuns)
	if err != nil {
		return nil, db.fail("claimed runs", err)
	}
	var out []ClaimedRun
	at := map[string]int{}
	err = scanAll(rows, func(r *sql.Rows) error {
		var run, session, project string
		var claimed sql.NullInt64
		if err := r.Scan(&run, &session, &project, &claimed); err != nil {
			return err
		}
		i, ok := at[run]
		if !ok {
			i, at[run] = len(out), len(out)
			out = append(out, ClaimedRun{ID: run, SessionID: session, Project: project, ClaimedAt: fromNanos(claimed)})
		}
		out[i].Events++
		if t := fromNanos(claimed); t.Before(out[i].ClaimedAt) {
			out[i].ClaimedAt = t
		}
		return nil
	})
	slices.SortFunc(out, func(a, b ClaimedRun) int {
		return cmp.Or(a.ClaimedAt.Compare(b.ClaimedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, db.fail("claimed runs", err)
}

// Claim moves up to limit of the session's pending events, oldest first, to processing
// under runID and returns them. Attempts are counted by Release, not here: a run that
// completes never counts as an attempt that failed.
func (db *DB) Claim(ctx context.Context, sessionID, runID string, limit int, now time.Time) ([]Event, error) {
	if runID == "" || now.IsZero() {
		return nil, db.fail("claim", fmt.Errorf("run id %q, time %v: %w", runID, now, ErrInvalidArgument))
	}
	if limit <= 0 {
		return nil, nil
	}
	var out []Event
	err := db.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(sqlClaim, sqlLimit(limit)), runID, now.UnixNano(), sessionID)
		if err != nil {
			return err
		}
		out, err = scanEvents(rows)
		return err
	})
	if err != nil {
		return nil, db.fail("claim", err)
	}
	// RETURNING has no defined order.
	slices.SortFunc(out, func(a, b Event) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// RequeueStale moves events claimed before `before` and still processing (their run died
// without CompleteRun or Release) back to pending, without counting an attempt.
func (db *DB) RequeueStale(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, sqlRequeueStale, before.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), db.fail("requeue stale", err)
}

// RunAnswer is one observer answer as the store takes it: its observations and optional
// summary, and how their text is redacted.
type RunAnswer struct {
	Observations []Observation
	Summary      *Summary
	// AsIs stores the text as given (CLAUDE_MEM_REDACT_SECRETS=false). Otherwise every
	// field passes redact.Captured before the duplicate check and the insert, because a model
	// writes what no captured text held (a token joined from two events, a decoded base64
	// key); what it replaced in the rows stored is counted in redactions as captured text
	// is, on the local day (Loc; nil is UTC) of the row's time.
	AsIs bool
	Loc  *time.Location
}

// CompleteRun stores a run's answer (its observations and optional summary) and marks the
// run's claimed events done, all in one transaction. Empty SessionID, Project and RunID of
// the stored rows default to the run's session, project and id, and a zero At to the claim
// time. duplicates is how many observations it did not store because the project already
// had one of the same type and title key (TitleKey) from the DuplicateWindow before the
// observation's time, this run's included.
//
// A run that never claimed an event (the final run of a session whose events an earlier
// run took) may still store rows that name their session, project and time; otherwise
// that is ErrInvalidArgument. A run whose claim is over (released, requeued as stale,
// failed or already completed) gets ErrNoClaim and stores nothing, so the same events
// never produce observations twice.
func (db *DB) CompleteRun(ctx context.Context, runID string, a RunAnswer) (duplicates int, err error) {
	return db.storeRun(ctx, "complete", runID, a, sqlRunDone)
}

// KeepAndRelease is CompleteRun for an answer cut short (§24): it stores what the answer
// completed, with the same checks, but gives the run's events back to pending (no attempt
// counted) instead of marking them done, so a smaller batch covers them again.
func (db *DB) KeepAndRelease(ctx context.Context, runID string, a RunAnswer) (duplicates int, err error) {
	return db.storeRun(ctx, "keep and release", runID, a, sqlReleasePending)
}

// redacted is o with every text field through redact.Captured, and what was replaced.
func (o Observation) redacted() (Observation, redact.Counts) {
	var c redact.Counts
	for _, f := range []*string{&o.Type, &o.Title, &o.Subtitle, &o.Narrative} {
		*f = capturedInto(*f, &c)
	}
	for _, l := range []*[]string{&o.Facts, &o.Concepts, &o.FilesRead, &o.FilesModified} {
		*l = slices.Clone(*l)
		for i := range *l {
			(*l)[i] = capturedInto((*l)[i], &c)
		}
	}
	return o, c
}

// redacted is s with every text field through redact.Captured, and what was replaced.
func (s Summary) redacted() (Summary, redact.Counts) {
	var c redact.Counts
	for _, f := range []*string{&s.Request, &s.Investigated, &s.Learned, &s.Completed, &s.NextSteps, &s.Notes} {
		*f = capturedInto(*f, &c)
	}
	return s, c
}

func capturedInto(s string, c *redact.Counts) string {
	out, n := redact.Captured(s)
	c.Add(n)
	return out
}

// storeRun stores a run's answer and then applies then (a statement on the run's claimed
// events, given the run id), in one transaction.
func (db *DB) storeRun(ctx context.Context, what, runID string, a RunAnswer, then string) (duplicates int, err error) {
	obs, sum := a.Observations, a.Summary
	loc := a.Loc
	if loc == nil {
		loc = time.UTC
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		duplicates = 0
		var run struct {
			session, project string
			claimed          sql.NullInt64
		}
		err := tx.QueryRowContext(ctx, sqlRunClaim, runID).Scan(&run.session, &run.project, &run.claimed)
		if err == sql.ErrNoRows {
			var seen bool
			if err := tx.QueryRowContext(ctx, sqlRunSeen, runID).Scan(&seen); err != nil {
				return err
			}
			if seen {
				return fmt.Errorf("run %q: %w", runID, ErrNoClaim)
			}
		} else if err != nil {
			return err
		}
		// row fills a stored row's defaults from the run and checks what must be known.
		row := func(session, project, runIDOf string, at time.Time) (s, p, r string, t int64, err error) {
			s, p, r = orDefault(session, run.session), orDefault(project, run.project), orDefault(runIDOf, runID)
			t = run.claimed.Int64
			if !at.IsZero() {
				t = at.UnixNano()
			}
			if s == "" || p == "" || t == 0 {
				err = fmt.Errorf("run %q holds no events: a stored row needs its session, project and time: %w", runID, ErrInvalidArgument)
			}
			return s, p, r, t, err
		}
		// counted adds what the redactor replaced in a stored row to redactions.
		counted := func(c redact.Counts, project string, at int64) error {
			day := time.Unix(0, at).In(loc).Format(time.DateOnly)
			for kind, n := range c {
				if _, err := tx.ExecContext(ctx, sqlAddRedactions, day, project, kind, n); err != nil {
					return err
				}
			}
			return nil
		}
		for _, o := range obs {
			var c redact.Counts
			if !a.AsIs {
				o, c = o.redacted()
			}
			session, project, rid, at, err := row(o.SessionID, o.Project, o.RunID, o.At)
			if err != nil {
				return err
			}
			if dup, err := duplicate(ctx, tx, project, at-int64(DuplicateWindow), o); err != nil {
				return err
			} else if dup {
				duplicates++
				continue
			}
			lists, err := marshalLists(o.Facts, o.Concepts, o.FilesRead, o.FilesModified)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `
INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				session, project, rid, o.Type, o.Title, o.Subtitle, o.Narrative, lists[0], lists[1], lists[2], lists[3], at)
			if err != nil {
				return err
			}
			if err := counted(c, project, at); err != nil {
				return err
			}
		}
		if sum != nil {
			s, c := *sum, redact.Counts(nil)
			if !a.AsIs {
				s, c = s.redacted()
			}
			session, project, rid, at, err := row(s.SessionID, s.Project, s.RunID, s.At)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `
INSERT INTO summaries (session_id, project, run_id, request, investigated, learned, completed,
	next_steps, notes, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				session, project, rid, s.Request, s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Notes, at)
			if err != nil {
				return err
			}
			if err := counted(c, project, at); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, then, runID)
		return err
	})
	if err != nil {
		return 0, db.fail(what, err)
	}
	return duplicates, nil
}

// Release gives a run's claimed events back. Without countAttempt (a transient failure:
// rate limit, overload, timeout, paused auth) they return to pending unchanged. With it,
// each event's attempts grows by one and an event that reached maxAttempts becomes
// failed (kept, shown by doctor); failed is how many did.
func (db *DB) Release(ctx context.Context, runID string, countAttempt bool, maxAttempts int) (failed int, err error) {
	if countAttempt && maxAttempts < 1 {
		return 0, db.fail("release", fmt.Errorf("maxAttempts %d: %w", maxAttempts, ErrInvalidArgument))
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		if !countAttempt {
			_, err := tx.ExecContext(ctx, sqlReleasePending, runID)
			return err
		}
		rows, err := tx.QueryContext(ctx, sqlReleaseCounted, runID, maxAttempts)
		if err != nil {
			return err
		}
		return scanAll(rows, func(r *sql.Rows) error {
			var state string
			err := r.Scan(&state)
			if state == StateFailed {
				failed++
			}
			return err
		})
	})
	return failed, db.fail("release", err)
}

// Counts returns how many events are in each state.
func (db *DB) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	rows, err := db.sql.QueryContext(ctx, sqlCounts)
	if err != nil {
		return c, db.fail("counts", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var state string
		var n int
		if err := r.Scan(&state, &n); err != nil {
			return err
		}
		switch state {
		case StatePending:
			c.Pending = n
		case StateProcessing:
			c.Processing = n
		case StateDone:
			c.Done = n
		case StateFailed:
			c.Failed = n
		}
		return nil
	})
	return c, db.fail("counts", err)
}

func scanEvents(rows *sql.Rows) ([]Event, error) {
	var out []Event
	err := scanAll(rows, func(r *sql.Rows) error {
		var e Event
		var at sql.NullInt64
		err := r.Scan(&e.ID, &e.SessionID, &e.Project, &e.Hook, &e.ToolName, &e.ToolUseID, &e.Input,
			&e.Response, &e.IsError, &e.Cwd, &at, &e.State, &e.Attempts, &e.RunID)
		e.At = fromNanos(at)
		out = append(out, e)
		return err
	})
	return out, err
}

// sqlLimit is a LIMIT clause for n rows, written as a number: SQLite prepares a statement
// whose LIMIT or OFFSET is a bound parameter a second time, at its first step.
func sqlLimit(n int) string { return " LIMIT " + strconv.Itoa(n) }

// scanAll calls scan for each row and always closes rows.
func scanAll(rows *sql.Rows, scan func(*sql.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// marshalLists encodes list fields as JSON arrays; nil is stored as [].
func marshalLists(lists ...[]string) ([]string, error) {
	out := make([]string, len(lists))
	for i, l := range lists {
		if l == nil {
			l = []string{}
		}
		b, err := json.Marshal(l)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}
