package memory_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/store"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// newMemory is a data dir's memory whose ingestion is the journal's own, counted. The
// data dir is made by the first write.
func newMemory(t *testing.T) (memory.Memory, *int) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	j := journal.New(data, "", filepath.Join(t.TempDir(), "cache"), t.TempDir(), "", func() time.Time { return t0 })
	ingests := 0
	return memory.Memory{
		DataDir: data,
		Journal: j,
		IngestInto: func(ctx context.Context, db *store.DB) error {
			ingests++
			_, err := j.Ingest(ctx, db)
			return err
		},
		Log: zerolog.Nop(),
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

// listing is every path under dir, "" when dir does not exist.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		out = append(out, path)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readers are the reader entries, each as a func that opens and closes.
var readers = map[string]func(m memory.Memory) error{
	"Read": func(m memory.Memory) error {
		db, _, err := m.Read(context.Background(), "test")
		if err == nil {
			db.Close()
		}
		return err
	},
	// ReadAny's nil db, no error, is ErrNoDatabase said as an empty memory.
	"ReadAny": func(m memory.Memory) error {
		db, _, err := m.ReadAny(context.Background(), "test")
		if err == nil && db == nil {
			return store.ErrNoDatabase
		}
		if err == nil {
			db.Close()
		}
		return err
	},
	"ReadStored": func(m memory.Memory) error {
		db, err := m.ReadStored()
		if err == nil {
			db.Close()
		}
		return err
	},
	"Reader.Read": func(m memory.Memory) error {
		r := m.Reader("test")
		defer r.Close()
		_, _, err := r.Read(context.Background())
		return err
	},
	"Reader.Stored": func(m memory.Memory) error {
		r := m.Reader("test")
		defer r.Close()
		_, err := r.Stored()
		return err
	},
}

// Nothing captured, with no data dir or an empty one: every reader gets ErrNoDatabase, no
// ingestion runs and nothing is made. The control: a writer, on the same state, makes the
// data dir and the database.
func TestNothingCapturedReadersMakeNothing(t *testing.T) {
	for _, state := range []string{"no data dir", "empty data dir"} {
		for name, read := range readers {
			t.Run(state+"/"+name, func(t *testing.T) {
				m, ingests := newMemory(t)
				if state == "empty data dir" {
					if err := os.Mkdir(m.DataDir, 0o700); err != nil {
						t.Fatal(err)
					}
				}
				before := listing(t, m.DataDir)
				if err := read(m); !errors.Is(err, store.ErrNoDatabase) || *ingests != 0 {
					t.Fatalf("%s: %v, %d ingestions; want ErrNoDatabase and none", name, err, *ingests)
				}
				if after := listing(t, m.DataDir); !slices.Equal(before, after) {
					t.Errorf("%s made %v (before: %v)", name, after, before)
				}
				db, err := m.OpenWrite()
				if err != nil {
					t.Fatalf("control: OpenWrite: %v", err)
				}
				db.Close()
				if _, err := os.Stat(m.Path()); err != nil {
					t.Errorf("control: no database after OpenWrite: %v", err)
				}
			})
		}
	}
}

// An unusable data dir is its error for every entry, reader or writer: no ingestion runs
// though records wait, and nothing is made.
func TestUnusableDataDir(t *testing.T) {
	unusable := errors.New("the data dir is open to other users")
	entries := map[string]func(m memory.Memory) error{
		"OpenWrite": func(m memory.Memory) error {
			db, err := m.OpenWrite()
			if err == nil {
				db.Close()
			}
			return err
		},
		"Ingest": func(m memory.Memory) error { return m.Ingest(context.Background()) },
		"Write": func(m memory.Memory) error {
			db, err := m.Write(context.Background(), "test")
			if err == nil {
				db.Close()
			}
			return err
		},
	}
	for name, read := range readers {
		entries[name] = read
	}
	for name, open := range entries {
		t.Run(name, func(t *testing.T) {
			m, ingests := newMemory(t)
			if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Cwd: "/", Text: "waiting"}); err != nil {
				t.Fatal(err)
			}
			before := listing(t, m.DataDir)
			m.DataDirErr = unusable
			if err := open(m); !errors.Is(err, unusable) || *ingests != 0 {
				t.Errorf("%s: %v, %d ingestions; want the data dir's error and none", name, err, *ingests)
			}
			if after := listing(t, m.DataDir); !slices.Equal(before, after) {
				t.Errorf("%s made %v (before: %v)", name, after, before)
			}
			m.DataDirErr = nil
			// ReadStored and Reader.Stored store nothing: no database yet is their answer.
			if err := open(m); err != nil && !errors.Is(err, store.ErrNoDatabase) {
				t.Errorf("control: %s on a usable data dir: %v", name, err)
			}
		})
	}
}

