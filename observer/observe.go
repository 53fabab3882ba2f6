// Package observer decides when and how the observer runs for a session: the session lock,
// agent slots, batches, requeueing, the pause after auth or setup failures, and the health
// updates every outcome leaves behind.
package observer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Observer run policy.
const (
	batchSize   = 40               // events per observer run
	turnLimit   = 30               // prompts, and answers, a batch is shown at most (the latest)
	summaryTurn = 20               // prompts, and answers, a summary run is shown (the latest)
	sessionObs  = 50               // the session's observations a run is shown, newest
	projectObs  = 30               // the project's newest observations listed as recorded
	maxAttempts = 3                // an event failing this often is marked failed (kept, shown by doctor)
	pauseFor    = 15 * time.Minute // auth_failed / setup_required pause, unless the inputs change
	slotPoll    = 500 * time.Millisecond
)

// Inputs is what a run reads from the process; doctor resolves the credential from the
// same (AuthInputs).
type Inputs struct {
	Settings *settings.Settings
	Env      settings.Env
	GOOS     string
	Home     string
	Now      func() time.Time
	// Lineage is the process ancestry the desktop-app rule reads (darwin), walked once by
	// the caller before any lock or slot wait: the hook's parent may be gone by then.
	Lineage []string
}

// Deps is what a run needs from the process, passed in so every rule runs the same under
// tests.
type Deps struct {
	Inputs
	Loc *time.Location // the local day of the budget; nil is UTC
	Log zerolog.Logger
	// Ingest stores what waits in the capture journal, before the run reads its pending
	// events (nil: nothing is ingested).
	Ingest func(context.Context, *store.DB) error

	// The run's effects, taken as values so the outcome table is unit-tested.
	// OpenStore opens (creating when needed) the database.
	OpenStore func() (*store.DB, error)
	// Spawn runs the observer child over one batch and classifies how it ended
	// (spawn.Run).
	Spawn func(ctx context.Context, spec spawn.Spec, prompt string, resolve func() (claudebin.Result, error), opt spawn.Options) spawn.Result
	// LoadHealth reads health.json; UpdateHealth changes it (health.Update).
	LoadHealth   func() (health.Health, error)
	UpdateHealth func(func(*health.Health)) error
	// Claude finds the claude executable and Credential the observer's credential from
	// the inputs given, each immediately before every spawn, never cached (ResolveClaude,
	// auth.Resolve).
	Claude     func() (claudebin.Result, error)
	Credential func(context.Context, auth.Inputs) (auth.Source, error)
	// Procs is the process table: the owner a run's lease names (this process), whether
	// another run's owner still runs, and the orphaned children ReapOrphans stops.
	Procs spawn.Procs
	// After is the timers of the clock Now reads (time.After): a run waiting for a slot
	// polls on it.
	After func(time.Duration) <-chan time.Time
}

// Run is one `hook observe`: it takes the session's lock and one agent slot, then runs the
// observer over the session's pending events in batches until none are left or a run
// fails. final also writes the session summary (SessionEnd).
func Run(ctx context.Context, d Deps, session string, final bool) error {
	o := &observeRun{d: d, s: d.Settings, log: d.Log, session: session, final: final, lineage: d.Lineage, batch: batchSize,
		alive: spawn.OwnerAlive(d.Procs)}
	return o.run(ctx)
}

type observeRun struct {
	d       Deps
	s       *settings.Settings
	log     zerolog.Logger
	alive   func(spawn.Owner) bool // whether another run's owner still runs (d.Procs)
	session string
	final   bool
	lineage []string
	slot    *lockfile.Held
	// batch is how many events a claim takes: batchSize, halved after each answer cut at
	// the output limit, for the rest of this run.
	batch int
	// again: the last batch's answer was cut short and its events are pending again.
	again bool
}

