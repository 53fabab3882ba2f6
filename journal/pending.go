package journal

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/store"
)

// StuckAfter is how long a record may wait in a journal before it is a notice (§11): a
// healthy journal is ingested at the next Stop, within a turn.
const StuckAfter = 10 * time.Minute

// LowSpace is the free space under which the data dir is a notice: SQLite and the journal
// need room to keep new events.
const LowSpace = 64 << 20

// Backlog is what waits in the journal dirs, not yet in the database.
type Backlog struct {
	Records    int
	Files      int
	Oldest     time.Time // the oldest file's first record's capture time; zero when none
	InFallback int       // records waiting in a fallback dir: the data dir refused them
	// Refused are the dirs and files not the user's alone (a planted file, a symlink, a
	// dir others may write): never read, each a *private.Error.
	Refused []error
}

// Stuck reports records that have waited StuckAfter or longer at now.
func (b Backlog) Stuck(now time.Time) bool {
	return b.Records > 0 && !b.Oldest.IsZero() && now.Sub(b.Oldest) >= StuckAfter
}

// Status is what SessionStart and doctor read of the journal, live: what waits, and the
// data dir's free space.
type Status struct {
	Backlog
	Free      uint64 // the data dir's free bytes, when FreeKnown
	FreeKnown bool
	Err       error // a journal dir could not be read
	// Unkept: no place could take a record (Lost, with each place's reason): what the
	// caller's own append, or Probe, found.
	Unkept *AppendError
}

// Low reports a data dir under LowSpace free: new events may not fit.
func (s Status) Low() bool { return s.FreeKnown && s.Free < LowSpace }

// Status reads the backlog (Pending) and, with freeBytes (FreeBytes; nil: not checked),
// the data dir's free space.
func (j *Journal) Status(freeBytes func(dir string) (uint64, error)) Status {
	var s Status
	s.Backlog, s.Err = j.Pending()
	if freeBytes != nil {
		if free, err := freeBytes(filepath.Dir(j.Dir)); err == nil {
			s.Free, s.FreeKnown = free, true
		}
	}
	return s
}

// SessionEvents counts the tool events of one session still in journal files (its
// journal, or an ingester's claim not yet committed), and the oldest record's time. Read
// before the database, it never misses an event an ingester is committing meanwhile: the
// claim is removed only after the commit.
func (j *Journal) SessionEvents(session string) (n int, oldest time.Time) {
	for _, path := range SessionFiles(j.Dirs(), session) {
		data, err := private.ReadFile(path)
		if err != nil {
			continue // ingested meanwhile, or not the user's
		}
		// Within a JSON line a value's quotes are escaped, so this is a record's own kind.
		n += bytes.Count(data, []byte(`"kind":"`+store.CaptureEvent+`"`))
		oldest = older(oldest, firstAt(data))
	}
	return n, oldest
}

func firstAt(data []byte) time.Time {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if at := gjson.GetBytes(first, "at").Int(); at > 0 {
		return time.Unix(0, at)
	}
	return time.Time{}
}

// older is the earlier of two times, a zero time being none.
func older(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Pending reads every journal dir: the records waiting and the oldest one's time. It reads
// the files whole (they are ingested at every Stop, so they are small), and is run by
// SessionStart and doctor, not by the capturing hooks.
func (j *Journal) Pending() (Backlog, error) {
	var b Backlog
	files, refusedDirs, refusedFiles, err := j.list()
	b.Refused = append(refusedDirs, refusedFiles...)
	errs := []error{err}
	for _, f := range files {
		if !f.pending() {
			continue
		}
		data, err := private.ReadFile(filepath.Join(f.dir, f.name))
		var pe *private.Error
		switch {
		case errors.As(err, &pe):
			b.Refused = append(b.Refused, err)
			continue
		case errors.Is(err, fs.ErrNotExist): // ingested meanwhile
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		}
		n := bytes.Count(data, []byte("\n"))
		if n == 0 {
			continue
		}
		b.Records += n
		b.Files++
		if f.fallback {
			b.InFallback += n
		}
		b.Oldest = older(b.Oldest, firstAt(data))
	}
	return b, errors.Join(errs...)
}

// file is one entry of a journal dir.
type file struct {
	dir, name string
	fallback  bool // in a fallback dir, not the data dir's
}

// pending: a journal or a claim of one, not another file.
func (f file) pending() bool {
	return strings.HasSuffix(f.name, ext) || strings.HasSuffix(f.name, claimExt)
}

// Waiting reports whether anything may wait to be ingested, from the dirs' listings alone
// (no file is read): what a reader asks before it opens the database to ingest. An
// unreadable dir is waiting: Ingest then says why.
func (j *Journal) Waiting() bool {
	files, _, _, err := j.list()
	return err != nil || slices.ContainsFunc(files, file.pending)
}

// list is every entry of every journal dir; a dir that does not exist has none, one that
// cannot be read is an error and the others are still listed. A journal dir, or a pending
// file, that is not the user's alone is refused (each a *private.Error; dirs: a fallback
// another user made first, files: a planted one): not listed, so never read. The legacy
// dir is listed only when it is the user's alone, and not refused otherwise: no version
// wrote to it then, so nothing of the user's waits there.
func (j *Journal) list() (out []file, refusedDirs, refusedFiles []error, err error) {
	var errs []error
	for i, d := range j.Dirs() {
		if err := j.checkDir(i, false); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			var pe *private.Error
			if !(i > len(j.Fallbacks) && errors.As(err, &pe)) {
				refusedDirs = append(refusedDirs, err)
			}
			continue
		}
		entries, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			f := file{dir: d, name: e.Name(), fallback: i > 0}
			if f.pending() {
				fi, err := e.Info() // an lstat: a symlink is seen as one
				if errors.Is(err, fs.ErrNotExist) {
					continue // ingested meanwhile
				}
				if err == nil {
					err = private.Check(filepath.Join(d, f.name), fi)
				}
				if err != nil {
					refusedFiles = append(refusedFiles, err)
					continue
				}
			}
			out = append(out, f)
		}
	}
	return out, refusedDirs, refusedFiles, errors.Join(errs...)
}

// Probe tries each place a record may go, as Append does, with a file created and removed:
// nil when one takes it, else the *AppendError naming every place and its reason. Doctor
// asks it; a hook knows from its own append.
func (j *Journal) Probe() *AppendError {
	ae := &AppendError{Lost: true}
	for i, d := range j.places() {
		err := j.checkDir(i, true)
		if i == 0 && errors.Is(err, fs.ErrNotExist) {
			// Made for the probe, then removed innermost first: doctor makes nothing. A dir
			// a hook wrote to meanwhile is not empty, so it stays.
			var made []string
			for m := d; !exists(m); m = filepath.Dir(m) {
				made = append(made, m)
			}
			defer func() {
				for _, m := range made {
					os.Remove(m)
				}
			}()
			if err = os.MkdirAll(d, 0o700); err == nil {
				err = j.checkDir(0, false)
			}
		}
		var f *os.File
		if err == nil {
			f, err = os.CreateTemp(d, ".probe-*")
		}
		if err == nil {
			f.Close()
			os.Remove(f.Name())
			return nil
		}
		ae.Dirs = append(ae.Dirs, d)
		ae.Errs = append(ae.Errs, err)
	}
	return ae
}

// exists: something is at path (a dir that cannot be looked at counts, so nothing above
// it is taken for missing).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