// What waits in the journal is stored before the database is opened for reading, even
// when there is no database yet; once stored, the next open ingests nothing.
func TestOpenStoresWhatWaits(t *testing.T) {
	m, ingests := newMemory(t)
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Cwd: "/w/p", Text: "hello", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	db, _, err := m.Read(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if n := prompts(t, db, "s1"); n != 1 || *ingests != 1 {
		t.Errorf("after Open: %d prompts, %d ingestions; want the waiting prompt, ingested once", n, *ingests)
	}
	db.Close()
	if db, _, err = m.Read(context.Background(), "test"); err != nil {
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
	m, _ := newMemory(t)
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
	db, _, err := m.Read(context.Background(), "test")
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
	if db, _, err = m.Read(context.Background(), "test"); err != nil {
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
			m, _ := newMemory(t)
			other := memory.Memory{DataDir: t.TempDir()}
			theirs := other.Path()
			db, err := other.OpenWrite()
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			switch plant {
			case "control": // the user's own database, made by the ingestion below
				theirs = m.Path()
			case "symlink":
				os.MkdirAll(m.DataDir, 0o700)
				os.Symlink(theirs, m.Path())
			case "writable by others":
				os.MkdirAll(m.DataDir, 0o700)
				os.Rename(theirs, m.Path())
				os.Chmod(m.Path(), 0o666)
				theirs = m.Path()
			}
			before, _ := os.ReadFile(theirs)
			if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Cwd: "/", Text: "the victim's prompt"}); err != nil {
				t.Fatal(err)
			}
			db, _, err = m.Read(context.Background(), "test")
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

// A Reader keeps its handle while the file is the same one, and opens the new file once
// it was replaced (a restore): what the new file holds is read.
func TestReaderReopensAReplacedFile(t *testing.T) {
	m, _ := newMemory(t)
	r := m.Reader("test")
	defer r.Close()
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Cwd: "/w/p", Text: "first", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	first, _, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again, _, _ := r.Read(context.Background()); again != first {
		t.Error("a second read of the same file opened another handle")
	}
	other := memory.Memory{DataDir: t.TempDir()}
	db, err := other.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Rename(other.Path(), m.Path()); err != nil {
		t.Fatal(err)
	}
	replaced, err := r.Stored()
	if err != nil {
		t.Fatal(err)
	}
	if replaced == first || prompts(t, replaced, "s1") != 0 {
		t.Error("the reader still reads the replaced file")
	}
	r.Drop(errors.New("not an unavailable database"))
	if again, _ := r.Stored(); again != replaced {
		t.Error("control: Drop of another error dropped the handle")
	}
	r.Drop(&store.UnavailableError{Path: m.Path(), Err: errors.New("corrupt")})
	if again, _ := r.Stored(); again == replaced {
		t.Error("Drop of an unavailable database kept the handle")
	}
}

// A writer command (Write) stores what waits before it writes, and writes on when that
// fails: the records stay in the journal for the next one.
func TestWriteStoresWhatWaitsFirst(t *testing.T) {
	m, ingests := newMemory(t)
	if _, err := m.Journal.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Cwd: "/w/p", Text: "waiting", At: t0.UnixNano()}); err != nil {
		t.Fatal(err)
	}
	ingest := m.IngestInto
	m.IngestInto = func(context.Context, *store.DB) error { return errors.New("disk on fire") }
	db, err := m.Write(context.Background(), "test")
	if err != nil {
		t.Fatalf("Write with a failing ingestion: %v", err)
	}
	if n := prompts(t, db, "s1"); n != 0 || !m.Journal.Waiting() {
		t.Errorf("after a failed ingestion: %d prompts stored, waiting %v; want none stored, the record waiting", n, m.Journal.Waiting())
	}
	db.Close()
	m.IngestInto = ingest
	if db, err = m.Write(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := prompts(t, db, "s1"); n != 1 || *ingests != 1 {
		t.Errorf("control: %d prompts, %d ingestions once ingestion works; want the waiting prompt, ingested once", n, *ingests)
	}
}
