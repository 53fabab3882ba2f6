package sync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/redact"
)

// Store is the local memory a run opens: Local, plus what it counts and its closing.
type Store interface {
	Local
	// Counts is what waits, is held back and was refused, after the run.
	Counts(ctx context.Context) (Counts, error)
	Close() error
}

// Deps are a run's effects, as values so the command and the detached run are tested
// without a server or a store.
type Deps struct {
	Server       string // the server as shown (no password)
	LockPath     string // settings.Layout.SyncLock
	OpenStore    func(ctx context.Context) (Store, error)
	Connect      func(ctx context.Context) (Remote, func(), error)
	Classify     func(error) Failure // the kind of a connection or server error; nil: Classify
	UpdateHealth func(func(*health.Health)) error
	Now          func() time.Time
}

// Error is a failed run: its kind (which names the fix) and its cause.
type Error struct {
	Failure Failure
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Once is one run as a command or a detached process runs it: it waits for the data dir's
// sync lock until ctx ends, opens the store and the server, runs, and records the outcome
// in health (a failure with its kind, the counts either way). limit bounds the batches
// started (zero: none); progress may be nil.
func Once(ctx context.Context, deps Deps, d Direction, limit time.Duration, progress func(Progress)) (Result, error) {
	release, err := Exclusive(ctx, deps.LockPath, true)
	if err != nil {
		return Result{}, fmt.Errorf("waiting for the sync lock (%s): %w", ErrBusy, err)
	}
	defer release()
	st, err := deps.OpenStore(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("opening memory: %w", err)
	}
	defer st.Close()
	o := Options{Server: deps.Server, Now: deps.Now, Progress: progress}
	if limit > 0 {
		o.Deadline = deps.Now().Add(limit)
	}
	res, runErr := connectAndRun(ctx, deps, st, d, o)
	c, cerr := st.Counts(ctx)
	f, msg := Failure(""), ""
	if runErr != nil {
		classify := deps.Classify
		if classify == nil {
			classify = Classify
		}
		f = classify(runErr)
		// health.json is shown by doctor and SessionStart: the one scrubber runs first.
		msg = redact.Scrub(runErr.Error())
		runErr = &Error{Failure: f, Err: runErr}
	}
	if cerr == nil || runErr != nil {
		if herr := deps.UpdateHealth(func(h *health.Health) { Record(h, deps.Server, deps.Now(), c, f, msg) }); herr != nil && runErr == nil {
			runErr = fmt.Errorf("recording the run in health.json: %w", herr)
		}
	}
	if runErr == nil && cerr != nil {
		runErr = fmt.Errorf("counting what waits: %w", cerr)
	}
	return res, runErr
}

func connectAndRun(ctx context.Context, deps Deps, st Store, d Direction, o Options) (Result, error) {
	r, closeRemote, err := deps.Connect(ctx)
	if err != nil {
		return Result{}, err
	}
	defer closeRemote()
	return Run(ctx, st, r, d, o)
}

// IsFailure says whether err is a failed run, and of which kind.
func IsFailure(err error) (Failure, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Failure, true
	}
	return "", false
}
