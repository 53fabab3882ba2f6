//go:build unix

package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/private"
)

func TestOpenCreatesPrivateFilesWhateverTheUmask(t *testing.T) {
	// umask is process-wide: this test must not run in parallel with others.
	for _, umask := range []int{0o000, 0o022, 0o077, 0o277} {
		t.Run(fmt.Sprintf("umask %04o", umask), func(t *testing.T) {
			old := syscall.Umask(umask)
			defer syscall.Umask(old)
			path := filepath.Join(t.TempDir(), "claude-mem.db")
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			addEvents(t, db, session("s", "p"), 0, 1) // a write makes the -wal and -shm files exist
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != 0o600 {
					t.Errorf("%s: mode %o, want 600", filepath.Base(p), got)
				}
			}
			// The database was built under a temporary name: nothing of that is left.
			var names []string
			entries, _ := os.ReadDir(filepath.Dir(path))
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{"claude-mem.db", "claude-mem.db-shm", "claude-mem.db-wal"}; !slices.Equal(names, want) {
				t.Errorf("files %v, want %v", names, want)
			}
		})
	}
}

func TestOpenSetsPragmas(t *testing.T) {
	db, _ := openTest(t)
	for _, c := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", strconv.FormatInt(BusyTimeout.Milliseconds(), 10)},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
		{"user_version", strconv.Itoa(len(migrations))},
	} {
		var got string
		if err := db.sql.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
}

func TestMigrate(t *testing.T) {
	bad := "CREATE TABLE half (x); CREATE TABLE broken ("
	cur := len(migrations) // openTest's databases are current
	with := func(extra ...string) []step {
		list := slices.Clone(migrations)
		for _, e := range extra {
			list = append(list, step{sql: e})
		}
		return list
	}
	for _, c := range []struct {
		name        string
		list        []step
		wantVersion int
		wantErr     bool
		wantTables  []string
		noTables    []string
	}{
		{"current: nothing runs, not even an invalid entry", append(slices.Clone(migrations[:cur-1]), step{sql: "not sql at all"}), cur, false, nil, nil},
		{"forward: each new entry applied in order", with("CREATE TABLE a (x)", "CREATE TABLE b (y REFERENCES a(x))"), cur + 2, false, []string{"a", "b"}, nil},
		{"a failing entry rolls back whole, earlier ones stay", with("CREATE TABLE a (x)", bad), cur + 1, true, []string{"a"}, []string{"half", "broken"}},
		{"newer file than this build", migrations[:cur-1], cur, true, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			_, err := db.migrate(context.Background(), c.list, migrateOptions{busy: BusyTimeout})
			if (err != nil) != c.wantErr {
				t.Fatalf("migrate: %v, want error %v", err, c.wantErr)
			}
			if v := count(t, db, "PRAGMA user_version"); v != c.wantVersion {
				t.Errorf("user_version %d, want %d", v, c.wantVersion)
			}
			for _, name := range c.wantTables {
				if count(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = ?", name) != 1 {
					t.Errorf("table %s missing", name)
				}
			}
			for _, name := range c.noTables {
				if count(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = ?", name) != 0 {
					t.Errorf("table %s of a failed migration exists", name)
				}
			}
		})
	}
}

// A database made by the first schema (user_version 1) is migrated forward by Open, its
// rows kept, and the later tables' queries work on it.
func TestOpenMigratesAVersionOneDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(migrations[0].sql + "; INSERT INTO sessions (id, project, cwd, ended_at) VALUES ('old', 'p', '/p', 1); PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a version-1 database: %v", err)
	}
	defer db.Close()
	if v := count(t, db, "PRAGMA user_version"); v != len(migrations) {
		t.Fatalf("user_version %d after Open, want %d", v, len(migrations))
	}
	ctx := context.Background()
	if err := db.RequestFinal(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if got, err := db.PendingFinals(ctx, time.Unix(0, 2), 3); err != nil || len(got) != 1 || got[0] != "old" {
		t.Fatalf("PendingFinals on a migrated database = %v, %v; want [old]", got, err)
	}
}

func TestOpenRefusesNewerSchemaAndLeavesItAlone(t *testing.T) {
	db, path := openTest(t)
	if _, err := db.sql.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := readFile(t, path)
	for name, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		_, err := open(path)
		var u *UnavailableError
		var v *SchemaVersionError
		if !errors.As(err, &u) || !errors.As(err, &v) || v.Have != 99 || v.Want != len(migrations) {
			t.Errorf("%s: %v, want *UnavailableError with schema 99 > %d", name, err, len(migrations))
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("the newer database file was changed")
	}
}

