package store

import (
	"context"
	"database/sql"
)

// sqlAddRedactions adds ?4 redactions of kind ?3 to day ?1 and project ?2.
const sqlAddRedactions = `
INSERT INTO redactions (day, project, kind, count) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (day, project, kind) DO UPDATE SET count = count + excluded.count`

const sqlRedactionsByKind = `
SELECT kind, sum(count) FROM redactions
WHERE day >= ?1 AND day < ?2 AND (?3 = '' OR project = ?3) GROUP BY kind`

// RedactionsByKind is how many captured values of each kind were redacted on the local days
// in [fromDay, toDay) (YYYY-MM-DD, as the redactions table keeps them) for project ("" =
// all projects). Never nil: an empty map when none were.
func (db *DB) RedactionsByKind(ctx context.Context, fromDay, toDay, project string) (map[string]int, error) {
	return db.kindCounts(ctx, "redactions by kind", sqlRedactionsByKind, fromDay, toDay, project)
}

// StoredRedactions is how many secrets of each kind the redaction migrations found in
// memory stored before the redactor caught them (DESIGN.md §16), in the database and the
// observer's run files. Never nil: an empty map when none were.
func (db *DB) StoredRedactions(ctx context.Context) (map[string]int, error) {
	return db.kindCounts(ctx, "stored redactions", "SELECT kind, count FROM stored_redactions")
}

// kindCounts runs query, whose rows are (kind, count), for operation op.
func (db *DB) kindCounts(ctx context.Context, op, query string, args ...any) (map[string]int, error) {
	out := map[string]int{}
	rs, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.fail(op, err)
	}
	err = scanAll(rs, func(r *sql.Rows) error {
		var kind string
		var n int
		if err := r.Scan(&kind, &n); err != nil {
			return err
		}
		out[kind] = n
		return nil
	})
	if err != nil {
		return nil, db.fail(op, err)
	}
	return out, nil
}