func (o *observeRun) run(ctx context.Context) error {
	s := o.s
	if s.MaxConcurrentAgents == 0 {
		o.log.Info().Msg("observer off (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0)")
		return nil
	}
	layout := settings.Layout(s.DataDir)
	// One run per session: a SessionEnd run waits for the Stop run before it, which may
	// take several batches.
	lctx, cancel := context.WithTimeout(ctx, 3*(s.ObserverTimeout+time.Minute))
	defer cancel()
	unlock, err := lockfile.Lock(lctx, sessionLock(layout.Locks(), o.session))
	if err != nil {
		return fmt.Errorf("session lock: %w", err)
	}
	defer unlock()
	ReapOrphans(s.DataDir, o.d.Now(), o.d.Procs, o.log)
	slot, err := o.waitSlot(lctx, layout.Slots())
	if err != nil {
		o.log.Info().Err(err).Msg("no observer slot free; events stay pending for a later run")
		return nil
	}
	defer slot.Release()
	o.slot = slot

	db, err := o.d.OpenStore()
	if err != nil {
		return err
	}
	defer db.Close()
	if o.d.Ingest != nil {
		_ = o.d.Ingest(ctx, db) // a failure is logged and noted; the stored events still run
	}
	// First what runs whose process is gone left: an answer not stored, or events claimed.
	o.settleStranded(ctx, db)
	now := o.d.Now()
	if n, err := db.RequeueStale(ctx, now.Add(-(s.ObserverTimeout + 2*time.Minute))); err == nil && n > 0 {
		o.log.Warn().Int("events", n).Msg("events left processing by a dead run are pending again")
	}
	summaryDone := !o.final
	if o.final {
		// Another final run may have written the summary while this one waited for the lock.
		if settled, err := db.FinalSettled(ctx, o.session); err == nil && settled {
			summaryDone = true
		}
	}
	if !summaryDone {
		// A trivial session (a "hello": no tool event, little text) costs no run; its
		// summary is not owed, so SessionStart stops offering it. It has no events, so
		// nothing else is left to run.
		if trivial, err := db.Trivial(ctx, o.session); err != nil {
			return err
		} else if trivial {
			o.log.Info().Msg("trivial session: no observer run, no summary owed")
			return db.FinalDone(ctx, o.session)
		}
	}
	for ctx.Err() == nil {
		// Checked before every batch that would run: a backlog is worked off within the
		// day's budget.
		pending, err := db.HasPending(ctx, o.session)
		if err != nil {
			return err
		}
		if !pending && summaryDone {
			return nil
		}
		if b, err := budget.Today(ctx, db, s.DailyBudgetUSD, o.d.Now(), o.d.Loc); err != nil {
			return err
		} else if b.Reached() {
			o.log.Info().Float64("spent_usd", b.Spent).Float64("budget_usd", b.Limit).Time("until", b.Until).
				Msg("observer budget reached; events stay pending until the next local day")
			return nil
		}
		runID := spawn.NewRunID(o.d.Now())
		leased := o.lease(runID)
		events, err := db.Claim(ctx, o.session, runID, o.batch, o.d.Now())
		if err != nil || len(events) == 0 && summaryDone {
			o.unlease(leased)
			return err
		}
		last := len(events) < o.batch
		writeSummary := o.final && last
		o.again = false
		cont, err := o.once(ctx, db, runID, events, writeSummary)
		if writeSummary && cont && !o.again {
			summaryDone = true
		}
		if err != nil || !cont {
			return err
		}
	}
	return ctx.Err()
}

// batchRun is one claimed batch of a run.
type batchRun struct {
	id      string
	events  int  // how many it claimed
	summary bool // the session summary is asked too
	// stranded: a run whose process was gone, settled by this one from its transcript
	// (settleStranded): what it says of the credential or the last run is not news.
	stranded bool
	started  time.Time
	log      zerolog.Logger
}

// resolved is what a spawn needs, found immediately before it: the executable, the
// credential, and the fingerprint of every input the pause depends on.
type resolved struct {
	bin     claudebin.Result
	binErr  error
	src     auth.Source
	authErr error
	fp      string
}

