package hooks

import (
	"context"

	"github.com/claude-mem/claude-mem-go/store"
)

// handleSessionEnd records the end time and starts a final observer run, which also writes
// the session summary, when the session left anything to observe: it flushes whatever
// Stop's batch rule left pending, unless today's observer budget is spent. The request is recorded,
// so a final run that is paused or fails is offered again by a later SessionStart.
func handleSessionEnd(ctx context.Context, d *Deps, in Input) Result {
	if _, ok := admit(d, in); !ok {
		return Result{}
	}
	var active, spent bool
	_ = withStore(d, in.Event, func(db *store.DB) error {
		if err := db.EndSession(ctx, in.SessionID, d.Now()); err != nil {
			return err
		}
		var err error
		if active, err = db.NeedsSummary(ctx, in.SessionID); err != nil || !active || !d.observerEnabled() {
			return err
		}
		if err := db.RequestFinal(ctx, in.SessionID); err != nil {
			return err
		}
		// Recorded but not started: SessionStart offers it again once the budget allows.
		spent = d.budgetReached(ctx, db)
		return nil
	})
	if !active || !d.observerEnabled() || spent {
		return Result{}
	}
	return Result{Observe: []ObserveRequest{{SessionID: in.SessionID, Final: true}}}
}
