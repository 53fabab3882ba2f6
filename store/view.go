package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProjectStats is one project as the viewer lists it.
type ProjectStats struct {
	Project      string
	Sessions     int
	Observations int
	Summaries    int
	Prompts      int
	LastActivity time.Time // the newest observation, summary or prompt
}

// Each count is one pass over a (project, at, …) index: no table rows are read.
const sqlProjects = `
SELECT project, sum(sessions), sum(observations), sum(summaries), sum(prompts), max(last) FROM (
	SELECT project, count(*) AS sessions, 0 AS observations, 0 AS summaries, 0 AS prompts, max(started_at) AS last
		FROM sessions GROUP BY project
	UNION ALL SELECT project, 0, count(*), 0, 0, max(at) FROM observations GROUP BY project
	UNION ALL SELECT project, 0, 0, count(*), 0, max(at) FROM summaries GROUP BY project
	UNION ALL SELECT project, 0, 0, 0, count(*), max(at) FROM prompts GROUP BY project
) GROUP BY project ORDER BY max(last) DESC, project`

// Projects lists every project with its counts, the most recently active first.
func (db *DB) Projects(ctx context.Context) ([]ProjectStats, error) {
	rows, err := db.sql.QueryContext(ctx, sqlProjects)
	if err != nil {
		return nil, db.fail("projects", err)
	}
	var out []ProjectStats
	err = scanAll(rows, func(r *sql.Rows) error {
		var p ProjectStats
		var last sql.NullInt64
		err := r.Scan(&p.Project, &p.Sessions, &p.Observations, &p.Summaries, &p.Prompts, &last)
		p.LastActivity = fromNanos(last)
		out = append(out, p)
		return err
	})
	return out, db.fail("projects", err)
}

// TimelineItem is one row of a project's timeline: an observation or a session summary.
type TimelineItem struct {
	Observation *Observation // exactly one of the two is set
	Summary     *Summary
}

// At is the item's time.
func (it TimelineItem) At() time.Time {
	if it.Summary != nil {
		return it.Summary.At
	}
	return it.Observation.At
}

// Cursor marks a place in a timeline: the items after it are older. The order is time
// descending, then at an equal time summaries before observations, then id descending, so
// every item has one place and a page never repeats or skips one.
type Cursor struct {
	At      time.Time
	Summary bool
	ID      int64
}

// cursor is the place of it.
func (it TimelineItem) cursor() Cursor {
	if it.Summary != nil {
		return Cursor{At: it.Summary.At, Summary: true, ID: it.Summary.ID}
	}
	return Cursor{At: it.Observation.At, ID: it.Observation.ID}
}

// String encodes c for a URL: "<unix nanos>.<s|o>.<id>".
func (c Cursor) String() string {
	k := "o"
	if c.Summary {
		k = "s"
	}
	return fmt.Sprintf("%d.%s.%d", c.At.UnixNano(), k, c.ID)
}

// ParseCursor decodes Cursor.String; anything else is ErrInvalidArgument.
func ParseCursor(s string) (Cursor, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || (parts[1] != "s" && parts[1] != "o") {
		return Cursor{}, fmt.Errorf("cursor %q: %w", s, ErrInvalidArgument)
	}
	ns, err1 := strconv.ParseInt(parts[0], 10, 64)
	id, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return Cursor{}, fmt.Errorf("cursor %q: %w", s, ErrInvalidArgument)
	}
	return Cursor{At: time.Unix(0, ns).UTC(), Summary: parts[1] == "s", ID: id}, nil
}

// TypeSummary, as the type filter of TimelinePage, keeps only session summaries.
const TypeSummary = "summary"

// TimelinePage returns one page of a project's observations and summaries, newest first,
// starting after `after` (nil: from the newest), and the cursor of the next page (nil on
// the last page). typ "" keeps every item, TypeSummary only summaries, any other value
// only observations of that type. It seeks by keyset on the (project, at, id) indexes, so
// a page costs the same at any depth of a project of any size.
func (db *DB) TimelinePage(ctx context.Context, project, typ string, after *Cursor, limit int) ([]TimelineItem, *Cursor, error) {
	if limit <= 0 {
		return nil, nil, nil
	}
	var items []TimelineItem
	if typ != TypeSummary {
		q, args := `SELECT `+observationColumns+` FROM observations WHERE project = ?`, []any{project}
		if typ != "" {
			q, args = q+` AND type = ?`, append(args, typ)
		}
		if after != nil && after.Summary { // every observation at that time comes after the summary
			q, args = q+` AND at <= ?`, append(args, after.At.UnixNano())
		} else if after != nil {
			q, args = q+` AND (at, id) < (?, ?)`, append(args, after.At.UnixNano(), after.ID)
		}
		obs, err := rowsOf(ctx, db, "timeline", scanObservations, q+` ORDER BY at DESC, id DESC`+sqlLimit(limit+1), args...)
		if err != nil {
			return nil, nil, err
		}
		for i := range obs {
			items = append(items, TimelineItem{Observation: &obs[i]})
		}
	}
	if typ == "" || typ == TypeSummary {
		q, args := `SELECT `+summaryColumns+` FROM summaries WHERE project = ?`, []any{project}
		if after != nil && after.Summary {
			q, args = q+` AND (at, id) < (?, ?)`, append(args, after.At.UnixNano(), after.ID)
		} else if after != nil {
			q, args = q+` AND at < ?`, append(args, after.At.UnixNano())
		}
		sums, err := rowsOf(ctx, db, "timeline", scanSummaries, q+` ORDER BY at DESC, id DESC`+sqlLimit(limit+1), args...)
		if err != nil {
			return nil, nil, err
		}
		for i := range sums {
			items = append(items, TimelineItem{Summary: &sums[i]})
		}
	}
	slices.SortFunc(items, func(a, b TimelineItem) int { return compareCursor(b.cursor(), a.cursor()) })
	if len(items) <= limit {
		return items, nil, nil
	}
	items = items[:limit]
	next := items[limit-1].cursor()
	return items, &next, nil
}

