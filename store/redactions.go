package store

import (
	"context"
	"database/sql"
)

const sqlRedactionsByKind = `
SELECT kind, sum(count) FROM redactions
WHERE day >= ?1 AND day < ?2 AND (?3 = '' OR project = ?3) GROUP BY kind`

// RedactionsByKind is how many captured values of each kind were redacted on the local days
// in [fromDay, toDay) (YYYY-MM-DD, as the redactions table keeps them) for project ("" =
// all projects). Never nil: an empty map when none were.
func (db *DB) RedactionsByKind(ctx context.Context, fromDay, toDay, project string) (map[string]int, error) {
	out := map[string]int{}
	rs, err := db.sql.QueryContext(ctx, sqlRedactionsByKind, fromDay, toDay, project)
	if err != nil {
		return nil, db.fail("redactions by kind", err)
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
		return nil, db.fail("redactions by kind", err)
	}
	return out, nil
}
