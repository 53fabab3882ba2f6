package journal

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/store"
)

// batchBytes bounds the journal bytes one transaction ingests, so a large backlog (a week
// of a locked database) is stored in bounded memory, batch after batch.
const batchBytes = 32 << 20

// takeoverWait bounds an ingester's wait for a claim's lock: an appender that was writing
// as the file was claimed holds it for one write, another ingester for one transaction.
const takeoverWait = time.Second

// Result is what one Ingest did.
type Result struct {
	Files   int // journal files taken and removed
	Records int // records read
	Added   int // prompts, events and answers newly stored (the rest were stored already)
	Damaged int // lines that were no record (a crash's torn line): dropped, and logged by the caller
	// Refused: files not the user's alone in a dir that is (planted there), never read
	// (each a *private.Error); logged by the caller.
	Refused []error
	// RefusedDirs: journal dirs not the user's alone (a fallback another user made
	// first), never read: not logged, as every pass would log it again; doctor says it
	// once (Pending).
	RefusedDirs []error
}

// Ingest stores every pending record of every journal dir in db. Each file is first
// claimed by renaming it (appenders then start a new file), its records are inserted in
// one transaction with the rest of a batch, and it is removed only after the commit. A
// record stored already (a pass killed between commit and removal) is skipped, so a
// SIGKILL anywhere loses nothing and duplicates nothing. A claim left by a killed ingester
// is taken over. On error the claims stay for the next pass.
//
// Claims another ingester holds are waited for once this pass has committed its own (two
// ingesters never wait for each other while holding claims): when one lets go, its records
// are committed (its file is gone) or it failed (the file is left, and taken here). So a
// reader after Ingest misses nothing another process was storing at the same moment,
// unless that one's database wait runs past takeoverWait.
func (j *Journal) Ingest(ctx context.Context, db *store.DB) (Result, error) {
	var res Result
	var batch []*claim
	size := 0
	defer func() {
		for _, c := range batch {
			c.release()
		}
	}()
	add := func(c *claim) error {
		batch = append(batch, c)
		if size += len(c.data); size < batchBytes {
			return nil
		}
		return j.flush(ctx, db, &batch, &size, &res)
	}
	files, refusedDirs, refusedFiles, err := j.list()
	res.Refused, res.RefusedDirs = refusedFiles, refusedDirs
	errs := []error{err}
	var others []string
	for _, f := range files {
		path := filepath.Join(f.dir, f.name)
		switch {
		case strings.HasSuffix(f.name, ext):
			to := path + "." + newID()[:12] + claimExt
			if err := os.Rename(path, to); errors.Is(err, fs.ErrNotExist) {
				// Another ingester claimed it first, under a name this pass did not list.
				others = append(others, claimsOf(f.dir, f.name)...)
				continue
			} else if err != nil {
				errs = append(errs, fmt.Errorf("journal: claiming %s: %w", path, err))
				continue
			}
			// An appender that checked the file before the rename writes its line under
			// the lock: waiting for it means reading that line too.
			c, err := open(ctx, to, true)
			errs = append(errs, err)
			if c != nil {
				if err := add(c); err != nil {
					return res, err
				}
			}
		case strings.HasSuffix(f.name, claimExt):
			c, err := open(ctx, path, false)
			errs = append(errs, err)
			if c == nil && err == nil {
				others = append(others, path) // held by another ingester
			} else if c != nil {
				if err := add(c); err != nil {
					return res, err
				}
			}
		}
	}
	if err := j.flush(ctx, db, &batch, &size, &res); err != nil {
		return res, err
	}
	for _, path := range others {
		c, err := open(ctx, path, true)
		errs = append(errs, err)
		if c != nil {
			if err := add(c); err != nil {
				return res, err
			}
		}
	}
	if err := j.flush(ctx, db, &batch, &size, &res); err != nil {
		return res, err
	}
	return res, errors.Join(errs...)
}

// flush stores the batch and releases its claims.
func (j *Journal) flush(ctx context.Context, db *store.DB, batch *[]*claim, size *int, res *Result) error {
	err := j.store(ctx, db, *batch, res)
	for _, c := range *batch {
		c.release()
	}
	*batch, *size = nil, 0
	return err
}

// claim is a journal file renamed for ingestion, locked, and read.
type claim struct {
	path string
	f    *os.File
	data []byte
	keep bool // holds a line of a later version: left for that version
}

func (c *claim) release() {
	if c.f != nil {
		lockfile.UnlockOpen(c.f)
		c.f.Close()
		c.f = nil
	}
}

// claimsOf lists the claims taken of the journal file name in dir: <name>.<id>.ingesting.
func claimsOf(dir, name string) []string {
	entries, _ := os.ReadDir(dir) // unreadable: no claim to wait for
	var out []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, name+".") && strings.HasSuffix(n, claimExt) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// open locks and reads a claim; wait: for up to takeoverWait (an appender holds the lock
