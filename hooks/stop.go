package hooks

import (
	"context"

	"github.com/claude-mem/claude-mem-go/store"
)

// handleStop starts the observer when the session has pending events. It returns at once:
// the observer runs detached, in its own session.
func handleStop(ctx context.Context, d *Deps, in Input) Result {
	if !d.observerEnabled() {
		return Result{}
	}
	if _, ok := admit(d, in); !ok {
		return Result{}
	}
	var pending bool
	_ = withStore(d, in.Event, func(db *store.DB) (err error) {
		pending, err = db.HasPending(ctx, in.SessionID)
		return err
	})
	if !pending {
		return Result{}
	}
	return Result{Observe: []ObserveRequest{{SessionID: in.SessionID}}}
}
