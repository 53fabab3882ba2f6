package doctor

import (
	"context"
	"fmt"
	"time"
)

// RetryWait bounds doctor --retry's wait for the runs it started (the observer timeout,
// when shorter, bounds it first): long enough for a run that fixes auth to end, short
// enough that a person at the terminal is not left waiting on a slow model.
const RetryWait = 30 * time.Second

// retryTick is how often the wait looks at the clock and redraws its progress line.
const retryTick = time.Second

// Retry is `doctor --retry`: clear the observer pause, start a run for what waits, and wait
// (bounded) for those runs to end, so the report printed after it is the state they left,
// not the failure they were started to fix. Its effects are values.
type Retry struct {
	ClearPause func() error
	// Start starts the runs and returns how many, and a channel closed once every one of
	// them has ended.
	Start func(ctx context.Context) (n int, done <-chan struct{}, err error)
	// Timeout is the observer timeout: a run is stopped by then, so waiting longer is
	// waiting for nothing.
	Timeout time.Duration
	Now     func() time.Time
	After   func(time.Duration) <-chan time.Time // time.After
	// Progress is told the time waited so far, about once a second; nil: no progress (off
	// a terminal).
	Progress func(waited time.Duration)
}

// RetryResult is what a Retry did.
type RetryResult struct {
	Runs   int           // runs started
	Waited time.Duration // how long it waited for them
	Ended  bool          // every run started ended within the wait
}

// RetryError is a retry that failed at a step: the pause was not cleared (Cleared false),
// or it was and starting what waits failed.
type RetryError struct {
	Cleared bool
	Err     error
}

func (e *RetryError) Error() string {
	if !e.Cleared {
		return "clearing the pause failed: " + e.Err.Error()
	}
	return "observer pause cleared, but starting what waits failed: " + e.Err.Error()
}

func (e *RetryError) Unwrap() error { return e.Err }

// Limit is how long Run waits: RetryWait, or the observer timeout when that is less.
func (r Retry) Limit() time.Duration {
	if r.Timeout > 0 && r.Timeout < RetryWait {
		return r.Timeout
	}
	return RetryWait
}

// Run clears the pause, starts the runs and waits for them, up to Limit; a cancelled ctx
// (Ctrl-C) ends the wait, never the runs, which are detached.
func (r Retry) Run(ctx context.Context) (RetryResult, error) {
	if err := r.ClearPause(); err != nil {
		return RetryResult{}, &RetryError{Err: err}
	}
	n, done, err := r.Start(ctx)
	if err != nil {
		return RetryResult{}, &RetryError{Cleared: true, Err: err}
	}
	res := RetryResult{Runs: n}
	if n == 0 {
		res.Ended = true
		return res, nil
	}
	start, limit := r.Now(), r.Limit()
	for {
		select {
		case <-done:
			res.Waited, res.Ended = r.Now().Sub(start), true
			return res, nil
		case <-ctx.Done():
			res.Waited = r.Now().Sub(start)
			return res, nil
		case <-r.After(min(retryTick, limit-res.Waited)):
		}
		if res.Waited = r.Now().Sub(start); res.Waited >= limit {
			return res, nil
		}
		if r.Progress != nil {
			r.Progress(res.Waited)
		}
	}
}

// Line is the retry's one line for the person: what was started and how it ended.
func (res RetryResult) Line() string {
	switch {
	case res.Runs == 0:
		return "observer pause cleared; nothing started for what waits"
	case res.Ended:
		return fmt.Sprintf("observer pause cleared; %s for what waits, ended after %s", runs(res.Runs), res.Waited.Round(time.Second))
	}
	return fmt.Sprintf("observer pause cleared; %s for what waits, still running after %s: the report below is from before it ends (run doctor again later)",
		runs(res.Runs), res.Waited.Round(time.Second))
}

func runs(n int) string {
	if n == 1 {
		return "1 observer run started"
	}
	return fmt.Sprintf("%d observer runs started", n)
}

// ProgressLine is the progress line drawn on a terminal while Run waits: redrawn in place
// (a carriage return first), and wiped by ClearProgress.
func ProgressLine(waited time.Duration) string {
	return fmt.Sprintf("\rwaiting for the observer run… %s ", waited.Round(time.Second))
}

// ClearProgress wipes the progress line, so what follows starts on a clean line.
const ClearProgress = "\r\033[K"