// once runs the observer over one batch: resolve its inputs, gate on the pause and on what
// is missing, spawn, and apply the outcome. cont=false stops the loop (paused, failed).
func (o *observeRun) once(ctx context.Context, db *store.DB, runID string, events []store.Event, writeSummary bool) (cont bool, err error) {
	b := batchRun{id: runID, events: len(events), summary: writeSummary, started: o.d.Now(),
		log: o.log.With().Str("run", runID).Int("events", len(events)).Logger()}
	// Claimed events are completed or released even when a signal cancels ctx: a run
	// leaves its events in processing only with an answer the store could not take, for
	// the next run to store from the transcript (settleStranded).
	dbctx := context.WithoutCancel(ctx)
	defer func() {
		if r := recover(); r != nil {
			o.release(dbctx, db, b, false)
			cont, err = false, fmt.Errorf("observer run panicked: %v", r)
		}
	}()
	r := o.resolve(ctx)
	if !o.gate(b, r) {
		o.release(dbctx, db, b, false)
		o.unlease(o.runDir(b.id)) // no child ran: the run leaves no dir
		return false, nil
	}
	in, err := o.promptInput(ctx, db, events, writeSummary)
	if err != nil {
		o.release(dbctx, db, b, false)
		o.unlease(o.runDir(b.id))
		return false, err
	}
	res := o.spawn(ctx, b, r, in)
	return o.apply(dbctx, db, b, r, in.Project, res)
}

// release gives the batch's events back to pending; countAttempt counts this run against
// them (maxAttempts makes them failed).
func (o *observeRun) release(ctx context.Context, db *store.DB, b batchRun, countAttempt bool) {
	if failed, err := db.Release(ctx, b.id, countAttempt, maxAttempts); err != nil {
		b.log.Error().Err(err).Msg("releasing events failed; a later run requeues them")
	} else if failed > 0 {
		b.log.Error().Int("failed", failed).Msg("events failed 3 observer runs; kept as failed (see hook doctor)")
	}
}

// resolve finds the executable and the credential now (never cached) and fingerprints them.
func (o *observeRun) resolve(ctx context.Context) resolved {
	in := AuthInputs(o.d.Inputs)
	var r resolved
	r.bin, r.binErr = o.d.Claude()
	r.src, r.authErr = o.d.Credential(ctx, in)
	r.fp = o.fingerprint(in, r.src, r.authErr, r.bin, r.binErr)
	return r
}

// gate says whether the batch may spawn: not while paused with the same inputs, and not
// without an executable or a credential, which pauses (the caller releases the events).
func (o *observeRun) gate(b batchRun, r resolved) bool {
	h, err := o.d.LoadHealth()
	if err != nil {
		b.log.Warn().Err(err).Msg("health.json unreadable; treated as unknown")
	}
	if paused, why := h.Paused(b.started, r.fp); paused {
		b.log.Info().Str("reason", why).Msg("observer paused; events stay pending")
		return false
	}
	if r.binErr != nil {
		b.log.Error().Err(r.binErr).Msg("observer: claude executable unavailable; paused")
		o.recordSetup(r.binErr, "", r.fp)
		return false
	}
	if r.authErr != nil {
		b.log.Error().Str("reason", r.authErr.Error()).Msg("observer: no usable credential; paused")
		o.recordAuth(AuthSourceName(r.authErr, o.s.AuthSource), r.authErr.Error(), r.fp, nil)
		return false
	}
	return true
}

