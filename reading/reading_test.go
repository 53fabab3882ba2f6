package reading_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/reading"
	"github.com/claude-mem/claude-mem-go/store"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// memory is a data dir's memory whose ingestion is the journal's own, counted.
func memory(t *testing.T) (reading.Memory, *int) {
	t.Helper()
	data := t.TempDir()
	j := journal.New(data, "", filepath.Join(t.TempDir(), "cache"), t.TempDir(), "", func() time.Time { return t0 })
	ingests := 0
	return reading.Memory{
		Journal: j,
		IngestInto: func(ctx context.Context, db *store.DB) error {
			ingests++
			_, err := j.Ingest(ctx, db)
			return err
		},
		DBPath: filepath.Join(data, "claude-mem.db"),
		Log:    zerolog.Nop(),
	}, &ingests
}

func prompts(t *testing.T, db *store.DB, session string) int {
	t.Helper()
	ps, err := db.SessionPrompts(context.Background(), session, 10)
	if err != nil {
		t.Fatal(err)
	}
	return len(ps)
}

// Nothing captured: no database is made, no ingestion runs, and every reader gets
// ErrNoDatabase.
func TestOpenWithNothingCaptured(t *testing.T) {
	m, ingests := memory(t)
	db, err := m.Open(context.Background(), "test")
	if !errors.Is(err, store.ErrNoDatabase) || db != nil || *ingests != 0 {
		t.Fatalf("Open of an empty data dir: %v, %v, %d ingestions; want ErrNoDatabase and none", db, err, *ingests)
	}
	if _, err := os.Stat(m.DBPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a reader made a database: %v", err)
	}
}

// What waits in the journal is stored before the database is opened for reading, even
// when there is no database yet; once stored, the next open ingests nothing.
func TestOpenStoresWhatWaits(t *testing.T) {
	m, ingests := memory(t)
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Cwd: "/w/p", Text: "hello", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	db, err := m.Open(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if n := prompts(t, db, "s1"); n != 1 || *ingests != 1 {
		t.Errorf("after Open: %d prompts, %d ingestions; want the waiting prompt, ingested once", n, *ingests)
	}
	db.Close()
	if db, err = m.Open(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if *ingests != 1 {
		t.Errorf("control: %d ingestions after a second Open with nothing waiting, want still 1", *ingests)
	}
}

// A failed ingestion does not stop reading: the reader gets what was stored before, and
// the records stay in the journal for the next one.
func TestOpenReadsOnWhenIngestionFails(t *testing.T) {
	m, _ := memory(t)
	ingest := m.IngestInto
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Cwd: "/w/p", Text: "stored", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	if err := m.Ingest(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s2", Project: "p", Cwd: "/w/p", Text: "waiting", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	m.IngestInto = func(context.Context, *store.DB) error { return errors.New("disk on fire") }
	db, err := m.Open(context.Background(), "test")
	if err != nil {
		t.Fatalf("Open with a failing ingestion: %v", err)
	}
	if got := [2]int{prompts(t, db, "s1"), prompts(t, db, "s2")}; got != [2]int{1, 0} {
		t.Errorf("prompts of s1, s2 read: %v, want the stored one only", got)
	}
	db.Close()
	if !m.Journal.Waiting() {
		t.Error("the record that failed to ingest is gone from the journal")
	}
	m.IngestInto = ingest
	if db, err = m.Open(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := prompts(t, db, "s2"); n != 1 {
		t.Errorf("control: %d prompts of s2 once ingestion works, want 1", n)
	}
}

// TestPlantedDatabaseRefused: a claude-mem.db that is a symlink to another user's file, or
// one others can write, is neither read nor written: a captured prompt is not ingested
// into it (it waits in the journal), and the reader gets the *private.Error. The control
// is the user's own database, read with the prompt in it.
func TestPlantedDatabaseRefused(t *testing.T) {
	for _, plant := range []string{"control", "symlink", "writable by others"} {
		t.Run(plant, func(t *testing.T) {
			m, _ := memory(t)
			theirs := filepath.Join(t.TempDir(), "theirs.db")
			db, err := store.Open(theirs)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			switch plant {
			case "control": // the user's own database, made by the ingestion below
				theirs = m.DBPath
			case "symlink":
				os.Symlink(theirs, m.DBPath)
			case "writable by others":
				os.Rename(theirs, m.DBPath)
				os.Chmod(m.DBPath, 0o666)
				theirs = m.DBPath
			}
			before, _ := os.ReadFile(theirs)
			if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Cwd: "/", Text: "the victim's prompt"}); err != nil {
				t.Fatal(err)
			}
			db, err = m.Open(context.Background(), "test")
			var pe *private.Error
			if plant == "control" {
				if err != nil || prompts(t, db, "s") != 1 {
					t.Fatalf("control: %v", err)
				}
				db.Close()
				return
			}
			if !errors.As(err, &pe) || db != nil {
				t.Fatalf("a planted database opened: %v", err)
			}
			if after, _ := os.ReadFile(theirs); string(after) != string(before) {
				t.Errorf("the planted database was written")
			}
			if !m.Journal.Waiting() {
				t.Errorf("the prompt left the journal")
			}
		})
	}
}
