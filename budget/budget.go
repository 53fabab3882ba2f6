// Package budget is the observer's daily cost cap as a value and the local day it counts,
// a leaf: notice, stats and doctor read it without importing the observer stack.
package budget

import "time"

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
