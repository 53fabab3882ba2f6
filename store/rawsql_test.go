package store

// ExecSQL runs query on db directly, for the external tests (package store_test) that
// change rows behind the store's back, as no code path does.
func ExecSQL(db *DB, query string) error {
	_, err := db.sql.Exec(query)
	return err
}
