// Package store keeps claude-mem's memory in SQLite: sessions, prompts, the tool-event queue, observations, summaries and their full-text search.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/claude-mem/claude-mem-go/private"
)

// BusyTimeout is how long a write waits for another process's lock before failing, for
// the observer and the commands: waiting is better than failing a run.
const BusyTimeout = 10 * time.Second

// HookBusyTimeout is the wait of a hook (OpenOptions.Busy): no hook waits more than 2 s on the
// database (DESIGN.md §15), process start and a loaded machine included. What a hook could
// not store waits in the capture journal.
const HookBusyTimeout = time.Second

// ApplicationID marks a claude-mem database (PRAGMA application_id, "cmem"): a file at
// the path without it is another program's, and is never migrated or switched to WAL.
const ApplicationID = 0x636d656d

// staleCreation is how old a leftover creation file (<db>.new-*, from a process killed while
// creating the database) must be before an open with a clock removes it: a live creation
// takes milliseconds.
const staleCreation = time.Minute

// ErrForeign: the file at the database path is not a claude-mem database (another
// application's SQLite file, or not SQLite at all). It is left exactly as it is.
var ErrForeign = errors.New("not a claude-mem database; left untouched (move it away or set CLAUDE_MEM_DATA_DIR)")

// ErrNoDatabase: OpenReadOnly found no database (nothing has been captured yet).
var ErrNoDatabase = errors.New("no database yet")

// ErrInvalidArgument: a required value (session id, run id, time) was missing or out of range.
var ErrInvalidArgument = errors.New("invalid argument")

// ErrNoClaim: CompleteRun was called for a run that holds no claimed events, because it
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
// (a later claude-mem wrote it) is never touched; older is upgraded by whoever opens it.
type SchemaVersionError struct {
	Have, Want int
}

func (e *SchemaVersionError) Error() string {
	if e.Have > e.Want {
		return fmt.Sprintf("schema version %d is newer than this claude-mem's %d; upgrade claude-mem", e.Have, e.Want)
	}
	return fmt.Sprintf("schema version %d is older than this claude-mem's %d", e.Have, e.Want)
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
//
// A file that is not claude-mem's (see owner) is refused before any connection that could
// change it (journal_mode=WAL rewrites the header): ErrForeign. A claude-mem database from
// before ApplicationID existed is adopted (the id is set).
func Open(path string) (*DB, error) { return OpenWith(path, OpenOptions{}) }

// OpenOptions is how OpenWith waits and what it may run.
type OpenOptions struct {
	// Busy is how long a write waits for another process's lock; 0 is BusyTimeout. A
	// migration (not in a hook) waits up to UpgradeBusyTimeout for another process's.
	Busy time.Duration
	// Hook: the opener is a hook, which may not wait long on the database (DESIGN.md §15).
	// A heavy migration step is not run: the open fails with ErrUpgrading (what the hook
	// captured waits in the capture journal), and Upgrade is called so that another process
	// runs it. The clean-up a killed heavy migration left owed (vacuum, backups) is left to
	// that process too, and the database is opened as usual.
	Hook    bool
	Upgrade func()
	// Now ages the creation files a killed process left (<path>.new-*): with it, those
	// older than staleCreation are removed. nil leaves them to an opener with a clock (every
	// hook's is).
	Now func() time.Time
}

// UpgradeBusyTimeout is how long an open that migrates waits for another process's
// migration, which may be a heavy one that takes as long as the memory is large.
const UpgradeBusyTimeout = 5 * time.Minute

// ErrUpgrading: the database needs a heavy migration, which a hook does not run (see
// OpenOptions.Hook); another process is running it. Nothing is lost: what hooks capture
// meanwhile waits in the capture journal.
var ErrUpgrading = errors.New("claude-mem is upgrading its database (a one-time rewrite of stored memory); it is back when that finishes, and what is captured meanwhile waits in the journal")

// OpenWith is Open with options.
func OpenWith(path string, o OpenOptions) (*DB, error) {
	busy := cmp.Or(o.Busy, BusyTimeout)
	var now time.Time
	if o.Now != nil {
		now = o.Now()
	}
	backups := leftovers(path, now)
	if err := createFile(path); err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	own, err := owner(path)
	if err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	db, err := connect(path, false, busy)
	if err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	ctx := context.Background()
	mo := migrateOptions{hook: o.Hook, busy: busy, backups: backups}
	deferred, err := db.migrate(ctx, migrations, mo)
	if err != nil {
		db.sql.Close()
		return nil, &UnavailableError{Path: path, Err: err}
	}
	if deferred != nothingDeferred && o.Upgrade != nil {
		o.Upgrade()
	}
	if deferred == stepsDeferred {
		db.sql.Close()
		return nil, fmt.Errorf("store: %s: %w", path, ErrUpgrading)
	}
	if own == adopt {
		// Checkpointed, so the next Open reads the id from the file's header.
		_, err := db.sql.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID))
		if err == nil {
			_, err = db.sql.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		}
		if err != nil {
			db.sql.Close()
			return nil, &UnavailableError{Path: path, Err: fmt.Errorf("marking the database as claude-mem's: %w", err)}
		}
	}
	return db, nil
}

// ownership is what owner found at a database path.
type ownership int

const (
	ours  ownership = iota // our application id, or an empty file/database to make ours
	adopt                  // a claude-mem database from before the id: set it
)

// ourTables are tables every claude-mem schema has had since version 1.
var ourTables = []string{"events", "observations", "prompts", "sessions", "summaries"}