// spawn runs the child over the batch's prompt, then prunes run dirs beyond retention.
func (o *observeRun) spawn(ctx context.Context, b batchRun, r resolved, in prompt.Input) spawn.Result {
	s := o.s
	spec := spawn.BuildSpec(spawn.SpecInput{Settings: s, Env: o.d.Env, GOOS: o.d.GOOS, Binary: r.bin, Auth: r.src, RunID: b.id})
	b.log.Info().Interface("spec", spec.Redacted()).Msg("observer spawn")
	res := o.d.Spawn(ctx, spec, prompt.Build(in), o.d.Claude, spawn.Options{Slot: o.slot, Now: o.d.Now, Procs: o.d.Procs})
	known := r.src.Value.Reveal()
	res.Reason = redact.Scrub(res.Reason, known) // it may quote the child's output
	if res.ExitCode != 0 && res.StderrTail != "" {
		b.log.Error().Int("exit", res.ExitCode).Str("stderr_tail", redact.Scrub(res.StderrTail, known)).Msg("observer child exited non-zero")
	}
	if err := spawn.Prune(spec.SessionDir, s.ObserverRetention); err != nil {
		b.log.Warn().Err(err).Msg("pruning old observer run dirs failed")
	}
	return res
}

// apply turns the outcome into the queue, health, pause and runs writes (DESIGN.md §8):
// ok stores the answer (answered); auth_failed and setup_required pause, their events
// pending; transient leaves them pending; any other counts an attempt against them.
func (o *observeRun) apply(ctx context.Context, db *store.DB, b batchRun, r resolved, project string, res spawn.Result) (cont bool, err error) {
	b.log = b.log.With().Str("outcome", string(res.Outcome)).Logger()
	log := b.log
	if b.summary && (res.Outcome == vocab.OutcomeOK || res.Outcome == vocab.OutcomeError) {
		// Only a run that answered counts against the summary's attempts: a rate limit or
		// a timeout must not use them up.
		if err := db.BeginFinal(ctx, o.session); err != nil {
			log.Warn().Err(err).Msg("counting the summary attempt failed")
		}
	}
	run := &health.Run{ID: b.id, Outcome: string(res.Outcome), Reason: res.Reason, Time: o.d.Now(), Events: b.events}
	// Every spawned run is recorded with what it cost (zero without a result line), after
	// the outcome's own writes, so the budget sees it before the next batch starts.
	rec := store.RunRecord{ID: b.id, SessionID: o.session, Project: project, Model: cmp.Or(res.Model, o.s.Model),
		Outcome: res.Outcome, StartedAt: b.started, Events: b.events, Usage: res.Usage}
	held := false // the answer could not be stored: its events stay claimed, the run unrecorded for now
	defer func() {
		if held {
			return // settleStranded records it with its cost once the answer is stored
		}
		rec.EndedAt = o.d.Now()
		if err := db.RecordRun(ctx, rec); err != nil {
			log.Error().Err(err).Msg("recording the run's cost failed")
		}
	}()
	switch res.Outcome {
	case vocab.OutcomeOK:
		return o.answered(ctx, db, answerRun{batchRun: b, project: project, res: res, rec: &rec, health: run, src: r.src, held: &held})
	case vocab.OutcomeAuthFailed:
		log.Error().Str("source", string(r.src.Kind)).Str("from", r.src.From).Str("reason", res.Reason).Msg("observer: authentication failed; paused")
		o.release(ctx, db, b, false)
		o.recordAuth(string(r.src.Kind), res.Reason, r.fp, run)
	case vocab.OutcomeSetupRequired:
		log.Error().Str("reason", res.Reason).Msg("observer: claude could not be started; paused")
		o.release(ctx, db, b, false)
		startErr := res.StartErr
		if startErr == nil {
			startErr = errors.New(res.Reason)
		}
		o.recordSetup(startErr, res.Binary, r.fp)
		o.update(func(h *health.Health) { h.LastRun = run })
	case vocab.OutcomeTransient:
		log.Warn().Str("reason", res.Reason).Msg("observer: transient failure; events stay pending")
		o.release(ctx, db, b, false)
		o.update(func(h *health.Health) { h.LastRun = run })
	default:
		log.Error().Str("reason", res.Reason).Int("exit", res.ExitCode).Msg("observer run failed; attempt counted")
		o.release(ctx, db, b, true)
		o.update(func(h *health.Health) { h.LastRun = run })
	}
	return false, nil
}

