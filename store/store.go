// Package store keeps claude-mem's memory in SQLite: sessions, prompts, the tool-event queue, observations, summaries and their full-text search.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a write waits for another process's lock before failing. Hooks
// of one session, the observer and SessionStart of another session all write the same
// file; waiting is always better than dropping a captured event.
const BusyTimeout = 10 * time.Second

// ErrNoDatabase: OpenReadOnly found no database (nothing has been captured yet).
var ErrNoDatabase = errors.New("no database yet")

// ErrInvalidArgument: a required value (session id, run id, time) was missing or out of range.
var ErrInvalidArgument = errors.New("invalid argument")

// ErrNoClaim: Complete was called for a run that holds no claimed events, because it
// never claimed any or its claim was requeued (and maybe taken by another run).
// Nothing is stored, so the same events cannot produce observations twice.
var ErrNoClaim = errors.New("run holds no claimed events")

// ErrReadOnly: a write was attempted on a database opened with OpenReadOnly.
var ErrReadOnly = errors.New("database opened read-only")

// UnavailableError means the database file cannot be used: it is corrupt, unreadable,
// not a regular file, or from an incompatible schema version. The file is left exactly as
// it was; memory is unavailable until a person looks at it.
type UnavailableError struct {
	Path string
	Err  error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("store: database %s unavailable: %v", e.Path, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// SchemaVersionError: the file's schema version is not the one this build uses. Newer
// (a later claude-mem wrote it) is never touched; older is only upgraded by Open.
type SchemaVersionError struct {
	Have, Want int
}

func (e *SchemaVersionError) Error() string {
	if e.Have > e.Want {
		return fmt.Sprintf("schema version %d is newer than this claude-mem's %d; upgrade claude-mem", e.Have, e.Want)
	}
	return fmt.Sprintf("schema version %d is older than %d; the next captured event upgrades it", e.Have, e.Want)
}

// IntegrityError lists what Integrity's checks reported.
type IntegrityError struct {
	Problems []string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("store: integrity check failed: %d problem(s), first: %s", len(e.Problems), e.Problems[0])
}

// DB is an open claude-mem database.
type DB struct {
	path     string
	sql      *sql.DB
	readOnly bool
}

// Open opens the database at path for reading and writing, creating it (0600) and
// migrating its schema forward when needed. When the schema is current it costs one
// PRAGMA user_version read and no DDL, because every hook opens it. Any failure to make
// the file usable (corrupt, unreadable, not a regular file, a newer schema, a lock held
// past BusyTimeout) is an *UnavailableError, and the file is never deleted, truncated or
// rewritten.
func Open(path string) (*DB, error) {
	if err := createFile(path); err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	db, err := connect(path, false)
	if err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	if err := db.migrate(context.Background(), migrations); err != nil {
		db.sql.Close()
		return nil, &UnavailableError{Path: path, Err: err}
	}
	return db, nil
}

// OpenReadOnly opens an existing database for reading only (search, doctor). It never
// creates a file: a missing or empty one is ErrNoDatabase. A schema version other than
// this build's is an *UnavailableError, since only Open may migrate.
func OpenReadOnly(path string) (*DB, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("store: %s: %w", path, ErrNoDatabase)
	case err != nil:
		return nil, &UnavailableError{Path: path, Err: err}
	case !fi.Mode().IsRegular():
		return nil, &UnavailableError{Path: path, Err: fmt.Errorf("%s is not a regular file", fi.Mode().Type())}
	case fi.Size() == 0:
		return nil, fmt.Errorf("store: %s: %w", path, ErrNoDatabase)
	}
	db, err := connect(path, true)
	if err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	have, err := userVersion(context.Background(), db.sql)
	if err == nil && have == 0 {
		db.sql.Close()
		return nil, fmt.Errorf("store: %s: %w", path, ErrNoDatabase)
	}
	if err == nil && have != len(migrations) {
		err = &SchemaVersionError{Have: have, Want: len(migrations)}
	}
	if err != nil {
		db.sql.Close()
		return nil, &UnavailableError{Path: path, Err: err}
	}
	return db, nil
}

// Close releases the database.
func (db *DB) Close() error { return db.sql.Close() }

// createFile makes sure path is a regular file, creating a new database when there is
// none.
func createFile(path string) error {
	fi, err := os.Stat(path)
	if err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", fi.Mode().Type())
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return create(path)
}

// create builds a complete new database (0600 whatever the umask, WAL, migrated) under a
// temporary name beside path and hard-links it into place, which fails if path exists.
// So no process ever opens a half-made database at path: the first hooks of a new
// install race here, and switching a fresh file to WAL while others read it fails with
// SQLITE_BUSY without waiting. SQLite gives -wal and -shm files the database's
// permissions. The loser of the race just uses the winner's file.
func create(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmp + suffix)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	db, err := connect(tmp, false)
	if err != nil {
		return err
	}
	if err := db.migrate(context.Background(), migrations); err != nil {
		db.sql.Close()
		return err
	}
	if err := db.sql.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// connect opens a pool of one connection. mode=rw/ro stops SQLite from ever creating the
// file itself; _txlock=immediate makes every transaction take the write lock at BEGIN,
// where the busy timeout applies, instead of failing at once with SQLITE_BUSY when a read
// transaction later tries to write.
func connect(path string, readOnly bool) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("mode", "rw")
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	s, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	// One connection: a hook is one short sequence of statements, and a second pooled
	// connection would only contend with the first for the file lock.
	s.SetMaxOpenConns(1)
	return &DB{path: path, sql: s, readOnly: readOnly}, nil
}

func userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// migrate brings the schema to len(list), one transaction per migration, re-reading the
// version under the write lock because another process may be migrating too.
func (db *DB) migrate(ctx context.Context, list []string) error {
	have, err := userVersion(ctx, db.sql)
	if err != nil {
		return err
	}
	for have < len(list) {
		err := db.write(ctx, func(tx *sql.Tx) error {
			if have, err = userVersion(ctx, tx); err != nil || have >= len(list) {
				return err
			}
			if _, err := tx.ExecContext(ctx, list[have]); err != nil {
				return fmt.Errorf("migration %d: %w", have+1, err)
			}
			have++
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", have))
			return err
		})
		if err != nil {
			return err
		}
	}
	if have > len(list) {
		return &SchemaVersionError{Have: have, Want: len(list)}
	}
	return nil
}

// write runs fn in one IMMEDIATE transaction: all of it commits, or none of it.
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if db.readOnly {
		return ErrReadOnly
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// fail wraps an error of operation op. SQLite errors that mean the file itself is bad
// become *UnavailableError, so every caller can tell "memory is broken" from "this call
// failed".
func (db *DB) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if fileBroken(err) {
		return &UnavailableError{Path: db.path, Err: fmt.Errorf("%s: %w", op, err)}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// fileBroken reports whether err says the database file is unusable, not the call.
func fileBroken(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM:
		return true
	}
	return false
}

// nanos stores a time as unix nanoseconds; the zero time is NULL.
func nanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}