// owner decides from the file's 100-byte header (and, without an application id, a
// read-only look at its tables) whether the database is claude-mem's, without writing
// anything. Not SQLite, another application's id, or tables that are not ours with no id:
// ErrForeign.
func owner(path string) (ownership, error) {
	// Opened without following a symlink and checked on the fd, as SQLite's own files
	// beside it: a database another user could write (or swap) is never read or written.
	f, err := private.Open(path, os.O_RDONLY)
	if err != nil {
		return ours, err
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := private.Lstat(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.Close()
			return ours, err
		}
	}
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	f.Close()
	switch {
	case n == 0:
		return ours, nil // an empty file: SQLite makes it a new database
	case err != nil || string(h[:16]) != "SQLite format 3\x00":
		return ours, fmt.Errorf("%w: not a SQLite database", ErrForeign)
	}
	if id := binary.BigEndian.Uint32(h[68:72]); id == ApplicationID {
		return ours, nil
	} else if id != 0 {
		return ours, fmt.Errorf("%w: application_id %#x", ErrForeign, id)
	}
	db, err := connect(path, true, BusyTimeout)
	if err != nil {
		return ours, err
	}
	defer db.sql.Close()
	rows, err := db.sql.Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return ours, err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return ours, err
		}
		tables = append(tables, t)
	}
	if err := rows.Err(); err != nil {
		return ours, err
	}
	version := binary.BigEndian.Uint32(h[60:64])
	switch {
	case len(tables) == 0 && version == 0:
		return ours, nil // an empty database: nobody's data
	case version >= 1 && !slices.ContainsFunc(ourTables, func(t string) bool { return !slices.Contains(tables, t) }):
		return adopt, nil
	}
	return ours, fmt.Errorf("%w: its tables are %s", ErrForeign, strings.Join(tables, ", "))
}

// leftovers removes <path>.new-* files (and their -wal, -shm, -journal) older than
// staleCreation at now (none when now is zero), what a process killed while creating the
// database left behind, and returns the backups heavy migrations took (<path>.backup-*)
// that are still there: their clean-up is owed (see migrate). One listing of the dir,
// because every hook opens.
func leftovers(path string, now time.Time) (backups []string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		switch {
		case !e.Type().IsRegular():
		case strings.HasPrefix(name, base+backupInfix):
			backups = append(backups, filepath.Join(dir, name))
		case strings.HasPrefix(name, base+".new-") && !now.IsZero():
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleCreation {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
	return backups
}

// OpenReadOnly opens an existing database for reading only (search, doctor, the viewer,
// the MCP server). It never creates a file: a missing or empty one is ErrNoDatabase. A
// database an older claude-mem wrote is upgraded first (Open), and so is one whose heavy
// migration's clean-up is owed, so a user who updates and searches at once gets results.
func OpenReadOnly(path string) (*DB, error) {
	fi, err := os.Lstat(path)
	if err == nil {
		err = private.Check(path, fi)
	}
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
	if _, err := owner(path); err != nil {
		return nil, &UnavailableError{Path: path, Err: err}
	}
	upgraded := false
	for {
		db, err := connect(path, true, BusyTimeout)
		if err != nil {
			return nil, &UnavailableError{Path: path, Err: err}
		}
		have, err := userVersion(context.Background(), db.sql)
		switch {
		case err == nil && have == 0:
			db.sql.Close()
			return nil, fmt.Errorf("store: %s: %w", path, ErrNoDatabase)
		case err == nil && !upgraded && have < len(migrations):
			db.sql.Close()
			w, err := Open(path)
			if err != nil {
				return nil, err
			}
			w.Close()
			upgraded = true
			continue
		case err == nil && !upgraded && len(leftovers(path, time.Time{})) > 0:
			// A killed heavy migration's clean-up: done if the dir can be written, and
			// reading goes on either way.
			if w, err := Open(path); err == nil {
				w.Close()
			}
		case err == nil && have != len(migrations):
			err = &SchemaVersionError{Have: have, Want: len(migrations)}
		}
		if err != nil {
			db.sql.Close()
			return nil, &UnavailableError{Path: path, Err: err}
		}
		return db, nil
	}
}

// Close releases the database.
func (db *DB) Close() error { return db.sql.Close() }

// createFile makes sure path is a regular file, creating a new database when there is
// none.
func createFile(path string) error {
	fi, err := os.Lstat(path)
	if err == nil {
		if err := private.Check(path, fi); err != nil {
			return err
		}
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
	db, err := connect(tmp, false, BusyTimeout)
	if err != nil {
		return err
	}
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
		db.sql.Close()
		return err
	}
	// Nothing is stored yet: heavy steps have nothing to back up or vacuum.
	if _, err := db.migrate(context.Background(), migrations, migrateOptions{fresh: true, busy: BusyTimeout}); err != nil {
		db.sql.Close()
		return err
	}
	afterCreateConnect()
	if err := db.sql.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// afterCreateConnect runs while create holds a half-made database open; a test stops a
// process there.
var afterCreateConnect = func() {}

// connect opens a pool of one connection. mode=rw/ro stops SQLite from ever creating the
// file itself; _txlock=immediate makes every transaction take the write lock at BEGIN,
// where the busy timeout applies, instead of failing at once with SQLITE_BUSY when a read
// transaction later tries to write.
func connect(path string, readOnly bool, busy time.Duration) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Set("mode", "ro")
		// Readers are short queries or the long-lived MCP server: a 256 KiB page cache
		// (SQLite's default is 2 MiB). A search reads each of some 300 pages about once,
		// and every page a larger cache holds is memory the process touches first: the
		// page faults of a 1 MiB cache cost a short process more than the reads it saved.
		q.Add("_pragma", "cache_size(-256)")
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
