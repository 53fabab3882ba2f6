package memory

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/claude-mem/claude-mem-go/store"
)

// Reader is the long-lived reader of a process that answers many reads (the viewer, the
// MCP server): one read-only handle, kept while the file at Path is the same file and
// reopened when it was replaced (an import into a new file, a restore) or appeared. No
// transaction or lock is held between reads. Its rules are Read's.
type Reader struct {
	m  Memory
	by string

	mu sync.Mutex // guards db and fi
	db *store.DB
	fi os.FileInfo
}

// Reader returns the long-lived reader of m, for the reader named by (in the log).
func (m Memory) Reader(by string) *Reader { return &Reader{m: m, by: by} }

// Read ingests, then returns the handle: Memory.Read without an open per call. The handle
// stays r's: the caller does not close it.
func (r *Reader) Read(ctx context.Context) (*store.DB, *UnstoredError, error) {
	if r.m.DataDirErr != nil {
		return nil, nil, r.m.DataDirErr
	}
	unstored := r.m.ingestFor(ctx, r.by)
	db, err := r.Stored()
	return db, unstored, err
}

// Stored returns the handle without ingesting (a poll for what others stored).
func (r *Reader) Stored() (*store.DB, error) {
	if r.m.DataDirErr != nil {
		return nil, r.m.DataDirErr
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	path := r.m.Path()
	fi, err := os.Stat(path)
	if err == nil && r.db != nil && os.SameFile(fi, r.fi) {
		return r.db, nil
	}
	r.closeLocked()
	db, err := r.m.ReadStored()
	if err != nil {
		return nil, err
	}
	if fi, err = os.Stat(path); err != nil {
		db.Close()
		return nil, err
	}
	r.db, r.fi = db, fi
	return db, nil
}

// Drop forgets the handle after a failure that says the file is unusable
// (*store.UnavailableError), so the next read opens it afresh.
func (r *Reader) Drop(err error) {
	var ue *store.UnavailableError
	if !errors.As(err, &ue) {
		return
	}
	r.Close()
}

// Close releases the handle; a later read opens it again.
func (r *Reader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

func (r *Reader) closeLocked() {
	if r.db != nil {
		r.db.Close()
		r.db, r.fi = nil, nil
	}
}
