// Package memory is the one way in to the local memory database (DESIGN.md §12, §15) for
// every reader and writer: the CLI's commands, hook mode, the observer, the viewer, the
// MCP server and doctor each take a Memory and open nothing themselves. Its rules, each
// written once here:
//
//   - An unusable data dir (DataDirErr: unknown, not the user's alone, not makeable) is
//     that error for every open, a reader's or a writer's: nothing in it is read or written.
//   - A reader (Read, ReadAny, ReadStored, Reader) creates nothing: a missing data dir or
//     database is store.ErrNoDatabase (ReadAny: a nil db), an empty memory. Read first stores what waits in the capture
//     journal (Ingest): those records were captured, so storing them may make the database.
//   - A writer (OpenWrite: hook mode, the observer, import, forget, upgrade, the MCP
//     server's remember, the viewer's forget; sync's pull later) makes the data dir and
//     the database when they are missing.
//   - Both upgrade a database an older claude-mem wrote (store.OpenWith, OpenReadOnly);
//     hook mode's writes (Hook) leave a heavy one to the detached `hook upgrade`.
package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// Memory is a data dir's memory as readers and writers reach it.
type Memory struct {
	DataDir string
	// DataDirErr is why the data dir cannot be used (settings.Load, settings.EnsureDataDir);
	// every open returns it.
	DataDirErr error
	// Journal is the capture journal, with its fallback dirs; nil: nothing is ever waiting.
	Journal *journal.Journal
	// IngestInto stores what waits in Journal into db and records how that ended (the
	// journal reports its error; cmd/hook keeps it in health.json).
	IngestInto func(ctx context.Context, db *store.DB) error
	Log        zerolog.Logger

	write store.OpenOptions // how a writer opens (Hook); the zero value for the commands
}

// Hook is m as hook mode writes it (DESIGN.md §15): a write waits store.HookBusyTimeout at
// most, and a heavy migration is not run but left to upgrade, which starts the detached
// `hook upgrade` (what the hook captured waits in the capture journal meanwhile). now
// ages what a killed creation left.
func (m Memory) Hook(upgrade func(), now func() time.Time) Memory {
	m.write = store.OpenOptions{Busy: store.HookBusyTimeout, Hook: true, Upgrade: upgrade, Now: now}
	return m
}

// Path is the database's path.
func (m Memory) Path() string { return settings.Layout(m.DataDir).DB() }

// OpenWrite opens the database for writing, making the data dir and the database when
// they are missing and upgrading an older schema: the one entry of every writer.
func (m Memory) OpenWrite() (*store.DB, error) {
	if m.DataDirErr != nil {
		return nil, m.DataDirErr
	}
	if err := settings.EnsureDataDir(m.DataDir); err != nil {
		return nil, err
	}
	return store.OpenWith(m.Path(), m.write)
}

// Write ingests, then opens the database for writing (OpenWrite): the entry of a command
// that writes (import, forget), which so sees what was captured a moment ago. A failed
// ingestion is logged (as by whom) and the write goes on: the records stay in the journal.
func (m Memory) Write(ctx context.Context, by string) (*store.DB, error) {
	if m.DataDirErr != nil {
		return nil, m.DataDirErr
	}
	m.ingestFor(ctx, by)
	return m.OpenWrite()
}

// Ingest stores what waits in the capture journal (DESIGN.md §15). With nothing waiting it
// opens no database.
func (m Memory) Ingest(ctx context.Context) error {
	if m.DataDirErr != nil {
		return m.DataDirErr
	}
	if m.Journal == nil || !m.Journal.Waiting() {
		return nil
	}
	db, err := m.OpenWrite()
	if err != nil {
		return err
	}
	defer db.Close()
	return m.IngestInto(ctx, db)
}

// Read ingests, then opens the database for reading: the one entry of every reader that
// answers from what was captured a moment ago. No database is store.ErrNoDatabase. A
// failed ingestion is logged (as by whom) and reading goes on without what waits: the
// records stay in the journal, and unstored is non-nil when some do (the database is
// locked by another process past the wait, or full), so the database lacks them.
func (m Memory) Read(ctx context.Context, by string) (db *store.DB, unstored *UnstoredError, err error) {
	if m.DataDirErr != nil {
		return nil, nil, m.DataDirErr
	}
	unstored = m.ingestFor(ctx, by)
	db, err = m.ReadStored()
	return db, unstored, err
}

// ReadAny is Read for a reader that shows an empty memory as such (search, stats,
// export): no database is a nil db and no error, and each reads nil as nothing stored
// (hits.WriteNoMemory, stats.Build, archive.Export).
func (m Memory) ReadAny(ctx context.Context, by string) (db *store.DB, unstored *UnstoredError, err error) {
	db, unstored, err = m.Read(ctx, by)
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, unstored, nil
	}
	return db, unstored, err
}

// ReadStored opens the database for reading as it is, storing nothing that waits in the
// journal (doctor reports that backlog as it finds it). No database is store.ErrNoDatabase.
func (m Memory) ReadStored() (*store.DB, error) {
	if m.DataDirErr != nil {
		return nil, m.DataDirErr
	}
	return store.OpenReadOnly(m.Path())
}

// ingestFor is Ingest for a reader or writer named by: a failure is logged, and what it left
// waiting is returned.
func (m Memory) ingestFor(ctx context.Context, by string) *UnstoredError {
	err := m.Ingest(ctx)
	if err == nil {
		return nil
	}
	m.Log.Warn().Err(err).Str("command", by).Msg("ingesting the capture journal failed; reading without what it holds")
	if b, _ := m.Journal.Pending(); b.Records > 0 {
		return &UnstoredError{Records: b.Records, Err: err}
	}
	return nil
}

// UnstoredError is records waiting in the capture journal that ingestion could not store
// (Err says why): a reader of the database alone would answer as if they were not there.
type UnstoredError struct {
	Records int
	Err     error
}

func (e *UnstoredError) Error() string {
	n := fmt.Sprintf("%d captured records wait", e.Records)
	if e.Records == 1 {
		n = "1 captured record waits"
	}
	return fmt.Sprintf("%s in the capture journal, not yet in the database: %v", n, e.Err)
}

func (e *UnstoredError) Unwrap() error { return e.Err }
