package hooks

import (
	"context"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// handleSessionEnd journals the end, ingests the journal (which records the end time
// and, when the session left anything to observe, that its summary is owed), and starts a
// final observer run, which also writes the summary: it flushes whatever Stop's batch rule
// left pending, unless today's observer budget is spent. The owed summary is recorded, so
// a final run that is paused, fails, or waits behind a locked database is offered again by
// a later SessionStart.
func handleSessionEnd(ctx context.Context, d *Deps, in Input) Result {
	p, ok := admit(d, in)
	if !ok {
		return Result{}
	}
	d.capture(in, p, journal.Record{Kind: store.CaptureEnd, Final: d.observerEnabled()})
	var active, spent bool
	_ = withStore(d, in.Event, func(db *store.DB) error {
		_ = d.Ingest(ctx, db)
		if !d.observerEnabled() {
			return nil
		}
		// Records still in journal files (another ingester's claim not yet committed, or
		// a failed ingestion) make the run due too: read first, then the database, so a
		// commit in between is not missed. The run ingests them itself.
		waiting := len(journal.SessionFiles(d.Journal.Dirs(), in.SessionID)) > 0
		var err error
		if active, err = db.NeedsSummary(ctx, in.SessionID); err != nil {
			return err
		}
		if active = active || waiting; !active {
			return nil
		}
		// Recorded but not started: SessionStart offers it again once the budget allows.
		spent = d.budgetReached(ctx, db)
		return nil
	})
	// The session's prompts and header go now; its summary goes after the final run
	// (the observer's own push).
	res := Result{Sync: memsync.Push}
	if active && d.observerEnabled() && !spent {
		res.Observe = []ObserveRequest{{SessionID: in.SessionID, Final: true}}
	}
	return res
}
