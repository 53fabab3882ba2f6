// Package reading is every reader's one way in to memory (the CLI's commands, the viewer and
// the MCP server through the funcs they are given): what waits in the capture journal is
// ingested first, so a reader sees what was captured a moment ago, then the database is
// opened read-only, upgraded first when an older claude-mem wrote it (store.OpenReadOnly).
// No database yet is store.ErrNoDatabase, for every reader alike.
package reading

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
)

// Memory is a data dir's memory as readers reach it.
type Memory struct {
	Journal *journal.Journal
	// IngestInto stores what waits in Journal into db and records how that ended (the
	// journal reports its error; cmd/hook keeps it in health.json).
	IngestInto func(ctx context.Context, db *store.DB) error
	DBPath     string
	Log        zerolog.Logger
}

// Ingest stores what waits in the capture journal (DESIGN.md §15). With nothing waiting it
// opens no database.
func (m Memory) Ingest(ctx context.Context) error {
	if !m.Journal.Waiting() {
		return nil
	}
	db, err := store.Open(m.DBPath)
	if err != nil {
		return err
	}
	defer db.Close()
	return m.IngestInto(ctx, db)
}

// Open ingests, then opens the database for reading. A failed ingestion is logged (as
// by whom) and reading goes on without what waits: the records stay in the journal.
func (m Memory) Open(ctx context.Context, by string) (*store.DB, error) {
	db, _, err := m.OpenAll(ctx, by)
	return db, err
}

// OpenAll is Open for a reader that says what it could not read: unstored is non-nil when
// records wait in the journal that the database would not take (it is locked by another
// process past the wait, or full), so the database lacks them.
func (m Memory) OpenAll(ctx context.Context, by string) (db *store.DB, unstored *UnstoredError, err error) {
	if ierr := m.Ingest(ctx); ierr != nil {
		m.Log.Warn().Err(ierr).Str("command", by).Msg("ingesting the capture journal failed; reading without what it holds")
		if b, _ := m.Journal.Pending(); b.Records > 0 {
			unstored = &UnstoredError{Records: b.Records, Err: ierr}
		}
	}
	db, err = store.OpenReadOnly(m.DBPath)
	return db, unstored, err
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
