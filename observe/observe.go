// Package observe decides when and how the observer runs for a session: the session lock,
// agent slots, batches, requeueing, the pause after auth or setup failures, and the health
// updates every outcome leaves behind.
package observe

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
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
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

// Deps is what a run needs from the process, passed in so every rule runs the same under
// tests.
type Deps struct {
	Settings *settings.Settings
	Env      settings.Env
	GOOS     string
	Home     string
	Now      func() time.Time
	Loc      *time.Location // the local day of the budget; nil is UTC
	Log      zerolog.Logger
	// Lineage is the process ancestry the desktop-app rule reads (darwin), walked once by
	// the caller before any lock or slot wait: the hook's parent may be gone by then.
	Lineage []string
	// Ingest stores what waits in the capture journal, before the run reads its pending
	// events (nil: nothing is ingested).
	Ingest func(context.Context, *store.DB) error
}

// Run is one `hook observe`: it takes the session's lock and one agent slot, then runs the
// observer over the session's pending events in batches until none are left or a run
// fails. final also writes the session summary (SessionEnd).
func Run(ctx context.Context, d Deps, session string, final bool) error {
	o := &observeRun{d: d, s: d.Settings, log: d.Log, session: session, final: final, lineage: d.Lineage, batch: batchSize}
	return o.run(ctx)
}

