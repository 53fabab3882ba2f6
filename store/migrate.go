package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// backupInfix names a heavy migration's backup: <db>.backup-v<version>-<random>, beside the
// database, 0600.
const backupInfix = ".backup-"

// migrateOptions is how migrate may run.
type migrateOptions struct {
	hook    bool          // stop before a heavy step, and leave owed clean-up (OpenOptions.Hook)
	fresh   bool          // a database being created: nothing to back up or vacuum
	busy    time.Duration // the connection's own lock wait, restored after migrating
	backups []string      // backups OpenWith found beside the database: a clean-up is owed
}

// deferral is what migrate left for a process that may take its time.
type deferral int

const (
	nothingDeferred deferral = iota
	cleanupDeferred          // the schema is current; a vacuum and backups' removal are owed
	stepsDeferred            // a heavy step is pending: the database is not usable yet
)

// migrate brings the schema to len(list), one transaction per step, re-reading the
// version under the write lock because another process may be migrating too. Before a
// heavy step it backs the database up; after the last step, when a heavy one ran or a
// backup was found (a migration killed before its clean-up), it cleans up: see cleanUp.
// A crash at any point leaves the database as its last commit left it, and a backup that
// the next successful migration or clean-up removes.
func (db *DB) migrate(ctx context.Context, list []step, o migrateOptions) (deferral, error) {
	have, err := userVersion(ctx, db.sql)
	if err != nil {
		return nothingDeferred, err
	}
	if have > len(list) {
		return nothingDeferred, &SchemaVersionError{Have: have, Want: len(list)}
	}
	if have < len(list) && !o.hook && !o.fresh {
		// Another process's migration may be a heavy one: wait for it, not BusyTimeout.
		if err := db.setBusy(ctx, UpgradeBusyTimeout); err != nil {
			return nothingDeferred, err
		}
		defer db.setBusy(ctx, o.busy)
	}
	heavyRan := false
	for have < len(list) {
		s := list[have]
		if s.heavy && o.hook {
			return stepsDeferred, nil
		}
		if s.heavy && !o.fresh {
			if err := db.backup(ctx, have+1); err != nil {
				return nothingDeferred, fmt.Errorf("migration %d: backup first: %w", have+1, err)
			}
		}
		want := have
		err := db.write(ctx, func(tx *sql.Tx) error {
			if have, err = userVersion(ctx, tx); err != nil || have != want {
				return err // another process migrated meanwhile: look at the step again
			}
			if err := s.apply(ctx, tx, filepath.Dir(db.path)); err != nil {
				return fmt.Errorf("migration %d: %w", have+1, err)
			}
			if s.heavy {
				inHeavyStep()
			}
			have++
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", have))
			return err
		})
		if err != nil {
			return nothingDeferred, err
		}
		heavyRan = heavyRan || s.heavy && have > want
	}
	if have > len(list) {
		return nothingDeferred, &SchemaVersionError{Have: have, Want: len(list)}
	}
	switch {
	case o.fresh || !heavyRan && len(o.backups) == 0:
		return nothingDeferred, nil
	case o.hook:
		return cleanupDeferred, nil
	}
	// Another process may have cleaned up meanwhile (it ran the migration, or was already
	// cleaning up what this one found): only backups still there make it owed. The
	// migration has committed; a failed clean-up is retried by the next open (the backups
	// are still there), and does not make the database unusable.
	if heavyRan || len(leftovers(db.path, time.Time{})) > 0 {
		_ = db.cleanUp(ctx)
	}
	return nothingDeferred, nil
}

// inHeavyStep runs inside a heavy step's transaction, before its commit; a test kills a
// process there.
var inHeavyStep = func() {}

func (s step) apply(ctx context.Context, tx *sql.Tx, dataDir string) error {
	if s.run != nil {
		return s.run(ctx, tx, dataDir)
	}
	_, err := tx.ExecContext(ctx, s.sql)
	return err
}

func (db *DB) setBusy(ctx context.Context, d time.Duration) error {
	_, err := db.sql.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", d.Milliseconds()))
	return err
}

// backup copies the database as it is to a new file beside it (0600), for the migration
// to version: VACUUM INTO writes a consistent snapshot without blocking other readers or
// writers. A copy that failed (a full disk) is removed, so retries do not pile them up.
func (db *DB) backup(ctx context.Context, version int) error {
	f, err := os.CreateTemp(filepath.Dir(db.path), fmt.Sprintf("%s%sv%d-*", filepath.Base(db.path), backupInfix, version))
	if err != nil {
		return err
	}
	err = f.Close()
	if err == nil {
		_, err = db.sql.ExecContext(ctx, "VACUUM INTO ?", f.Name())
	}
	if err != nil {
		os.Remove(f.Name())
		os.Remove(f.Name() + "-journal")
	}
	return err
}

// cleanUp is what follows a committed heavy step: Vacuum, so the replaced text is left in
// no free page, FTS segment or WAL frame, then the removal of every backup (the
// migration's and those earlier ones left), which hold the old text too. A backup goes only
// once the file holds none of it, since its presence is what tells the next open that the
// clean-up is owed.
func (db *DB) cleanUp(ctx context.Context) error {
	if err := db.Vacuum(ctx); err != nil {
		return err
	}
	var errs []error
	for _, b := range leftovers(db.path, time.Time{}) {
		for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
			if err := os.Remove(b + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
