// Package budget is the observer's daily cost cap as a value, the local day it counts, and
// Stop's rule for when a batch is due, a leaf: hooks, notice, stats, doctor and the
// observer read it without importing the observer stack.
package budget

import (
	"context"
	"time"
)

// Budget is today's recorded observer cost against CLAUDE_MEM_DAILY_BUDGET_USD.
type Budget struct {
	Spent, Limit float64   // dollars; Limit 0 is no cap
	Until        time.Time // the next local midnight, when the day's spending starts over
}

// Reached: no observer run starts until Until; events stay pending.
func (b Budget) Reached() bool { return b.Limit > 0 && b.Spent >= b.Limit }

// Day is the local day [start, end) holding now; a nil loc is UTC.
func Day(now time.Time, loc *time.Location) (start, end time.Time) {
	if loc == nil {
		loc = time.UTC
	}
	t := now.In(loc)
	start = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	return start, start.AddDate(0, 0, 1) // AddDate keeps midnight across a DST change
}

// Costs is the recorded cost of the runs started in [from, to) (store.DB.CostBetween).
type Costs interface {
	CostBetween(ctx context.Context, from, to time.Time) (float64, error)
}

// Today reads today's cost against limit (CLAUDE_MEM_DAILY_BUDGET_USD): one indexed sum,
// cheap enough for Stop, and always current (nothing to invalidate at midnight, unlike a
// flag in health.json that the crossing run would have to write and every reader to
// expire). With no cap nothing is read.
func Today(ctx context.Context, costs Costs, limit float64, now time.Time, loc *time.Location) (Budget, error) {
	start, end := Day(now, loc)
	b := Budget{Limit: limit, Until: end}
	if b.Limit == 0 {
		return b, nil
	}
	var err error
	b.Spent, err = costs.CostBetween(ctx, start, end)
	return b, err
}

// BatchDue is Stop's rule for starting a run: the session has at least events
// (CLAUDE_MEM_BATCH_EVENTS) pending, or its oldest pending event has waited wait
// (CLAUDE_MEM_BATCH_WAIT). SessionEnd and SessionStart's stale pass flush without it.
func BatchDue(pending int, oldest, now time.Time, events int, wait time.Duration) bool {
	if pending == 0 {
		return false
	}
	return pending >= events || now.Sub(oldest) >= wait
}
