package store

import "testing"

// ExecSQL runs query on db directly, for the external tests (package store_test) that
// change rows behind the store's back, as no code path does.
func ExecSQL(db *DB, query string, args ...any) error {
	_, err := db.sql.Exec(query, args...)
	return err
}

// CountSQL is the number query (a SELECT count(*)) gives on db.
func CountSQL(db *DB, query string) (n int, err error) {
	err = db.sql.QueryRow(query).Scan(&n)
	return n, err
}

// OpenBeforeRedaction opens a new database at path, its schema as the build before the
// redaction migration left it.
func OpenBeforeRedaction(t testing.TB, path string) *DB { return openAt(t, path, beforeRedaction(t)) }
