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

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/store"
)

// batchBytes bounds the journal bytes one transaction ingests, so a large backlog (a week
// of a locked database) is stored in bounded memory, batch after batch.
const batchBytes = 32 << 20

// takeoverWait bounds an ingester's wait for an appender that was writing to a file as it
// was claimed: one write.
const takeoverWait = time.Second

// Result is what one Ingest did.
type Result struct {
	Files   int // journal files taken and removed
	Records int // records read
	Added   int // prompts and events newly stored (the rest were stored already)
	Damaged int // lines that were no record (a crash's torn line): dropped, and logged by the caller
}

// Ingest stores every pending record of every journal dir in db. Each file is first
// claimed by renaming it (appenders then start a new file), its records are inserted in
// one transaction with the rest of a batch, and it is removed only after the commit. A
// record stored already (a pass killed between commit and removal) is skipped, so a
// SIGKILL anywhere loses nothing and duplicates nothing. A claim left by a killed ingester
// is taken over by the next pass. On error the claims stay for the next pass.
func (j *Journal) Ingest(ctx context.Context, db *store.DB) (Result, error) {
	var res Result
	var batch []*claim
	size := 0
	defer func() {
		for _, c := range batch {
			c.release()
		}
	}()
	flush := func() error {
		err := j.store(ctx, db, batch, &res)
		for _, c := range batch {
			c.release()
		}
		batch, size = nil, 0
		return err
	}
	files, err := j.list()
	errs := []error{err}
	for _, f := range files {
		c, err := take(ctx, f.dir, f.name)
		if err != nil {
			errs = append(errs, err)
		}
		if c == nil {
			continue
		}
		batch = append(batch, c)
		if size += len(c.data); size >= batchBytes {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if err := flush(); err != nil {
		return res, err
	}
	return res, errors.Join(errs...)
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

// take claims name in dir when it is a journal (renaming it), or takes over a claim a
// killed ingester left. nil, nil: nothing to take (not a journal, or another ingester has it).
func take(ctx context.Context, dir, name string) (*claim, error) {
	path := filepath.Join(dir, name)
	switch {
	case strings.HasSuffix(name, ext):
		to := path + "." + newID()[:12] + claimExt
		if err := os.Rename(path, to); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil // another ingester claimed it first
			}
			return nil, fmt.Errorf("journal: claiming %s: %w", path, err)
		}
		path = to
	case !strings.HasSuffix(name, claimExt):
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // an ingester finished with it meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// An appender that checked the file before our rename writes its line under the lock:
	// waiting for it means reading that line too. A claim found as such is another
	// ingester's while it is locked.
	ok, err := lockfile.TryLockOpen(f)
	if err == nil && !ok && !strings.HasSuffix(name, claimExt) {
		wctx, cancel := context.WithTimeout(ctx, takeoverWait)
		ok, err = lockfile.LockOpen(wctx, f, nil)
		cancel()
	}
	if err != nil || !ok {
		f.Close()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, nil // another ingester is working on it
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

// IngestNoted is Ingest as every ingestion point runs it: dropped lines are logged, and a
// failure is recorded in health.json (SessionStart's notice and doctor give its reason)
// until an ingestion succeeds.
func (j *Journal) IngestNoted(ctx context.Context, db *store.DB, log zerolog.Logger) error {
	res, err := j.Ingest(ctx, db)
	if res.Damaged > 0 {
		log.Error().Int("lines", res.Damaged).Msg("journal lines that held no record dropped (torn by a crash)")
	}
	if res.Records > 0 {
		log.Debug().Int("records", res.Records).Int("added", res.Added).Int("files", res.Files).Msg("capture journal ingested")
	}
	dataDir := filepath.Dir(j.Dir)
	if err != nil {
		log.Error().Err(err).Msg("ingesting the capture journal failed; its records wait for the next pass")
	}
	h, _ := health.Load(dataDir)
	if err == nil && h.IngestError == "" {
		return nil
	}
	now := j.now()
	if uerr := health.Update(dataDir, now, func(h *health.Health) {
		switch {
		case err == nil:
			h.IngestError, h.IngestErrorAt = "", time.Time{}
		case h.IngestError == "":
			h.IngestError, h.IngestErrorAt = err.Error(), now
		default:
			h.IngestError = err.Error() // failing since the first failure
		}
	}); uerr != nil {
		log.Warn().Err(uerr).Msg("recording the journal's ingestion in health.json failed")
	}
	return err
}