// for one write, another ingester until it has committed and removed the file). nil, nil:
// the file is gone (stored by the ingester that held it), or still held.
func open(ctx context.Context, path string, wait bool) (*claim, error) {
	f, err := private.Open(path, os.O_RDWR)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	ok, err := lockfile.TryLockOpen(f)
	if err == nil && !ok && wait {
		wctx, cancel := context.WithTimeout(ctx, takeoverWait)
		ok, err = lockfile.LockOpen(wctx, f, nil)
		cancel()
	}
	if err != nil || !ok {
		f.Close()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, nil // another ingester is still working on it: its records wait
		}
		return nil, fmt.Errorf("journal: lock %s: %w", path, err)
	}
	c := &claim{path: path, f: f}
	if _, err := os.Stat(path); err != nil {
		c.release() // removed by the ingester that held it before us
		return nil, nil
	}
	if c.data, err = io.ReadAll(f); err != nil {
		c.release()
		return nil, fmt.Errorf("journal: reading %s: %w", path, err)
	}
	return c, nil
}

// store inserts the batch's records in one transaction, then removes its files.
func (j *Journal) store(ctx context.Context, db *store.DB, batch []*claim, res *Result) error {
	if len(batch) == 0 {
		return nil
	}
	var recs []store.Captured
	damaged := 0
	for _, c := range batch {
		for line := range bytes.Lines(c.data) {
			if !bytes.HasSuffix(line, []byte("\n")) {
				damaged++ // a torn last line: its appender died mid-write (it held the lock)
				continue
			}
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				damaged++
				continue
			}
			if r.V > Version {
				c.keep = true
				continue
			}
			rc, err := r.captured()
			if err != nil {
				damaged++
				continue
			}
			recs = append(recs, rc)
		}
	}
	// In the order of capture, each session's end after its other records: a session's
	// records may come from several files read in name order (a claim a failed pass left
	// sorts after the session's new journal, a fallback dir is read after the data dir),
	// and an end stored before its session's row records nothing, one stored before its
	// events owes no summary, and a session's first record stored sets its start.
	slices.SortStableFunc(recs, func(a, b store.Captured) int {
		return cmp.Or(cmp.Compare(b2i(a.Kind == store.CaptureEnd), b2i(b.Kind == store.CaptureEnd)), a.At.Compare(b.At))
	})
	added, err := db.Ingest(ctx, recs)
	if err != nil {
		return err
	}
	res.Records += len(recs)
	res.Added += added
	res.Damaged += damaged
	for _, c := range batch {
		if c.keep {
			continue
		}
		if err := os.Remove(c.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			res.Files++
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// captured is the record as the store takes it; a record missing what the store requires
// is an error (it would fail its whole transaction, every pass).
func (r Record) captured() (store.Captured, error) {
	if r.ID == "" || r.Session == "" || r.At <= 0 {
		return store.Captured{}, errors.New("record without an id, a session or a time")
	}
	at := time.Unix(0, r.At)
	c := store.Captured{
		Kind: r.Kind, At: at, Final: r.Final, Day: r.Day, Redacted: r.Redacted,
		Session: store.Session{ID: r.Session, Project: r.Project, Cwd: r.Cwd, StartedAt: at},
	}
	switch r.Kind {
	case store.CaptureStart, store.CaptureEnd:
	case store.CapturePrompt:
		c.Prompt = store.Prompt{SessionID: r.Session, Project: r.Project, Text: r.Text, At: at, RecordID: r.ID}
	case store.CaptureAnswer:
		c.Answer = store.Answer{SessionID: r.Session, Project: r.Project, Text: r.Text, At: at, RecordID: r.ID}
	case store.CaptureEvent:
		c.Event = store.Event{
			SessionID: r.Session, Project: r.Project, Hook: r.Hook, ToolName: r.Tool, ToolUseID: r.ToolUseID,
			Input: r.Input, Response: r.Response, IsError: r.IsError, Cwd: r.Cwd, At: at,
			State: store.StatePending, RecordID: r.ID,
		}
	default:
		return store.Captured{}, fmt.Errorf("unknown record kind %q", r.Kind)
	}
	return c, nil
}

// IngestNoted is Ingest as every ingestion point runs it: dropped lines and a failure are
// logged, and the failure returned for the caller to record (health.RecordIngest: the
// notice and doctor give its reason).
func (j *Journal) IngestNoted(ctx context.Context, db *store.DB, log zerolog.Logger) error {
	res, err := j.Ingest(ctx, db)
	for _, r := range res.Refused {
		log.Error().Err(r).Msg("capture journal refused: not yours alone; nothing read from it")
	}
	if res.Damaged > 0 {
		log.Error().Int("lines", res.Damaged).Msg("journal lines that held no record dropped (torn by a crash)")
	}
	if res.Records > 0 {
		log.Debug().Int("records", res.Records).Int("added", res.Added).Int("files", res.Files).Msg("capture journal ingested")
	}
	if err != nil {
		log.Error().Err(err).Msg("ingesting the capture journal failed; its records wait for the next pass")
	}
	return err
}
