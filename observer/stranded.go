package observer

import (
	"cmp"
	"context"
	"os"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Stranded is a run holding claimed events whose `hook observe` is gone (a SIGKILL, a
// crash, or its answer not stored: a full disk). Answered: its transcript holds an answer
// that waits to be stored.
type Stranded struct {
	store.ClaimedRun
	Answered bool
}

// StrandedRuns lists the claimed runs whose owner, by the lease in the run dir, is gone
// (alive tells, nil: spawn.OwnerAlive on this machine; a run without a lease waits for the
// stale timeout): SessionStart starts a run for their sessions at once, and doctor names
// what waits.
func StrandedRuns(ctx context.Context, db *store.DB, dataDir string, alive func(spawn.Owner) bool) ([]Stranded, error) {
	if alive == nil {
		alive = spawn.OwnerAlive(spawn.OSProcs{})
	}
	runs, err := db.ClaimedRuns(ctx)
	if err != nil {
		return nil, err
	}
	var out []Stranded
	for _, r := range runs {
		dir, ok := spawn.RunDir(settings.Layout(dataDir).Runs(), r.ID)
		if !ok {
			continue
		}
		if own, err := spawn.ReadOwner(dir); err != nil || alive(own) {
			continue
		}
		out = append(out, Stranded{ClaimedRun: r, Answered: spawn.ReadResult(dir).Outcome == vocab.OutcomeOK})
	}
	return out, nil
}

// lease writes this process as the owner of run id, in the run's dir, before the claim;
// it returns the dir ("" when none could be written: the stale timeout then covers the run).
func (o *observeRun) lease(id string) string {
	dir := o.runDir(id)
	own, err := spawn.SelfOwner(o.d.Procs)
	if err != nil {
		// A platform without process start times: the session's next run, which holds its
		// lock, or the stale timeout settles it.
		o.log.Debug().Err(err).Msg("no lease for the run: this process's start time is unknown")
		return ""
	}
	if err = spawn.MakeRunDir(o.s.DataDir, dir); err == nil {
		err = spawn.WriteOwner(dir, own)
	}
	if err != nil {
		o.log.Warn().Err(err).Str("run", id).Msg("no lease for the run; if its process is killed, its events wait for the stale timeout")
		return ""
	}
	return dir
}

// runDir is the dir of this process's run id (NewRunID's ids always name one).
func (o *observeRun) runDir(id string) string {
	dir, _ := spawn.RunDir(settings.Layout(o.s.DataDir).Runs(), id)
	return dir
}

// unlease removes the dir of a run that claimed nothing or started no child.
func (o *observeRun) unlease(dir string) {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// settleStranded settles the runs whose process is gone before they finished: those of
// this session (this process holds its lock, so none of them is live) and those whose lease
// names a process that is gone, under their session's lock. An answer in the run's transcript is stored as the run
// would have stored it, with its cost; a run without one gives its events back to pending
// at once (no attempt counted) and is recorded as unrecorded (what it cost is not known).
func (o *observeRun) settleStranded(ctx context.Context, db *store.DB) {
	runs, err := db.ClaimedRuns(ctx)
	if err != nil {
		o.log.Warn().Err(err).Msg("reading the claimed runs failed; a later run settles them")
		return
	}
	sessions := settings.Layout(o.s.DataDir).Runs()
	for _, r := range runs {
		dir, ok := spawn.RunDir(sessions, r.ID)
		if !ok {
			continue
		}
		if r.SessionID != o.session {
			if own, err := spawn.ReadOwner(dir); err != nil || o.alive(own) {
				continue
			}
			// Another session's: settled under its lock, taken only if free, so a run
			// SessionStart started for it meanwhile settles it alone.
			unlock, ok, err := lockfile.TryLock(sessionLock(settings.Layout(o.s.DataDir).Locks(), r.SessionID))
			if err != nil || !ok {
				continue
			}
			o.settleOne(ctx, db, r, dir)
			_ = unlock()
			continue
		}
		o.settleOne(ctx, db, r, dir)
	}
}

func (o *observeRun) settleOne(ctx context.Context, db *store.DB, r store.ClaimedRun, dir string) {
	if err := o.settle(ctx, db, r, dir); err != nil {
		o.log.Error().Err(err).Str("run", r.ID).Msg("settling a run whose process was gone failed; a later run tries again")
	}
}

// settle stores or requeues one stranded run (settleStranded).
func (o *observeRun) settle(ctx context.Context, db *store.DB, r store.ClaimedRun, dir string) error {
	res := spawn.ReadResult(dir)
	b := batchRun{id: r.ID, events: r.Events, started: r.ClaimedAt, stranded: true,
		log: o.log.With().Str("run", r.ID).Str("stranded_session", r.SessionID).Int("events", r.Events).Logger()}
	if res.Outcome == vocab.OutcomeOK {
		b.log.Warn().Msg("storing the answer of a run whose process was gone, from its transcript")
		_, err := o.apply(ctx, db, b, resolved{}, r.Project, res)
		return err
	}
	// No answer: killed before it came. Its usage is known only if a result line came.
	outcome := vocab.OutcomeUnrecorded
	if res.Usage != (store.Usage{}) {
		outcome = res.Outcome
	}
	if _, err := db.Release(ctx, r.ID, false, maxAttempts); err != nil {
		return err
	}
	b.log.Warn().Str("outcome", string(outcome)).Msg("events of a run whose process was gone are pending again at once")
	return db.RecordRun(ctx, store.RunRecord{ID: r.ID, SessionID: r.SessionID, Project: r.Project, Model: cmp.Or(res.Model, o.s.Model),
		Outcome: outcome, StartedAt: r.ClaimedAt, EndedAt: o.d.Now(), Events: r.Events, Usage: res.Usage, Requeued: true})
}