func TestOpenCorruptFileIsUnavailableAndUntouched(t *testing.T) {
	garbage := make([]byte, 8192)
	rand.New(rand.NewSource(7)).Read(garbage)
	for _, c := range []struct {
		name    string
		content []byte
	}{
		{"random bytes", garbage},
		{"text", []byte("this is not a database, it is a shopping list\n")},
		{"sqlite magic then garbage", append([]byte("SQLite format 3\x00"), garbage...)},
	} {
		for name, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "claude-mem.db")
				if err := os.WriteFile(path, c.content, 0o600); err != nil {
					t.Fatal(err)
				}
				db, err := open(path)
				var u *UnavailableError
				if !errors.As(err, &u) || u.Path != path {
					if db != nil {
						db.Close()
					}
					t.Fatalf("%v, want *UnavailableError for %s", err, path)
				}
				if !bytes.Equal(readFile(t, path), c.content) {
					t.Error("the corrupt file was changed")
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Errorf("files beside the database: %v", entries)
				}
			})
		}
	}
}

// A file whose schema is intact but whose event pages are not opens (Open reads only the
// header and schema), and then every method that meets those pages says the database is
// unavailable, without changing the file.
func TestCorruptPagesMakeMethodsUnavailable(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	s := session("s", "p")
	for i := range 200 {
		e := Event{ToolUseID: strconv.Itoa(i), Input: strings.Repeat("x", 2000), At: at(i)}
		ingest(t, db, Captured{Kind: CaptureEvent, Session: s, Event: e})
	}
	if _, err := db.sql.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	content := readFile(t, path)
	// The schema was written first; the second half of the file is event pages.
	for i := len(content) / 2; i < len(content); i++ {
		content[i] = 0xA5
	}
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	calls := map[string]func() error{
		"StaleSessions": func() error { _, err := db.StaleSessions(ctx, at(1000)); return err },
		"Claim":         func() error { _, err := db.Claim(ctx, "s", "run", 500, at(1000)); return err },
		"Ingest": func() error {
			_, err := db.Ingest(ctx, []Captured{{Kind: CaptureEvent, Session: s, Event: Event{ToolUseID: "new", At: at(1000)}}})
			return err
		},
	}
	for name, call := range calls {
		var u *UnavailableError
		if err := call(); !errors.As(err, &u) || u.Path != path {
			t.Errorf("%s: %v, want *UnavailableError", name, err)
		}
	}
	var ie *IntegrityError
	if err := db.Integrity(ctx); !errors.As(err, &ie) {
		t.Errorf("Integrity: %v, want *IntegrityError", err)
	}
	db.Close()
	if !bytes.Equal(readFile(t, path), content) {
		t.Error("the corrupt file was changed")
	}
}