// compareCursor orders places ascending: older first; at an equal time an observation
// before a summary; then by id.
func compareCursor(a, b Cursor) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	if a.Summary != b.Summary {
		if a.Summary {
			return 1
		}
		return -1
	}
	return int(a.ID - b.ID)
}

// rowsOf runs a query and reads its rows with scan; op names the read in an error.
func rowsOf[T any](ctx context.Context, db *DB, op string, scan func(*sql.Rows) ([]T, error), query string, args ...any) ([]T, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.fail(op, err)
	}
	out, err := scan(rows)
	if err == nil {
		err = db.withOrigins(ctx, out)
	}
	return out, db.fail(op, err)
}

// oneOf is rowsOf for a query of one row by id: the row, or ErrNotFound.
func oneOf[T any](ctx context.Context, db *DB, op string, scan func(*sql.Rows) ([]T, error), query string, id int64) (*T, error) {
	out, err := rowsOf(ctx, db, op, scan, query, id)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("store: %s %d: %w", op, id, ErrNotFound)
	}
	return &out[0], nil
}

// ObservationsAfter returns up to limit observations with an id above afterID, oldest
// first: what was stored since the viewer's live feed last looked.
func (db *DB) ObservationsAfter(ctx context.Context, afterID int64, limit int) ([]Observation, error) {
	return rowsOf(ctx, db, "observations after", scanObservations,
		`SELECT `+observationColumns+` FROM observations WHERE id > ? ORDER BY id`+sqlLimit(limit), afterID)
}

// LatestObservations returns the newest limit observations of every project, newest first.
func (db *DB) LatestObservations(ctx context.Context, limit int) ([]Observation, error) {
	return rowsOf(ctx, db, "latest observations", scanObservations,
		`SELECT `+observationColumns+` FROM observations ORDER BY id DESC`+sqlLimit(limit))
}

// Observation returns one observation, or ErrNotFound.
func (db *DB) Observation(ctx context.Context, id int64) (*Observation, error) {
	return oneOf(ctx, db, "observation", scanObservations, `SELECT `+observationColumns+` FROM observations WHERE id = ?`, id)
}

const summaryColumns = `id, session_id, project, run_id, request, investigated, learned, completed,
	next_steps, notes, at`

// scanSummaries reads rows of summaryColumns.
func scanSummaries(rows *sql.Rows) ([]Summary, error) {
	var out []Summary
	err := scanAll(rows, func(r *sql.Rows) error {
		var s Summary
		var at sql.NullInt64
		err := r.Scan(&s.ID, &s.SessionID, &s.Project, &s.RunID, &s.Request, &s.Investigated, &s.Learned,
			&s.Completed, &s.NextSteps, &s.Notes, &at)
		s.At = fromNanos(at)
		out = append(out, s)
		return err
	})
	return out, err
}

// Summary returns one session summary, or ErrNotFound.
func (db *DB) Summary(ctx context.Context, id int64) (*Summary, error) {
	return oneOf(ctx, db, "summary", scanSummaries, `SELECT `+summaryColumns+` FROM summaries WHERE id = ?`, id)
}

// Prompt returns one stored prompt, or ErrNotFound.
func (db *DB) Prompt(ctx context.Context, id int64) (*Prompt, error) {
	var p Prompt
	var at sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT id, session_id, project, text, at FROM prompts WHERE id = ?`, id).
		Scan(&p.ID, &p.SessionID, &p.Project, &p.Text, &at)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("store: prompt %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, db.fail("prompt", err)
	}
	p.At = fromNanos(at)
	if err := withOrigin(ctx, db, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// SessionByID returns one session, or ErrNotFound.
func (db *DB) SessionByID(ctx context.Context, id string) (*Session, error) {
	var s Session
	var started, ended sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT id, project, cwd, started_at, ended_at FROM sessions WHERE id = ?`, id).
		Scan(&s.ID, &s.Project, &s.Cwd, &started, &ended)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("store: session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, db.fail("session", err)
	}
	s.StartedAt, s.EndedAt = fromNanos(started), fromNanos(ended)
	if err := withOrigin(ctx, db, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// SessionSummaries returns every summary of a session, oldest first.
func (db *DB) SessionSummaries(ctx context.Context, sessionID string) ([]Summary, error) {
	return rowsOf(ctx, db, "session summaries", scanSummaries,
		`SELECT `+summaryColumns+` FROM summaries WHERE session_id = ? ORDER BY at, id`, sessionID)
}
