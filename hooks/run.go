package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"
	"unsafe"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/selfcapture"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// Deps is everything a handler may use, passed in so hook mode runs the same under tests.
type Deps struct {
	Settings   *settings.Settings
	DataDirErr error // the data dir could not be created: memory is unavailable
	Journal    *journal.Journal
	Env        settings.Env
	Home       string
	GOOS       string
	// Hook is how the user runs this executable (doctor.Command), shown in notices: a func,
	// since only SessionStart needs it and finding it looks along PATH.
	Hook          func() string
	ExecutableDir string
	Now           func() time.Time
	Loc           *time.Location // the budget's local day; nil is UTC
	Log           zerolog.Logger

	// Ingest stores what waits in the capture journal into db and records how that ended
	// (health.RecordIngest); on a failure the records wait for the next pass.
	Ingest func(ctx context.Context, db *store.DB) error
	// OpenStore opens (creating when needed) the database, its writes waiting at most
	// store.HookBusyTimeout.
	OpenStore func() (*store.DB, error)
	// FreeBytes is the free space of a dir's filesystem (journal.FreeBytes).
	FreeBytes func(dir string) (uint64, error)
	// ClaudeCheck is the live, process-free check for the claude executable (nil = found),
	// given the health SessionStart already read (it remembers an unstartable binary).
	ClaudeCheck func(health.Health) error
	// LoadHealth reads health.json.
	LoadHealth func() (health.Health, error)
	// UpdateHealth changes health.json (health.Update); nil: SessionStart records no flag.
	UpdateHealth func(func(*health.Health)) error
	// StartObserver starts `hook observe` for a session, detached, without waiting.
	StartObserver func(sessionID string, final bool) error
	// StartSync starts a sync run, detached, without waiting; nil or no
	// Settings.SyncURL: sync is off and nothing is started.
	StartSync func(memsync.Direction) error
	// ReapOrphans stops observer children whose `hook observe` was killed, past their
	// timeout (nil: none is looked for).
	ReapOrphans func()
	// Appended is called once the event's record is appended (or found no place): the
	// moment from which a signal may end the hook. nil: nothing to call.
	Appended func()
}

// Result is what a handler decided: the JSON object to print (nil: print nothing) and
// the sessions whose observer should start.
type Result struct {
	Output  any
	Observe []ObserveRequest
	Sync    memsync.Direction // a detached sync run to start after answering (0: none)
}

// ObserveRequest asks for one detached observer run.
type ObserveRequest struct {
	SessionID string
	Final     bool // SessionEnd: also write the session summary
}

// Run is hook mode: read stdin, decide, write at most one JSON object to stdout. It never
// fails: every problem is logged and answered with exit status 0 by the caller.
func Run(ctx context.Context, d *Deps, stdin io.Reader, stdout io.Writer) {
	var in Input
	defer func() {
		if r := recover(); r != nil {
			d.Log.Error().Str("event", in.Event).Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).Msg("hook panicked; answered exit 0")
			if in.Event == SessionStart {
				writeJSON(d, stdout, sessionStartOutput("", ""))
			}
		}
	}()
	data, err := readInput(stdin)
	if err != nil {
		d.Log.Warn().Err(err).Msg("reading stdin failed")
	}
	if len(data) > MaxInput {
		n, _ := io.Copy(io.Discard, stdin)
		d.Log.Warn().Int64("bytes", int64(len(data))+n).Msg("hook input larger than 16 MiB discarded")
		return
	}
	in, err = Parse(data)
	if err != nil {
		d.Log.Warn().Str("event", in.Event).Int("bytes", len(data)).Str("problem", err.Error()).Msg("bad hook input ignored")
		if in.Event == SessionStart {
			writeJSON(d, stdout, sessionStartOutput("", ""))
		}
		return
	}
	res := Dispatch(ctx, d, in)
	for _, o := range res.Observe {
		if err := d.StartObserver(o.SessionID, o.Final); err != nil {
			d.Log.Error().Err(err).Str("session", o.SessionID).Msg("starting the observer failed; events stay pending")
		}
	}
	if res.Output != nil {
		writeJSON(d, stdout, res.Output)
	}
	// After the answer: the sync run is detached, and its start is the hook's last step.
	if res.Sync != 0 && d.StartSync != nil && d.Settings.SyncURL != "" {
		if err := d.StartSync(res.Sync); err != nil {
			d.Log.Error().Err(err).Msg("starting sync failed; the next hook or `claude-mem sync` tries again")
		}
	}
}

