package observer

import (
	"context"
	"time"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// TodayBudget reads today's cost from the runs table: one indexed sum, cheap enough for
// Stop, and always current (nothing to invalidate at midnight, unlike a flag in
// health.json that the crossing run would have to write and every reader to expire).
func TodayBudget(ctx context.Context, db *store.DB, s *settings.Settings, now time.Time, loc *time.Location) (budget.Budget, error) {
	start, end := budget.Day(now, loc)
	b := budget.Budget{Limit: s.DailyBudgetUSD, Until: end}
	if b.Limit == 0 {
		return b, nil
	}
	var err error
	b.Spent, err = db.CostBetween(ctx, start, end)
	return b, err
}

// BatchDue is Stop's rule for starting a run: the session has at least
// CLAUDE_MEM_BATCH_EVENTS pending events, or its oldest pending event has waited
// CLAUDE_MEM_BATCH_WAIT. SessionEnd and SessionStart's stale pass flush without it.
func BatchDue(pending int, oldest, now time.Time, s *settings.Settings) bool {
	if pending == 0 {
		return false
	}
	return pending >= s.BatchEvents || now.Sub(oldest) >= s.BatchWait
}