// promptInput is what a batch is shown (§24): its events, the prompts and answers of the
// turns they cover (a summary run: the session's latest), and what memory holds already:
// the session's observations and the project's newest, listed so they are not written
// again (a summary run also summarises from the session's, shown whole).
func (o *observeRun) promptInput(ctx context.Context, db *store.DB, events []store.Event, writeSummary bool) (prompt.Input, error) {
	covered, limit := events, turnLimit
	if writeSummary {
		covered, limit = nil, summaryTurn
	}
	turns, err := db.TurnsOf(ctx, o.session, covered, limit)
	if err != nil {
		return prompt.Input{}, err
	}
	mine, err := db.SessionObservations(ctx, o.session, sessionObs)
	if err != nil {
		return prompt.Input{}, err
	}
	proj := projectOf(events, turns.Prompts, mine)
	theirs, err := db.RecentObservations(ctx, proj, projectObs)
	if err != nil {
		return prompt.Input{}, err
	}
	in := prompt.Input{Project: proj, Events: events, Prompts: turns.Prompts, Answers: turns.Answers,
		Recorded: append(slices.Clone(mine), theirs...), Final: writeSummary, Inline: !o.s.SystemPrompt}
	if writeSummary {
		in.Earlier = mine
	}
	return in, nil
}

// update writes health.json; every write also records the current settings errors.
func (o *observeRun) update(fn func(*health.Health)) {
	errs := make([]string, 0, len(o.s.Errors))
	for _, e := range o.s.Errors {
		errs = append(errs, redact.Scrub(e.Error()))
	}
	if err := o.d.UpdateHealth(func(h *health.Health) { fn(h); h.Settings = errs }); err != nil {
		o.log.Error().Err(err).Msg("writing health.json failed")
	}
}

// recordSetup marks setup required and pauses. An unstartable executable is remembered by
// path and signature, so SessionStart keeps naming it while that very file is there.
func (o *observeRun) recordSetup(err error, ran, fp string) {
	now := o.d.Now()
	setup := health.Setup{State: health.StateRequired, Reason: err.Error(), Since: now}
	var nf *claudebin.NotFoundError
	var ue *claudebin.UnspawnableError
	switch {
	case errors.As(err, &nf):
		for _, pr := range nf.Probed {
			setup.Probed = append(setup.Probed, pr.Path+" ("+pr.Reason+")")
		}
	case errors.As(err, &ue):
		setup.Path, setup.Reason = ue.Path, ue.Err.Error()
		if setup.Path == "" {
			setup.Path = ran
		}
		setup.Sig = auth.FileSig(setup.Path)
	}
	o.update(func(h *health.Health) {
		h.Setup = setup
		h.Pause(now, pauseFor, fp, "setup required: "+err.Error())
	})
}

// AuthSourceName names the source an auth error is about: the pinned one, else the best
// candidate's, for the notice's "<source>: <reason>".
func AuthSourceName(err error, pin string) string {
	var ae *auth.Error
	if errors.As(err, &ae) {
		if ae.Pinned != "" {
			return string(ae.Pinned)
		}
		if b := ae.Best(); b.Present {
			return string(b.Kind)
		}
	}
	if pin != "" && pin != "auto" {
		return pin
	}
	return "no usable source"
}

// recordAuth marks the credential failed and pauses; run is the spawn that found it (nil:
// none was started).
func (o *observeRun) recordAuth(source, reason, fp string, run *health.Run) {
	now := o.d.Now()
	o.update(func(h *health.Health) {
		h.Auth = health.Auth{State: health.StateFailed, Source: source, Reason: reason, Since: sinceOr(h.Auth, health.StateFailed, now)}
		h.Pause(now, pauseFor, fp, "auth failed: "+reason)
		if run != nil {
			h.LastRun = run
		}
	})
}

// sinceOr keeps the time a state began while the state holds.
func sinceOr(a health.Auth, state string, now time.Time) time.Time {
	if a.State == state && !a.Since.IsZero() {
		return a.Since
	}
	return now
}

