package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// ForgetScope selects what Forget removes. Its fields intersect; a scope with Refs selects
// those records only (observations, summaries, prompts), never a session's other rows.
type ForgetScope struct {
	Refs        []vocab.Ref
	Session     string
	Project     string
	AllProjects bool      // every project, asked for as such (--project '*')
	Before      time.Time // zero: no bound
}

// Empty reports whether the scope selects nothing at all (forgetting everything must be
// asked for by some field).
func (s ForgetScope) Empty() bool {
	return len(s.Refs) == 0 && s.Session == "" && s.Project == "" && !s.AllProjects && s.Before.IsZero()
}

// Forgotten is what a scope selects (ForgetPreview) or selected (Forget).
type Forgotten struct {
	Observations, Summaries, Prompts, Answers, Events int
	Sessions                                          []string    // sessions left with no rows, removed too
	Runs                                              []string    // observer runs that read or wrote a removed row
	Titles                                            []string    // observation titles and summary requests, oldest first
	Titled                                            int         // all titles, listed or not
	Missing                                           []vocab.Ref // refs of no record, in the order asked
}

// forgetTables are the tables a scope's rows are deleted from, in an order the foreign keys
// allow (sessions go last).
var forgetTables = []string{"events", "prompts", "answers", "summaries", "observations"}