type observeRun struct {
	d       Deps
	s       *settings.Settings
	log     zerolog.Logger
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
	locks := filepath.Join(s.DataDir, settings.LocksDir)
	// One run per session: a SessionEnd run waits for the Stop run before it, which may
	// take several batches.
	lctx, cancel := context.WithTimeout(ctx, 3*(s.ObserverTimeout+time.Minute))
	defer cancel()
	unlock, err := lockfile.Lock(lctx, sessionLock(locks, o.session))
	if err != nil {
		return fmt.Errorf("session lock: %w", err)
	}
	defer unlock()
	ReapOrphans(s.DataDir, o.d.Now(), o.log)
	slot, err := o.waitSlot(lctx, SlotsDir(s.DataDir))
	if err != nil {
		o.log.Info().Err(err).Msg("no observer slot free; events stay pending for a later run")
		return nil
	}
	defer slot.Release()
	o.slot = slot

	db, err := store.Open(filepath.Join(s.DataDir, settings.DBFile))
	if err != nil {
		return err
	}
	defer db.Close()
	if o.d.Ingest != nil {
		_ = o.d.Ingest(ctx, db) // a failure is logged and noted; the stored events still run
	}
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
		if b, err := TodayBudget(ctx, db, s, o.d.Now(), o.d.Loc); err != nil {
			return err
		} else if b.Reached() {
			o.log.Info().Float64("spent_usd", b.Spent).Float64("budget_usd", b.Limit).Time("until", b.Until).
				Msg("observer budget reached; events stay pending until the next local day")
			return nil
		}
		runID := observer.NewRunID(o.d.Now())
		events, err := db.Claim(ctx, o.session, runID, o.batch, o.d.Now())
		if err != nil {
			return err
		}
		if len(events) == 0 && summaryDone {
			return nil
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

// once runs the observer over one batch; cont=false stops the loop (paused, failed, done).
func (o *observeRun) once(ctx context.Context, db *store.DB, runID string, events []store.Event, writeSummary bool) (cont bool, err error) {
	s, now := o.s, o.d.Now()
	log := o.log.With().Str("run", runID).Int("events", len(events)).Logger()
	// Claimed events are completed or released even when a signal cancels ctx: a run
	// never leaves its events behind in processing.
	dbctx := context.WithoutCancel(ctx)
	releaseAll := func(countAttempt bool) {
		if failed, err := db.Release(dbctx, runID, countAttempt, maxAttempts); err != nil {
			log.Error().Err(err).Msg("releasing events failed; a later run requeues them")
		} else if failed > 0 {
			log.Error().Int("failed", failed).Msg("events failed 3 observer runs; kept as failed (see hook doctor)")
		}
	}
	defer func() {
		if r := recover(); r != nil {
			releaseAll(false)
			cont, err = false, fmt.Errorf("observer run panicked: %v", r)
		}
	}()
	authIn := o.authInputs()
	bin, binErr := ResolveClaude(o.d.Env, s, o.d.GOOS)
	src, _, aerr := auth.Resolve(ctx, authIn)
	fp := o.fingerprint(authIn, src, aerr, bin, binErr)
	h, herr := health.Load(s.DataDir)
	if herr != nil {
		log.Warn().Err(herr).Msg("health.json unreadable; treated as unknown")
	}
	if paused, why := h.Paused(now, fp); paused {
		log.Info().Str("reason", why).Msg("observer paused; events stay pending")
		releaseAll(false)
		return false, nil
	}
	if binErr != nil {
		log.Error().Err(binErr).Msg("observer: claude executable unavailable; paused")
		releaseAll(false)
		o.recordSetup(binErr, "", fp)
		return false, nil
	}
	if aerr != nil {
		log.Error().Str("reason", aerr.Error()).Msg("observer: no usable credential; paused")
		releaseAll(false)
		o.recordAuth(AuthSourceName(aerr, s.AuthSource), aerr.Error(), fp)
		return false, nil
	}
	in, err := o.promptInput(ctx, db, events, writeSummary)
	if err != nil {
		releaseAll(false)
		return false, err
	}
	proj := in.Project
	spec := observer.BuildSpec(observer.SpecInput{Settings: s, Env: o.d.Env, GOOS: o.d.GOOS, Binary: bin, Auth: src, RunID: runID})
	log.Info().Interface("spec", spec.Redacted()).Msg("observer spawn")
	prompt := observer.BuildPrompt(in)
	res := observer.Run(ctx, spec, prompt, func() (claudebin.Result, error) { return ResolveClaude(o.d.Env, s, o.d.GOOS) }, observer.RunOptions{Slot: o.slot, Now: o.d.Now})
	res.Reason = redact.Scrub(res.Reason, src.Value.Reveal()) // it may quote the child's output
	log = log.With().Str("outcome", string(res.Outcome)).Logger()
	if writeSummary && (res.Outcome == observer.OutcomeOK || res.Outcome == observer.OutcomeError) {
		// Only a run that answered counts against the summary's attempts: a rate limit or
		// a timeout must not use them up.
		if err := db.BeginFinal(dbctx, o.session); err != nil {
			log.Warn().Err(err).Msg("counting the summary attempt failed")
		}
	}
	if res.ExitCode != 0 && res.StderrTail != "" {
		log.Error().Int("exit", res.ExitCode).Str("stderr_tail", redact.Scrub(res.StderrTail, src.Value.Reveal())).Msg("observer child exited non-zero")
	}
	run := &health.Run{ID: runID, Outcome: string(res.Outcome), Reason: res.Reason, Time: o.d.Now(), Events: len(events)}
	// Every spawned run is recorded with what it cost (zero without a result line), after
	// the outcome's own writes, so the budget sees it before the next batch starts.
	rec := store.RunRecord{ID: runID, SessionID: o.session, Project: proj, Model: cmp.Or(res.Model, s.Model),
		Outcome: string(res.Outcome), StartedAt: now, Events: len(events), Usage: res.Usage}
	defer func() {
		rec.EndedAt = o.d.Now()
		if err := db.RecordRun(dbctx, rec); err != nil {
			log.Error().Err(err).Msg("recording the run's cost failed")
		}
	}()
	defer func() {
		if err := observer.Prune(spec.SessionDir, s.ObserverRetention); err != nil {
			log.Warn().Err(err).Msg("pruning old observer run dirs failed")
		}
	}()
	switch res.Outcome {
	case observer.OutcomeOK:
		return o.answered(dbctx, db, answerRun{id: runID, events: len(events), final: writeSummary, project: proj,
			res: res, rec: &rec, health: run, src: src, log: log, releaseAll: releaseAll})
	case observer.OutcomeAuthFailed:
		log.Error().Str("source", string(src.Kind)).Str("from", src.From).Str("reason", res.Reason).Msg("observer: authentication failed; paused")
		releaseAll(false)
		o.recordAuthRun(string(src.Kind), res.Reason, fp, run)
	case observer.OutcomeSetupRequired:
		log.Error().Str("reason", res.Reason).Msg("observer: claude could not be started; paused")
		releaseAll(false)
		startErr := res.StartErr
		if startErr == nil {
			startErr = errors.New(res.Reason)
		}
		o.recordSetup(startErr, res.Binary, fp)
		o.update(func(h *health.Health) { h.LastRun = run })
	case observer.OutcomeTransient:
		log.Warn().Str("reason", res.Reason).Msg("observer: transient failure; events stay pending")
		releaseAll(false)
		o.update(func(h *health.Health) { h.LastRun = run })
	default:
		log.Error().Str("reason", res.Reason).Int("exit", res.ExitCode).Msg("observer run failed; attempt counted")
		releaseAll(true)
		o.update(func(h *health.Health) { h.LastRun = run })
	}
	return false, nil
}

// promptInput is what a batch is shown (§24): its events, the prompts and answers of the
// turns they cover (a summary run: the session's latest), and what memory holds already:
// the session's observations and the project's newest, listed so they are not written
// again (a summary run also summarises from the session's, shown whole).
func (o *observeRun) promptInput(ctx context.Context, db *store.DB, events []store.Event, writeSummary bool) (observer.PromptInput, error) {
	covered, limit := events, turnLimit
	if writeSummary {
		covered, limit = nil, summaryTurn
	}
	turns, err := db.TurnsOf(ctx, o.session, covered, limit)
	if err != nil {
		return observer.PromptInput{}, err
	}
	mine, err := db.SessionObservations(ctx, o.session, sessionObs)
	if err != nil {
		return observer.PromptInput{}, err
	}
	proj := projectOf(events, turns.Prompts, mine)
	theirs, err := db.RecentObservations(ctx, proj, projectObs)
	if err != nil {
		return observer.PromptInput{}, err
	}
	in := observer.PromptInput{Project: proj, Events: events, Prompts: turns.Prompts, Answers: turns.Answers,
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
	if err := health.Update(o.s.DataDir, o.d.Now(), func(h *health.Health) { fn(h); h.Settings = errs }); err != nil {
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

func (o *observeRun) recordAuth(source, reason, fp string) { o.recordAuthRun(source, reason, fp, nil) }

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

func (o *observeRun) recordAuthRun(source, reason, fp string, run *health.Run) {
	now := o.d.Now()
	o.update(func(h *health.Health) {
		h.Auth = health.Auth{State: "failed", Source: source, Reason: reason, Since: sinceOr(h.Auth, "failed", now)}
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

func (o *observeRun) authInputs() auth.Inputs { return AuthInputs(o.d) }

// AuthInputs is what auth.Resolve reads for a run (doctor resolves with the same inputs).
func AuthInputs(d Deps) auth.Inputs {
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
	fmt.Fprintln(h, auth.FileSig(filepath.Join(o.s.DataDir, settings.SettingsFile)))
	// Where the requests go: a fixed base URL or proxy lifts a 401/403 pause at once.
	for _, k := range []string{"ANTHROPIC_BASE_URL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"} {
		fmt.Fprintf(h, "%s=%q/%q\n", k, o.d.Env.Get(k), o.s.DotEnv.Get(k))
	}
	if binErr != nil {
		fmt.Fprintln(h, "claude:", binErr.Error())
	} else {
		fmt.Fprintln(h, "claude:", bin.Path, auth.FileSig(bin.Path))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// SlotsDir holds the agent slots' lock files.
func SlotsDir(dataDir string) string { return filepath.Join(dataDir, settings.LocksDir, "agents") }

// ReapOrphans stops observer children left running past their deadline by a killed
// `hook observe` (they still hold their slots); SessionStart and every waiting run call it.
func ReapOrphans(dataDir string, now time.Time, log zerolog.Logger) {
	if dataDir == "" {
		return // no data dir, no slots
	}
	stopped, err := observer.ReapOrphans(SlotsDir(dataDir), now, observer.OSProcs{})
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
		ReapOrphans(o.s.DataDir, o.d.Now(), o.log)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(slotPoll):
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
