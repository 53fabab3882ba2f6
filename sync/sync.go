// Package sync runs one exchange of this machine's memory with the sync server (DESIGN §25):
// push what this machine recorded, then pull what the others did, one batch at a time,
// bounded in time, one run at a time per data dir. The local store and the server come in
// as values (Local, Remote), so the policy is tested without either.
package sync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// Local is this machine's memory as sync sees it (the store's Sync* methods).
type Local interface {
	// Outgoing is up to limit records (and tombstones) not yet pushed, oldest first;
	// records the redactor still finds a secret in are held back, never returned.
	Outgoing(ctx context.Context, limit int) ([]wire.Record, error)
	// Mark records what the server did with pushed records.
	Mark(ctx context.Context, p wire.Pushed) error
	// Cursor is how far this machine has pulled from server.
	Cursor(ctx context.Context, server string) (wire.Cursor, error)
	// Apply stores a pulled page and its cursor in one transaction; self is the person
	// this machine syncs as, whose records pulled from their other machines are their own.
	Apply(ctx context.Context, server, self string, page wire.Page) error
}

// Remote is the sync server.
type Remote interface {
	Push(ctx context.Context, recs []wire.Record) (wire.Pushed, error)
	// Pull reads a page of up to limit records. More on a page shorter than limit says
	// records lie beyond what could be read now (a push still running holds them back).
	Pull(ctx context.Context, cursor wire.Cursor, limit int) (wire.Page, error)
	// Person is the server role this connection is: the server makes it every pushed
	// record's author.
	Person() string
}

// Direction is what a run does: a pull after SessionStart, a push after an observer run
// or SessionEnd, both for `claude-mem sync`.
type Direction uint8

const (
	Push Direction = 1 << iota
	Pull
	Both = Push | Pull
)

// directions are the names a detached run is started with (`hook sync-run NAME`).
var directions = map[Direction]string{Push: "push", Pull: "pull", Both: "both"}

func (d Direction) String() string { return directions[d] }

// ParseDirection is the direction named s (push, pull, both).
func ParseDirection(s string) (Direction, bool) {
	for d, name := range directions {
		if name == s {
			return d, true
		}
	}
	return 0, false
}

// DefaultBatch is how many records one push or pull carries: large enough that 100,000
// records take a few hundred round trips, small enough that one batch is quick to redo
// after a kill.
const DefaultBatch = 1000

// Options are one run's bounds.
type Options struct {
	Server   string    // the server as shown (no password): the key of the pull cursor
	Batch    int       // records per push or pull; 0 is DefaultBatch
	Deadline time.Time // no batch starts after it (a detached run is bounded); zero: none
	Now      func() time.Time
	Progress func(Progress) // after each batch; nil: none
}

// Progress is what a run has done so far.
type Progress struct {
	Pushed  int // records the server holds now that it did not before this run
	Refused int // records it refused
	Pulled  int // records pulled (tombstones included)
}

// Result is what a run did. Finished: nothing was left to push and nothing more to pull
// when it ended; otherwise the next run goes on where this one stopped.
type Result struct {
	Progress
	Finished bool
}

// Run pushes (when d has Push), then pulls (when d has Pull). Every batch is complete
// before the next starts: Local marks what the server stored, and stores a pulled page
// with its cursor in one transaction, so a run killed anywhere loses and repeats nothing
// that matters (a push is idempotent). An error stops the run; what it did stays done.
func Run(ctx context.Context, l Local, r Remote, d Direction, o Options) (Result, error) {
	batch := o.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	var res Result
	late := func() bool { return !o.Deadline.IsZero() && !now().Before(o.Deadline) }
	report := func() {
		if o.Progress != nil {
			o.Progress(res.Progress)
		}
	}
	pushed := d&Push == 0
	for !pushed {
		if late() {
			return res, nil
		}
		recs, err := l.Outgoing(ctx, batch)
		if err != nil {
			return res, fmt.Errorf("reading what waits to go: %w", err)
		}
		if len(recs) == 0 {
			break
		}
		p, err := r.Push(ctx, recs)
		if err != nil {
			return res, err
		}
		if len(p.Stored)+len(p.Refused) == 0 {
			// A server that takes nothing and refuses nothing would have this loop ask
			// for the same batch for ever.
			return res, errors.New("the server answered a push with neither stored nor refused records")
		}
		if err := l.Mark(ctx, p); err != nil {
			return res, fmt.Errorf("marking what went: %w", err)
		}
		res.Pushed += len(p.Stored)
		res.Refused += len(p.Refused)
		report()
		pushed = len(recs) < batch
	}
	if d&Pull != 0 {
		for {
			if late() {
				return res, nil
			}
			cur, err := l.Cursor(ctx, o.Server)
			if err != nil {
				return res, fmt.Errorf("reading the pull cursor: %w", err)
			}
			page, err := r.Pull(ctx, cur, batch)
			if err != nil {
				return res, err
			}
			if len(page.Records) > 0 || page.Next != cur {
				if err := l.Apply(ctx, o.Server, r.Person(), page); err != nil {
					return res, fmt.Errorf("storing what was pulled: %w", err)
				}
			}
			res.Pulled += len(page.Records)
			report()
			if !page.More {
				break
			}
			if len(page.Records) < batch {
				// Held back by a push still running: asking again at once would spin until
				// it ends. The run ends unfinished; the next one reads the rest.
				return res, nil
			}
		}
	}
	res.Finished = true
	return res, nil
}

// ErrBusy: another sync run holds this data dir's sync lock.
var ErrBusy = errors.New("another sync is running for this data dir")

// Exclusive takes the data dir's sync lock (path: settings.Layout.SyncLock): at once or
// ErrBusy for a detached run, waiting until ctx ends for a foreground one.
func Exclusive(ctx context.Context, path string, wait bool) (release func() error, err error) {
	if wait {
		return lockfile.Lock(ctx, path)
	}
	release, ok, err := lockfile.TryLock(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrBusy
	}
	return release, nil
}