func TestOpenUnusablePath(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(t *testing.T, path string)
		roNoDB bool // OpenReadOnly says ErrNoDatabase rather than unavailable
	}{
		{"a directory at the path", func(t *testing.T, path string) { mkdir(t, path) }, false},
		{"a dangling symlink to a missing dir", func(t *testing.T, path string) {
			// Refused as a symlink (private), never followed.
			if err := os.Symlink(filepath.Join(filepath.Dir(path), "gone", "x.db"), path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"parent is a file", func(t *testing.T, path string) {
			if err := os.WriteFile(filepath.Dir(path), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data", "claude-mem.db")
			mkdir(t, filepath.Dir(filepath.Dir(path)))
			if c.name != "parent is a file" {
				mkdir(t, filepath.Dir(path))
			}
			c.setup(t, path)
			var u *UnavailableError
			if _, err := Open(path); !errors.As(err, &u) {
				t.Errorf("Open: %v, want *UnavailableError", err)
			}
			_, err := OpenReadOnly(path)
			if c.roNoDB {
				if !errors.Is(err, ErrNoDatabase) {
					t.Errorf("OpenReadOnly: %v, want ErrNoDatabase", err)
				}
			} else if !errors.As(err, &u) {
				t.Errorf("OpenReadOnly: %v, want *UnavailableError", err)
			}
		})
	}
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.db")
	if _, err := OpenReadOnly(missing); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("missing: %v, want ErrNoDatabase", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReadOnly created the file: %v", err)
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(empty); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("empty: %v, want ErrNoDatabase", err)
	}

	path := filepath.Join(dir, "claude-mem.db")
	rw, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	addEvents(t, rw, session("s", "p"), 0, 3)
	rw.Close()

	db, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if c, err := db.Counts(ctx); err != nil || c.Pending != 3 {
		t.Errorf("Counts = %+v, %v; want 3 pending", c, err)
	}
	if err := db.Integrity(ctx); err != nil {
		t.Errorf("Integrity: %v", err)
	}
	if hits, err := db.Search(ctx, "ls", "p", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search = %v, %v; want no hits, no error", hits, err)
	}
	if n, err := db.StaleSessions(ctx, at(10)); err != nil || len(n) != 1 {
		t.Errorf("StaleSessions = %v, %v; want [s]", n, err)
	}
	ingestOne := func(r Captured) error { _, err := db.Ingest(ctx, []Captured{r}); return err }
	writes := map[string]error{
		"ingest a start":  ingestOne(Captured{Kind: CaptureStart, Session: session("s2", "p")}),
		"ingest an event": ingestOne(Captured{Kind: CaptureEvent, Session: session("s2", "p"), Event: Event{At: t0}}),
		"ingest an end":   ingestOne(Captured{Kind: CaptureEnd, Session: session("s", "p"), At: t0}),
	}
	for name, err := range writes {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", name, err)
		}
	}
	if _, err := db.sql.Exec("DELETE FROM events"); err == nil {
		t.Error("a raw write through the read-only connection succeeded")
	}
}

func TestErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&SchemaVersionError{Have: 3, Want: 1}, "schema version 3 is newer than this claude-mem's 1; upgrade claude-mem"},
		{&SchemaVersionError{Have: 1, Want: 2}, "schema version 1 is older than this claude-mem's 2"},
		{&UnavailableError{Path: "/d/claude-mem.db", Err: errors.New("file is not a database")},
			"store: database /d/claude-mem.db unavailable: file is not a database"},
		{&IntegrityError{Problems: []string{"page 3 is never used", "x"}},
			"store: integrity check failed: 2 problem(s), first: page 3 is never used"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestOpenSetsApplicationID: a database Open creates carries claude-mem's application id.
func TestOpenSetsApplicationID(t *testing.T) {
	db, path := openTest(t)
	db.Close()
	if id := headerID(t, path); id != ApplicationID {
		t.Errorf("application_id %#x, want %#x", id, ApplicationID)
	}
}

// TestOpenRefusesAForeignDatabase: another program's SQLite file at the path (or behind a
// symlink there) is refused by Open and OpenReadOnly before any connection that could change
// it: not migrated, not switched to WAL, byte for byte the same, nothing created beside it.
// A symlink is refused as one (a *private.Error), before the file behind it is read.
func TestOpenRefusesAForeignDatabase(t *testing.T) {
	for _, c := range []struct {
		name, sql string
	}{
		{"other tables, no id", "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('a')"},
		{"other tables, user_version set", "CREATE TABLE accounts (id INTEGER); PRAGMA user_version = 2"},
		{"our table names, another application's id", migrations[0].sql + "; PRAGMA user_version = 1; PRAGMA application_id = 1234"},
	} {
		for _, link := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/symlink=%v", c.name, link), func(t *testing.T) {
				dir := t.TempDir()
				real := filepath.Join(dir, "other.sqlite")
				raw, err := sql.Open("sqlite", "file:"+real)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := raw.Exec(c.sql); err != nil {
					t.Fatal(err)
				}
				raw.Close()
				path := real
				if link {
					path = filepath.Join(dir, "claude-mem.db")
					if err := os.Symlink(real, path); err != nil {
						t.Fatal(err)
					}
				}
				before := readFile(t, real)
				for name, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
					db, err := open(path)
					var u *UnavailableError
					var pe *private.Error
					if !errors.As(err, &u) || (link && !errors.As(err, &pe)) || (!link && !errors.Is(err, ErrForeign)) {
						if db != nil {
							db.Close()
						}
						t.Errorf("%s: %v, want *UnavailableError wrapping ErrForeign (a symlink: *private.Error)", name, err)
					}
				}
				if !bytes.Equal(readFile(t, real), before) {
					t.Error("the foreign database was changed")
				}
				for _, suffix := range []string{"-wal", "-shm", "-journal"} {
					if _, err := os.Stat(real + suffix); err == nil {
						t.Errorf("%s appeared beside it", filepath.Base(real+suffix))
					}
				}
			})
		}
	}
}