// ids are the scope's ids of the records stored in table.
func (s ForgetScope) ids(table string) []int64 {
	var ids []int64
	for _, r := range s.Refs {
		if t, err := memoryTableOf(r.Kind); err == nil && t.table == table {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// where is the condition on table's rows that the scope selects, with its arguments.
func (s ForgetScope) where(table string) (string, []any, error) {
	w, args := s.fields("session_id", "project", "at")
	if len(s.Refs) == 0 {
		return w, args, nil
	}
	ids := s.ids(table)
	if len(ids) == 0 {
		return "0", nil, nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return "", nil, err
	}
	return "id IN (SELECT value FROM json_each(?)) AND " + w, append([]any{string(b)}, args...), nil
}

// sessionWhere selects session rows by the scope's own fields, so a session recorded
// with nothing in it (SessionStart only) goes with its project or time too. A scope of refs
// removes only sessions its records leave empty.
func (s ForgetScope) sessionWhere() (string, []any) {
	if len(s.Refs) > 0 {
		return "0", nil
	}
	return s.fields("s.id", "s.project", "coalesce(s.started_at, 0)")
}

// fields is the condition of the scope's session, project and time on these columns.
func (s ForgetScope) fields(session, project, at string) (string, []any) {
	conds := []string{"1"}
	var args []any
	if s.Session != "" {
		conds, args = append(conds, session+" = ?"), append(args, s.Session)
	}
	if s.Project != "" {
		conds, args = append(conds, project+" = ?"), append(args, s.Project)
	}
	if !s.Before.IsZero() {
		conds, args = append(conds, at+" < ?"), append(args, s.Before.UnixNano())
	}
	return strings.Join(conds, " AND "), args
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// ForgetPreview reports what Forget would remove, removing nothing. maxTitles bounds
// Titles.
func (db *DB) ForgetPreview(ctx context.Context, scope ForgetScope, maxTitles int) (Forgotten, error) {
	f, err := forgetPlan(ctx, db.sql, scope, maxTitles)
	return f, db.fail("forget preview", err)
}

// Forget removes, in one transaction, the scope's observations, summaries, prompts and
// events (their full-text entries go with them, by the triggers) and the sessions that
// leaves empty; those sessions' observer runs keep their usage and cost, nameless. beforeCommit, when not nil, runs last inside the transaction with what is
// going: an error from it rolls everything back. Deleted text stays in free pages and the
// WAL until Vacuum.
func (db *DB) Forget(ctx context.Context, scope ForgetScope, maxTitles int, beforeCommit func(Forgotten) error) (Forgotten, error) {
	var f Forgotten
	err := db.write(ctx, func(tx *sql.Tx) error {
		var err error
		if f, err = forgetPlan(ctx, tx, scope, maxTitles); err != nil {
			return err
		}
		for _, t := range forgetTables {
			w, args, err := scope.where(t)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE `+w, args...); err != nil {
				return err
			}
		}
		ids, err := json.Marshal(f.Sessions)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id IN (SELECT value FROM json_each(?))`, string(ids)); err != nil {
			return err
		}
		// A removed session's observer runs keep their cost (money spent stays spent) but
		// no longer name the session or its project.
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET session_id = '', project = '' WHERE session_id IN (SELECT value FROM json_each(?))`, string(ids)); err != nil {
			return err
		}
		if beforeCommit != nil {
			return beforeCommit(f)
		}
		return nil
	})
	return f, db.fail("forget", err)
}

// Vacuum makes deleted text unrecoverable from the files: the full-text index is merged
// into one segment (a deletion only adds a tombstone beside the old terms), VACUUM
// rewrites the database without free pages, and the WAL, which holds old page images, is
// checkpointed and truncated before and after.
func (db *DB) Vacuum(ctx context.Context) error {
	if db.readOnly {
		return db.fail("vacuum", ErrReadOnly)
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO search_fts (search_fts) VALUES ('optimize')`); err != nil {
		return db.fail("vacuum", err)
	}
	if err := db.checkpoint(ctx); err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `VACUUM`); err != nil {
		return db.fail("vacuum", err)
	}
	return db.checkpoint(ctx)
}

// ErrWALBusy: another process kept the WAL from being emptied (past the busy timeout), so
// it may still hold removed text; running Vacuum again later finishes the job.
var ErrWALBusy = errors.New("the WAL could not be emptied while another process used the database")

// checkpoint copies the WAL into the database and truncates it to zero bytes.
func (db *DB) checkpoint(ctx context.Context) error {
	var busy, log, done int
	if err := db.sql.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil {
		return db.fail("vacuum", err)
	}
	if busy != 0 {
		return db.fail("vacuum", ErrWALBusy)
	}
	return nil
}

func forgetPlan(ctx context.Context, q querier, scope ForgetScope, maxTitles int) (Forgotten, error) {
	var f Forgotten
	if scope.Empty() {
		return f, fmt.Errorf("forget: an empty scope: %w", ErrInvalidArgument)
	}
	for _, r := range scope.Refs {
		if _, err := memoryTableOf(r.Kind); err != nil {
			return f, fmt.Errorf("forget: %w", err)
		}
	}
	type sel struct {
		where string
		args  []any
	}
	sels := map[string]sel{}
	counts := map[string]*int{"events": &f.Events, "prompts": &f.Prompts, "answers": &f.Answers, "summaries": &f.Summaries, "observations": &f.Observations}
	var touched, noneLeft []string
	var touchedArgs, leftArgs []any
	for _, t := range forgetTables {
		w, args, err := scope.where(t)
		if err != nil {
			return f, err
		}
		sels[t] = sel{w, args}
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM `+t+` WHERE `+w, args...).Scan(counts[t]); err != nil {
			return f, err
		}
		touched = append(touched, `s.id IN (SELECT session_id FROM `+t+` WHERE `+w+`)`)
		touchedArgs = append(touchedArgs, args...)
		noneLeft = append(noneLeft, `NOT EXISTS (SELECT 1 FROM `+t+` WHERE session_id = s.id AND NOT (`+w+`))`)
		leftArgs = append(leftArgs, args...)
	}
	sw, sargs := scope.sessionWhere()
	touched = append(touched, sw)
	touchedArgs = append(touchedArgs, sargs...)
	var err error
	f.Sessions, err = queryList[string](ctx, q, `SELECT s.id FROM sessions s WHERE (`+strings.Join(touched, " OR ")+`) AND `+
		strings.Join(noneLeft, " AND ")+` ORDER BY s.id`, append(touchedArgs, leftArgs...)...)
	if err != nil {
		return f, err
	}

	e, o, s := sels["events"], sels["observations"], sels["summaries"]
	f.Runs, err = queryList[string](ctx, q, `
SELECT run_id FROM events WHERE `+e.where+`
UNION SELECT run_id FROM observations WHERE `+o.where+`
UNION SELECT run_id FROM summaries WHERE `+s.where+`
EXCEPT SELECT ''
ORDER BY 1`, append(append(append([]any{}, e.args...), o.args...), s.args...)...)
	if err != nil {
		return f, err
	}

	f.Titles, err = queryList[string](ctx, q, `
SELECT title FROM (
	SELECT title, at, id FROM observations WHERE `+o.where+`
	UNION ALL
	SELECT request, at, id FROM summaries WHERE `+s.where+`
) ORDER BY at, id`+sqlLimit(max(maxTitles, 0)), append(append([]any{}, o.args...), s.args...)...)
	if err != nil {
		return f, err
	}
	f.Titled = f.Observations + f.Summaries

	for _, r := range scope.Refs {
		if slices.Contains(f.Missing, r) {
			continue
		}
		t, _ := memoryTableOf(r.Kind) // checked above
		var there bool
		if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.table+` WHERE id = ?)`, r.ID).Scan(&there); err != nil {
			return f, err
		}
		if !there {
			f.Missing = append(f.Missing, r)
		}
	}
	return f, nil
}

// queryList reads a one-column result.
func queryList[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var out []T
	err = scanAll(rows, func(r *sql.Rows) error {
		var v T
		err := r.Scan(&v)
		out = append(out, v)
		return err
	})
	return out, err
}

// Path is the database file (forget finds the data dir's run transcripts beside it).
func (db *DB) Path() string { return db.path }
