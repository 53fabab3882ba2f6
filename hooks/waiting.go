package hooks

import (
	"context"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

// Waiting is what waits for an observer run since before horizon, at most maxStaleStarts
// runs: sessions whose summary is still owed (a final run also observes their pending
// events), then sessions with pending events. SessionStart restarts what waits since
// StaleAfter; `hook doctor --retry` everything, now.
func Waiting(ctx context.Context, db *store.DB, horizon time.Time) ([]ObserveRequest, error) {
	stale, err := db.StaleSessions(ctx, horizon)
	if err != nil {
		return nil, err
	}
	finals, err := db.PendingFinals(ctx, horizon, MaxFinalAttempts)
	if err != nil {
		return nil, err
	}
	var out []ObserveRequest
	owed := make(map[string]bool, len(finals))
	for _, id := range finals {
		owed[id] = true
		out = append(out, ObserveRequest{SessionID: id, Final: true})
	}
	for _, id := range stale {
		if !owed[id] {
			out = append(out, ObserveRequest{SessionID: id})
		}
	}
	return out[:min(len(out), maxStaleStarts)], nil
}