// TestOpenAdoptsAnUnmarkedClaudeMemDatabase: a claude-mem database from before the
// application id (our tables, user_version ≥ 1, id 0) is ours: Open sets the id and keeps
// its rows (TestOpenMigratesAVersionOneDatabase migrates one).
func TestOpenAdoptsAnUnmarkedClaudeMemDatabase(t *testing.T) {
	db, path := openTest(t)
	addEvents(t, db, session("s", "p"), 0, 2)
	if _, err := db.sql.Exec("PRAGMA application_id = 0"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if id := headerID(t, path); id != 0 {
		t.Fatalf("setup: id %#x", id)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open of an unmarked claude-mem database: %v", err)
	}
	if n := count(t, db, "SELECT count(*) FROM events"); n != 2 {
		t.Errorf("%d events after adoption, want 2", n)
	}
	db.Close()
	if id := headerID(t, path); id != ApplicationID {
		t.Errorf("application_id %#x after Open, want %#x", id, ApplicationID)
	}
}

// TestOpenRemovesStaleCreationFiles: a process killed while creating the database leaves
// <db>.new-* (and its -wal, -shm, -journal); an open with a clock removes those older than
// a minute by that clock and leaves younger ones (a creation in progress) alone, and an
// open without one removes none.
func TestOpenRemovesStaleCreationFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "claude-mem.db")
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	old, young := now.Add(-2*staleCreation), now.Add(-staleCreation/2)
	var stale, fresh []string
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		stale = append(stale, path+".new-111"+suffix)
		fresh = append(fresh, path+".new-222"+suffix)
	}
	for _, p := range append(slices.Clone(stale), fresh...) {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range stale {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range fresh {
		if err := os.Chtimes(p, young, young); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, p := range stale {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("an open without a clock removed %s: %v", filepath.Base(p), err)
		}
	}
	db, err = OpenWith(path, OpenOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	for _, p := range fresh {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a fresh creation file was removed: %v", err)
		}
	}
}

// TestCreateKilledLeavesLitterThatOpenCleans: a real process SIGKILLed in the middle of
// creating the database leaves creation files; once they are a minute old the next Open
// removes them.
func TestCreateKilledLeavesLitterThatOpenCleans(t *testing.T) {
	if os.Getenv("STORE_CREATE_HELPER") != "" {
		createSlowly(os.Getenv("STORE_CREATE_HELPER"))
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "claude-mem.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateKilledLeavesLitterThatOpenCleans$")
	cmd.Env = append(os.Environ(), "STORE_CREATE_HELPER="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var litter []string
	testkit.Within(20*time.Second, func() bool { litter, _ = filepath.Glob(path + ".new-*"); return len(litter) > 0 })
	cmd.Process.Kill()
	cmd.Wait()
	litter, _ = filepath.Glob(path + ".new-*") // what the kill left, asserted: the wait only bounds it
	if len(litter) == 0 {
		t.Fatal("the killed creation left nothing to clean (the test did not kill it mid-way)")
	}
	now := time.Now()
	old := now.Add(-2 * staleCreation)
	for _, p := range litter {
		os.Chtimes(p, old, old)
	}
	db, err := OpenWith(path, OpenOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if left, _ := filepath.Glob(path + ".new-*"); len(left) != 0 {
		t.Errorf("litter left after Open: %v", left)
	}
}

// createSlowly creates the database at path, then hangs inside create (its hook point) so
// the parent can kill it there.
func createSlowly(path string) {
	afterCreateConnect = func() { time.Sleep(time.Minute) }
	Open(path)
}

func headerID(t *testing.T, path string) uint32 {
	t.Helper()
	b := readFile(t, path)
	if len(b) < 100 {
		t.Fatalf("%s: %d bytes", path, len(b))
	}
	return binary.BigEndian.Uint32(b[68:72])
}

// TestOpenRefusesWhatOthersCouldWrite: a database, or SQLite's file beside it, that another
// user could have written (or swapped for a symlink) is refused by Open and OpenReadOnly
// before SQLite reads it (a planted -wal would be replayed into the database); the control
// is the same files as the user's own.
func TestOpenRefusesWhatOthersCouldWrite(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(path string)
	}{
		{"control", func(string) {}},
		{"the database writable by others", func(p string) { os.Chmod(p, 0o666) }},
		{"its -wal writable by others", func(p string) { os.WriteFile(p+"-wal", nil, 0o600); os.Chmod(p+"-wal", 0o666) }},
		{"its -shm a symlink", func(p string) { os.Symlink(p+".elsewhere", p+"-shm") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "claude-mem.db")
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			c.plant(path)
			for name, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
				db, err := open(path)
				var pe *private.Error
				if c.name == "control" {
					if err != nil && !errors.Is(err, ErrNoDatabase) {
						t.Errorf("control: %s: %v", name, err)
					}
				} else if !errors.As(err, &pe) {
					t.Errorf("%s: %v; want *private.Error", name, err)
				}
				if db != nil {
					db.Close()
				}
			}
		})
	}
}