// AuthInputs is what auth.Resolve reads for a run (doctor resolves with the same inputs).
func AuthInputs(d Inputs) auth.Inputs {
	return auth.Inputs{
		Env: d.Env, DotEnv: d.Settings.DotEnv, Pin: d.Settings.AuthSource, Helper: d.Settings.APIKeyHelper,
		Home: d.Home, GOOS: d.GOOS, Now: d.Now(), Run: auth.ExecRunner{},
		Lineage: d.Lineage,
	}
}

// fingerprint changes when anything the pause depends on changes: the credential inputs and
// the credential they resolve to (or why none does), settings.json, or the claude executable
// on disk.
func (o *observeRun) fingerprint(in auth.Inputs, src auth.Source, authErr error, bin claudebin.Result, binErr error) string {
	h := sha256.New()
	fmt.Fprintln(h, auth.Fingerprint(in))
	if authErr != nil {
		fmt.Fprintln(h, "auth:", authErr.Error())
	} else {
		fmt.Fprintln(h, "auth:", src.Identity())
	}
	fmt.Fprintln(h, auth.FileSig(settings.Layout(o.s.DataDir).Settings()))
	// Where the requests go: a fixed base URL or proxy lifts a 401/403 pause at once.
	for _, k := range append([]string{envname.BaseURL}, envname.Proxy...) {
		fmt.Fprintf(h, "%s=%q/%q\n", k, o.d.Env.Get(k), o.s.DotEnv.Get(k))
	}
	if binErr != nil {
		fmt.Fprintln(h, "claude:", binErr.Error())
	} else {
		fmt.Fprintln(h, "claude:", bin.Path, auth.FileSig(bin.Path))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ReapOrphans stops observer children left running past their deadline by a killed
// `hook observe` (they still hold their slots), found in the process table procs;
// SessionStart and every waiting run call it.
func ReapOrphans(dataDir string, now time.Time, procs spawn.Procs, log zerolog.Logger) {
	if dataDir == "" {
		return // no data dir, no slots
	}
	stopped, err := spawn.ReapOrphans(settings.Layout(dataDir).Slots(), now, procs)
	for _, l := range stopped {
		log.Warn().Int("pid", l.Pid).Str("run", l.Run).Time("deadline", l.Deadline).Msg("stopped an observer child whose run was gone, past its timeout")
	}
	if err != nil {
		log.Warn().Err(err).Msg("stopping an orphaned observer child failed")
	}
}

// waitSlot takes one of CLAUDE_MEM_MAX_CONCURRENT_AGENTS slots, waiting while all are busy.
// While it waits, it stops orphaned children that hold a slot past their deadline.
func (o *observeRun) waitSlot(ctx context.Context, dir string) (*lockfile.Held, error) {
	for {
		held, ok, err := lockfile.TrySlot(dir, o.s.MaxConcurrentAgents)
		if err != nil {
			return nil, err
		}
		if ok {
			_ = held.File.Truncate(0) // a lease of an earlier holder is not ours
			return held, nil
		}
		ReapOrphans(o.s.DataDir, o.d.Now(), o.d.Procs, o.log)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-o.d.After(slotPoll):
		}
	}
}

// projectOf names the session's project from what the run was given (the hooks stored it).
func projectOf(events []store.Event, prompts []store.Prompt, prior []store.Observation) string {
	for _, e := range events {
		if e.Project != "" {
			return e.Project
		}
	}
	for _, p := range prompts {
		if p.Project != "" {
			return p.Project
		}
	}
	for _, o := range prior {
		if o.Project != "" {
			return o.Project
		}
	}
	return ""
}

// sessionLock is the session's lock file: one of 256, chosen by the first byte of the id's
// hash, so locks/ does not grow by a file per session forever. Two sessions that share a
// bucket only take turns.
func sessionLock(dir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(dir, fmt.Sprintf("session-%02x.lock", sum[0]))
}