// readInput reads stdin to its end, or to one byte past MaxInput. The buffer doubles up
// to that bound (io.ReadAll's 1.25x growth copies a 16 MiB event some 20 times, and a
// strings.Builder overshoots to 32 MiB), and becomes the string parsed without a copy
// (gjson.ParseBytes copies): it is never written again. A 16 MiB event costs about twice
// its size.
func readInput(r io.Reader) (string, error) {
	b := make([]byte, 0, 64<<10)
	for len(b) <= MaxInput {
		if len(b) == cap(b) {
			grown := make([]byte, len(b), min(2*cap(b), MaxInput+1))
			copy(grown, b)
			b = grown
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return unsafe.String(unsafe.SliceData(b), len(b)), err
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// Dispatch hands an event to its handler.
func Dispatch(ctx context.Context, d *Deps, in Input) Result {
	switch in.Event {
	case SessionStart:
		return handleSessionStart(ctx, d, in)
	case UserPromptSubmit:
		return handleUserPromptSubmit(ctx, d, in)
	case PostToolUse, PostToolUseFailure:
		return handlePostToolUse(ctx, d, in)
	case Stop:
		return handleStop(ctx, d, in)
	case SessionEnd:
		return handleSessionEnd(ctx, d, in)
	}
	d.Log.Warn().Str("event", clip.HeadTail(in.Event, 80)).Msg("unknown hook_event_name ignored")
	return Result{}
}

func writeJSON(d *Deps, w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		d.Log.Error().Err(err).Msg("encoding hook output failed")
		return
	}
	if _, err := w.Write(b); err != nil {
		d.Log.Warn().Err(err).Msg("writing hook output failed")
	}
}

// admit applies the self-capture guard and project derivation, in that order, before
// anything is stored. ok=false: the event is dropped and nothing at all may be stored.
func admit(d *Deps, in Input) (project.Project, bool) {
	p, v := admission(d, in)
	return p, v == admitted
}

// verdict is what admission decided of an event.
type verdict int

const (
	admitted verdict = iota
	ours             // our own observer's: dropped without a trace
	refused          // an excluded or refused cwd: memory withheld, notices still given
)

func admission(d *Deps, in Input) (project.Project, verdict) {
	guard := d.guardInput(in)
	if dec := selfcapture.Check(guard); dec.Ours {
		d.Log.Debug().Str("event", in.Event).Str("reason", dec.Reason).Msg("event is our own observer's; dropped")
		return project.Project{}, ours
	}
	// Check has just ruled out a cwd inside our dirs, so Derive is not given them again:
	// canonicalising them twice would double the stats every hook makes.
	p, err := project.Derive(in.Cwd, project.Options{
		Home: d.Home, GOOS: d.GOOS, Excluded: d.Settings.ExcludedProjects,
	})
	if err != nil {
		var ex *project.ExcludedError
		if errors.As(err, &ex) {
			d.Log.Debug().Str("event", in.Event).Str("reason", err.Error()).Msg("project excluded; dropped")
		} else {
			d.Log.Warn().Str("event", in.Event).Str("reason", err.Error()).Msg("project refused; dropped")
		}
		return project.Project{}, refused
	}
	return p, admitted
}

func (d *Deps) guardInput(in Input) selfcapture.Input {
	return selfcapture.Input{
		Env: d.Env, Home: d.Home, DataDir: d.Settings.DataDir, ExecutableDir: d.ExecutableDir,
		Cwd: in.Cwd, TranscriptPath: in.TranscriptPath, GOOS: d.GOOS,
	}
}

// withStore opens the store for one handler; a failure is logged at ERROR and reported.
func withStore(d *Deps, event string, fn func(*store.DB) error) error {
	if d.DataDirErr != nil {
		d.Log.Error().Err(d.DataDirErr).Str("event", event).Msg("data dir unavailable; event not stored")
		return d.DataDirErr
	}
	db, err := d.OpenStore()
	if err != nil {
		d.Log.Error().Err(err).Str("event", event).Msg("database unavailable; event not stored")
		return err
	}
	defer db.Close()
	if err := fn(db); err != nil {
		d.Log.Error().Err(err).Str("event", event).Msg("storing the event failed")
		return err
	}
	return nil
}

func (d *Deps) observerEnabled() bool { return d.Settings.MaxConcurrentAgents > 0 }

// budgetReached reads today's observer cost; a run is not started once it reached
// CLAUDE_MEM_DAILY_BUDGET_USD (observer.Run checks again before spawning).
func (d *Deps) budgetReached(ctx context.Context, db *store.DB) bool {
	b, err := budget.Today(ctx, db, d.Settings.DailyBudgetUSD, d.Now(), d.Loc)
	if err != nil {
		d.Log.Warn().Err(err).Msg("reading today's observer cost failed; the observer run checks again")
		return false
	}
	if b.Reached() {
		d.Log.Info().Float64("spent_usd", b.Spent).Float64("budget_usd", b.Limit).Msg("observer budget reached; no run started, events stay pending")
	}
	return b.Reached()
}
