package store

import (
	"context"
	"database/sql"
	"encoding/json"
)

const observationColumns = `id, session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at`

const sqlRecentObservations = `SELECT ` + observationColumns + ` FROM observations
WHERE project = ? ORDER BY at DESC, id DESC`

// RecentObservations returns the project's newest observations, newest first. Only that
// exact project's: observations of other projects never appear. limit <= 0 returns none.
func (db *DB) RecentObservations(ctx context.Context, project string, limit int) ([]Observation, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, sqlRecentObservations+sqlLimit(limit), project)
	if err != nil {
		return nil, db.fail("recent observations", err)
	}
	out, err := scanObservations(rows)
	if err == nil {
		err = db.withOrigins(ctx, out)
	}
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
