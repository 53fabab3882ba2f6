package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openAt makes a claude-mem database at path migrated by list only (an older build's
// schema), closed when the test ends.
func openAt(t testing.TB, path string, list []step) *DB {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := connect(path, false, BusyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.migrate(context.Background(), list, migrateOptions{fresh: true, busy: BusyTimeout}); err != nil {
		t.Fatal(err)
	}
	return db
}

// backups lists the heavy migrations' backups beside path.
func backups(t testing.TB, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + backupInfix + "*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A heavy step runs after a backup (0600, beside the database, a copy of it as it was)
// and in its own transaction; once it commits, the backup is gone. A failing heavy step
// leaves the database as it was and its backup, which the next successful migration
// removes along with its own. A light step takes none.
func TestHeavyStepBackupLifecycle(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	cur := len(migrations)
	var during []string
	mark := func(table string) func(context.Context, *sql.Tx, string) error {
		return func(ctx context.Context, tx *sql.Tx, dataDir string) error {
			if dataDir != filepath.Dir(path) {
				t.Errorf("dataDir %q, want %q", dataDir, filepath.Dir(path))
			}
			during = backups(t, path)
			for _, b := range during {
				fi, err := os.Stat(b)
				if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
					t.Errorf("backup %s: %v, %v; want a non-empty 0600 file", b, fi, err)
				}
			}
			_, err := tx.ExecContext(ctx, "CREATE TABLE "+table+" (x)")
			return err
		}
	}
	fail := step{heavy: true, run: func(ctx context.Context, tx *sql.Tx, _ string) error {
		if _, err := tx.ExecContext(ctx, "CREATE TABLE half (x)"); err != nil {
			return err
		}
		return errors.New("killed mid-migration")
	}}

	list := append(slices.Clone(migrations), step{sql: "CREATE TABLE light (x)"}, fail)
	if _, err := db.migrate(ctx, list, migrateOptions{busy: BusyTimeout}); err == nil || !strings.Contains(err.Error(), "killed mid-migration") {
		t.Fatalf("migrate with a failing heavy step: %v", err)
	}
	if v := count(t, db, "PRAGMA user_version"); v != cur+1 {
		t.Fatalf("user_version %d, want %d (the light step kept, the heavy one rolled back)", v, cur+1)
	}
	if count(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = 'half'") != 0 {
		t.Error("the failed heavy step's table exists")
	}
	left := backups(t, path)
	if len(left) != 1 {
		t.Fatalf("after a failed heavy step: backups %v, want its one", left)
	}
	// The backup is the database before the step: a claude-mem database at cur+1.
	if b, err := connect(left[0], true, BusyTimeout); err != nil {
		t.Fatal(err)
	} else if v, err := userVersion(ctx, b.sql); err != nil || v != cur+1 {
		t.Errorf("backup's user_version %d, %v; want %d", v, err, cur+1)
	} else {
		b.Close()
	}

	list = append(list[:cur+1], step{heavy: true, run: mark("heavy")})
	if _, err := db.migrate(ctx, list, migrateOptions{busy: BusyTimeout, backups: left}); err != nil {
		t.Fatal(err)
	}
	if len(during) != 2 {
		t.Errorf("backups while the step ran: %v, want the earlier one and its own", during)
	}
	if v := count(t, db, "PRAGMA user_version"); v != cur+2 {
		t.Errorf("user_version %d, want %d", v, cur+2)
	}
	if b := backups(t, path); len(b) != 0 {
		t.Errorf("backups after the commit: %v, want none", b)
	}
}

// A hook runs light steps but stops before a heavy one (ErrUpgrading, Upgrade called,
// nothing backed up); any other open runs it. A backup found with the schema current is a
// clean-up owed: a hook opens the database as usual and calls Upgrade, another open
// removes the backup.
func TestHookDefersHeavySteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	last := len(migrations) - 1 // the last heavy step
	for last >= 0 && !migrations[last].heavy {
		last--
	}
	if last < 0 {
		t.Fatal("no heavy migration to defer")
	}
	openAt(t, path, migrations[:last]).Close()

	upgrades := 0
	hook := OpenOptions{Busy: HookBusyTimeout, Hook: true, Upgrade: func() { upgrades++ }}
	db, err := OpenWith(path, hook)
	if !errors.Is(err, ErrUpgrading) || db != nil || upgrades != 1 {
		t.Fatalf("hook open of a database owing a heavy step: %v, %v, %d upgrades; want ErrUpgrading and 1", db, err, upgrades)
	}
	if b := backups(t, path); len(b) != 0 {
		t.Errorf("a hook took a backup: %v", b)
	}
	ro, err := OpenReadOnly(path) // a reader upgrades it
	if err != nil {
		t.Fatalf("OpenReadOnly of an older schema: %v", err)
	}
	if v := count(t, ro, "PRAGMA user_version"); v != len(migrations) {
		t.Errorf("user_version %d after OpenReadOnly, want %d", v, len(migrations))
	}
	ro.Close()

	// A migration killed after its commit, before its clean-up.
	owed := path + backupInfix + "v9-killed"
	if err := os.WriteFile(owed, []byte("old text"), 0o600); err != nil {
		t.Fatal(err)
	}
	upgrades = 0
	if db, err = OpenWith(path, hook); err != nil || upgrades != 1 {
		t.Fatalf("hook open with a clean-up owed: %v, %d upgrades; want the database and 1", err, upgrades)
	}
	db.Close()
	if _, err := os.Stat(owed); err != nil {
		t.Errorf("a hook did the clean-up: %v", err)
	}
	if db, err = Open(path); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(owed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the owed backup is still there after Open: %v", err)
	}
	// Control: nothing owed, nothing pending: a hook calls no upgrade.
	upgrades = 0
	if db, err = OpenWith(path, hook); err != nil || upgrades != 0 {
		t.Fatalf("hook open of a current database: %v, %d upgrades", err, upgrades)
	}
	db.Close()
}
