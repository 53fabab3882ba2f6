package hooks

import (
	"context"
	"path/filepath"
	"time"

	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/store"
)

// Waiting is what waits for an observer run since before horizon, at most maxStaleStarts
// runs: sessions with a run whose process is gone (no horizon: a killed `hook observe`, an
// answer the store could not take), then sessions whose summary is still owed (a final run
// also observes their pending events), then sessions with pending events. SessionStart
// restarts what waits since StaleAfter; `hook doctor --retry` everything, now.
func Waiting(ctx context.Context, db *store.DB, horizon time.Time) ([]ObserveRequest, error) {
	stranded, err := observer.StrandedRuns(ctx, db, filepath.Dir(db.Path()), nil)
	if err != nil {
		return nil, err
	}
	stale, err := db.StaleSessions(ctx, horizon)
	if err != nil {
		return nil, err
	}
	finals, err := db.PendingFinals(ctx, horizon, MaxFinalAttempts)
	if err != nil {
		return nil, err
	}
	owed := make(map[string]bool, len(finals))
	for _, id := range finals {
		owed[id] = true
	}
	var out []ObserveRequest
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, ObserveRequest{SessionID: id, Final: owed[id]})
		}
	}
	for _, r := range stranded {
		add(r.SessionID)
	}
	for _, id := range finals {
		add(id)
	}
	for _, id := range stale {
		add(id)
	}
	return out[:min(len(out), maxStaleStarts)], nil
}
