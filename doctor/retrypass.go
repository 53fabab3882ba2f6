package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
)

// Pass runs r for `doctor --retry` before its report, telling the person on w: a progress
// line while it waits, when terminal (w is one: it is redrawn in place, then wiped), and
// the result's one line. A failure is returned, for the command to report.
func (r Retry) Pass(ctx context.Context, w io.Writer, terminal bool) error {
	if terminal {
		r.Progress = func(d time.Duration) { fmt.Fprint(w, ProgressLine(d)) }
	}
	res, err := r.Run(ctx)
	if terminal {
		fmt.Fprint(w, ClearProgress)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(w, res.Line())
	return nil
}

// Waiting is what doctor --retry starts runs for (Retry.Start): every session with pending
// events or an owed summary, now (SessionStart's stale pass, without its 10 minutes).
type Waiting struct {
	Agents int           // CLAUDE_MEM_MAX_CONCURRENT_AGENTS: 0 (search-only mode) starts nothing
	Memory memory.Memory // what waits is stored first, then read as it is
	Now    func() time.Time
	// Start starts the detached `hook observe` of a session and returns a func that waits
	// for it to exit.
	Observe func(session string, final bool) (wait func(), err error)
}

// Start starts a run for every session that waits and returns how many, and a channel
// closed once every one has exited. No database: nothing waits.
func (wt Waiting) Start(ctx context.Context) (int, <-chan struct{}, error) {
	if wt.Agents == 0 {
		return 0, nil, nil
	}
	if err := wt.Memory.Ingest(ctx); err != nil {
		return 0, nil, err
	}
	db, err := wt.Memory.ReadStored()
	if errors.Is(err, store.ErrNoDatabase) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	left, err := hooks.Waiting(ctx, db, wt.Now())
	db.Close()
	if err != nil {
		return 0, nil, err
	}
	var wg sync.WaitGroup
	for _, r := range left {
		wait, err := wt.Observe(r.SessionID, r.Final)
		if err != nil {
			return 0, nil, err
		}
		wg.Go(wait) // its outcome is in health.json, which the report reads
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return len(left), done, nil
}
