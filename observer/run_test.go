package observer

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// apiKey is the credential the runs resolve; no log line and no health.json may hold it.
const apiKey = "sk-ant-api03-unitTestKeyThatMustNeverBeWrittenAnywhere0123456789-AAAA"

const session = "s1"

// harness is one data dir with a real store and health.json, a claude executable on disk
// and a fake Spawn that answers with the results given, in order.
type harness struct {
	t       *testing.T
	dir     string
	env     settings.Env
	clock   *testkit.Clock
	procs   *procs
	db      *store.DB
	log     bytes.Buffer
	results []spawn.Result
	specs   []spawn.Spec
	prompts []string
	panics  bool
	opened  int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "claude")
	if err := os.MkdirAll(filepath.Dir(exe), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := settings.EnsureDataDir(data); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: data, clock: testkit.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), procs: newProcs(), env: settings.Env{
		"HOME": filepath.Join(dir, "home"), envname.DataDir: data, envname.ClaudePath: exe,
		"ANTHROPIC_API_KEY": apiKey,
	}}
	db, err := memory.Memory{DataDir: data}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h.db = db
	return h
}

func (h *harness) deps() Deps {
	h.t.Helper()
	s, err := settings.Load(h.env, "", "linux")
	if err != nil {
		h.t.Fatal(err)
	}
	return Deps{
		Inputs: Inputs{Settings: s, Env: h.env, GOOS: "linux", Home: h.env.Get("HOME"), Now: h.clock.Now},
		Log:    zerolog.New(&h.log),
		OpenStore: func() (*store.DB, error) {
			h.opened++
			return memory.Memory{DataDir: h.dir}.OpenWrite()
		},
		Spawn:        h.spawn,
		LoadHealth:   func() (health.Health, error) { return health.Load(h.dir) },
		UpdateHealth: func(fn func(*health.Health)) error { return health.Update(h.dir, h.clock.Now(), fn) },
		Claude:       func() (claudebin.Result, error) { return ResolveClaude(h.env, s, "linux") },
		Credential: func(ctx context.Context, in auth.Inputs) (auth.Source, error) {
			src, _, err := auth.Resolve(ctx, in)
			return src, err
		},
		Procs: h.procs,
		After: h.clock.After,
	}
}

// procs is the process table of the runs' owners: this process, and pid → start time for
// the owners a test names (any other pid has no process). asked counts the questions
// about other processes.
type procs struct {
	start map[int]string
	asked int
}

func newProcs() *procs { return &procs{start: map[int]string{os.Getpid(): "self"}} }

func (p *procs) StartTime(pid int) (string, error) {
	if pid != os.Getpid() {
		p.asked++
	}
	if st, ok := p.start[pid]; ok {
		return st, nil
	}
	return "", fmt.Errorf("process %d: %w", pid, spawn.ErrNoProcess)
}

func (p *procs) KillGroup(pgid int) error {
	return fmt.Errorf("process group %d: not in this test's table", pgid)
}

func (h *harness) spawn(_ context.Context, spec spawn.Spec, prompt string, resolve func() (claudebin.Result, error), opt spawn.Options) spawn.Result {
	h.t.Helper()
	if h.panics {
		panic("spawn exploded")
	}
	if opt.Slot == nil || opt.Now == nil || resolve == nil {
		h.t.Errorf("spawn without its slot, clock or re-resolve: %+v", opt)
	}
	if spec.Binary != h.env.Get(envname.ClaudePath) || spec.Auth.Value.Reveal() != h.env.Get("ANTHROPIC_API_KEY") {
		h.t.Errorf("spawn spec binary %q, credential %q", spec.Binary, spec.Auth.Value.Reveal())
	}
	h.specs, h.prompts = append(h.specs, spec), append(h.prompts, prompt)
	if len(h.specs) > len(h.results) {
		h.t.Errorf("spawn %d unexpected (%d results given)", len(h.specs), len(h.results))
		return spawn.Result{Outcome: vocab.OutcomeTransient, Reason: "unexpected spawn"}
	}
	return h.results[len(h.specs)-1]
}

// seed stores n tool events of the session (and its end, asking for the summary, when final).
func (h *harness) seed(n int, final bool) {
	h.t.Helper()
	sess := store.Session{ID: session, Project: "p"}
	recs := []store.Captured{{Kind: store.CaptureStart, Session: sess, At: h.clock.Now().Add(-time.Hour)}}
	for i := range n {
		at := h.clock.Now().Add(-time.Hour + time.Duration(i+1)*time.Second)
		recs = append(recs, store.Captured{Kind: store.CaptureEvent, Session: sess, At: at,
			Event: store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: fmt.Sprintf(`{"command":"step %d"}`, i), At: at, RecordID: fmt.Sprint("e", i)}})
	}
	if final {
		recs = append(recs, store.Captured{Kind: store.CaptureEnd, Session: sess, At: h.clock.Now().Add(-time.Minute), Final: true})
	}
	if _, err := h.db.Ingest(context.Background(), recs); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) run(final bool) error { return Run(context.Background(), h.deps(), session, final) }

func (h *harness) counts() store.Counts {
	h.t.Helper()
	c, err := h.db.Counts(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (h *harness) health() health.Health {
	h.t.Helper()
	hl, err := health.Load(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	return hl
}

// day is today's runs row (all projects together).
func (h *harness) day() store.DayStats {
	h.t.Helper()
	ds, err := h.db.DailyStats(context.Background(), h.clock.Now().Add(-24*time.Hour), h.clock.Now().Add(24*time.Hour), time.UTC, "")
	if err != nil {
		h.t.Fatal(err)
	}
	var d store.DayStats
	for _, r := range ds {
		d.Runs, d.Observations, d.Duplicates = d.Runs+r.Runs, d.Observations+r.Observations, d.Duplicates+r.Duplicates
		d.CostUSD += r.CostUSD
		if d.Answers == nil {
			d.Answers = map[vocab.Verdict]int{}
		}
		for v, n := range r.Answers {
			d.Answers[v] += n
		}
	}
	return d
}

func (h *harness) summaryOwed() bool {
	h.t.Helper()
	ids, err := h.db.PendingFinals(context.Background(), h.clock.Now().Add(time.Hour), maxAttempts)
	if err != nil {
		h.t.Fatal(err)
	}
	return len(ids) > 0
}

// Observer answers and failures, as spawn.Run classifies them.
func answer(text string) spawn.Result {
	return spawn.Result{Outcome: vocab.OutcomeOK, Text: text, Usage: store.Usage{CostUSD: 0.25}, Model: "claude-haiku"}
}

func obs(title string) string {
	return "<observation><type>change</type><title>" + title + "</title><narrative>n</narrative></observation>"
}

// cut is an answer cut at the output limit: one complete block, one cut in its title.
var cut = func() spawn.Result {
	r := answer(obs("Kept") + "\n<observation><type>change</type><title>Cut")
	r.Truncated = true
	return r
}()

const summary = "<summary><request>fix the test</request><learned>timers flake</learned><completed>fixed</completed></summary>"

var (
	authFailed = spawn.Result{Outcome: vocab.OutcomeAuthFailed, Reason: "authentication_failed", ExitCode: 1}
	// The child quoted the credential: neither the log nor health.json may repeat it.
	failed    = spawn.Result{Outcome: vocab.OutcomeError, Reason: "exit status 1: bad key " + apiKey, ExitCode: 1, StderrTail: "stderr: " + apiKey}
	transient = spawn.Result{Outcome: vocab.OutcomeTransient, Reason: "rate limited (429)", ExitCode: 1}
)

// The outcome table (DESIGN.md §8, §24): what each outcome and each answer verdict leaves in
// the queue, health.json (auth, setup, pause, last run) and runs, with the claude executable
// and the credential resolved for real and the child faked.
func TestOutcomeTable(t *testing.T) {
	unspawnable := func(h *harness) spawn.Result {
		exe := h.env.Get(envname.ClaudePath)
		return spawn.Result{Outcome: vocab.OutcomeSetupRequired, Reason: "exec format error", Binary: exe,
			StartErr: &claudebin.UnspawnableError{Path: exe, Err: syscall.ENOEXEC}}
	}
	type want struct {
		spawns                int
		pending, done, failed int
		answers               map[vocab.Verdict]int
		observations, dups    int
		auth, setup           string // health states
		paused                bool
		lastRun               vocab.Outcome // "": none recorded
		summaryOwed           bool
		err                   bool
	}
	for _, tc := range []struct {
		name   string
		events int
		final  bool
		runs   int // Run calls, 1 when 0
		env    map[string]string
		before func(h *harness)
		// earlierRuns are the rows of runs before records.
		earlierRuns int
		results     func(h *harness) []spawn.Result
		want        want
	}{
		{name: "ok: stored, events done, credential and executable shown working", events: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{answer(obs("One"))} },
			want: want{spawns: 1, done: 2, answers: map[vocab.Verdict]int{vocab.VerdictStored: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: salvaged from prose around the block", events: 2,
			results: func(*harness) []spawn.Result {
				return []spawn.Result{answer("Here you go:\n" + obs("One") + "\nbye")}
			},
			want: want{spawns: 1, done: 2, answers: map[vocab.Verdict]int{vocab.VerdictSalvaged: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: skipped, events done, nothing stored", events: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{answer(`<skip reason="routine reads"/>`)} },
			want: want{spawns: 1, done: 2, answers: map[vocab.Verdict]int{vocab.VerdictSkipped: 1},
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: unusable, events pending with an attempt counted", events: 2,
			results: func(*harness) []spawn.Result {
				return []spawn.Result{answer("I looked at the events and they are fine.")}
			},
			want: want{spawns: 1, pending: 2, answers: map[vocab.Verdict]int{vocab.VerdictUnusable: 1},
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: unusable three times, events failed and kept", events: 2, runs: 3,
			results: func(*harness) []spawn.Result {
				return []spawn.Result{answer(""), answer(""), answer("")}
			},
			want: want{spawns: 3, failed: 2, answers: map[vocab.Verdict]int{vocab.VerdictUnusable: 3},
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: truncated, kept and requeued, re-run in halves", events: 2,
			results: func(*harness) []spawn.Result {
				return []spawn.Result{cut, answer(obs("Kept")), answer(obs("Second"))}
			},
			// The re-run's equal block is a duplicate, counted, not stored again.
			want: want{spawns: 3, done: 2, answers: map[vocab.Verdict]int{vocab.VerdictSalvaged: 1, vocab.VerdictStored: 2},
				observations: 2, dups: 1, auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: truncated with one event is not re-run", events: 1,
			results: func(*harness) []spawn.Result { return []spawn.Result{cut} },
			want: want{spawns: 1, done: 1, answers: map[vocab.Verdict]int{vocab.VerdictSalvaged: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: the budget is checked before every batch", events: 2, env: map[string]string{envname.DailyBudgetUSD: "0.25"},
			results: func(*harness) []spawn.Result { return []spawn.Result{cut} },
			want: want{spawns: 1, pending: 2, answers: map[vocab.Verdict]int{vocab.VerdictSalvaged: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: final, summary written", events: 1, final: true,
			results: func(*harness) []spawn.Result { return []spawn.Result{answer(obs("One") + "\n" + summary)} },
			want: want{spawns: 1, done: 1, answers: map[vocab.Verdict]int{vocab.VerdictStored: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "ok: final without its summary, still owed", events: 1, final: true,
			results: func(*harness) []spawn.Result { return []spawn.Result{answer(obs("One"))} },
			want: want{spawns: 1, done: 1, answers: map[vocab.Verdict]int{vocab.VerdictSalvaged: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK, summaryOwed: true}},
		{name: "auth_failed: paused, events pending, no attempt", events: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{authFailed} },
			want: want{spawns: 1, pending: 2, auth: health.StateFailed, setup: health.StateUnknown, paused: true,
				lastRun: vocab.OutcomeAuthFailed}},
		{name: "auth_failed: the next run waits out the pause", events: 2, runs: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{authFailed} },
			want: want{spawns: 1, pending: 2, auth: health.StateFailed, setup: health.StateUnknown, paused: true,
				lastRun: vocab.OutcomeAuthFailed}},
		{name: "setup_required: paused, events pending", events: 2,
			results: func(h *harness) []spawn.Result { return []spawn.Result{unspawnable(h)} },
			want: want{spawns: 1, pending: 2, auth: health.StateUnknown, setup: health.StateRequired, paused: true,
				lastRun: vocab.OutcomeSetupRequired}},
		{name: "transient: events pending, no pause", events: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{transient} },
			want:    want{spawns: 1, pending: 2, auth: health.StateUnknown, setup: health.StateUnknown, lastRun: vocab.OutcomeTransient}},
		{name: "error: attempt counted, no pause", events: 2,
			results: func(*harness) []spawn.Result { return []spawn.Result{failed} },
			want:    want{spawns: 1, pending: 2, auth: health.StateUnknown, setup: health.StateUnknown, lastRun: vocab.OutcomeError}},
		{name: "error three times: events failed, kept", events: 2, runs: 3,
			results: func(*harness) []spawn.Result { return []spawn.Result{failed, failed, failed} },
			want:    want{spawns: 3, failed: 2, auth: health.StateUnknown, setup: health.StateUnknown, lastRun: vocab.OutcomeError}},
		{name: "gate: no claude executable, paused before any spawn", events: 2,
			env:  map[string]string{envname.ClaudePath: "/nonexistent/claude"},
			want: want{pending: 2, auth: health.StateUnknown, setup: health.StateRequired, paused: true}},
		{name: "gate: no credential, paused before any spawn", events: 2, env: map[string]string{"ANTHROPIC_API_KEY": ""},
			want: want{pending: 2, auth: health.StateFailed, setup: health.StateUnknown, paused: true}},
		{name: "gate: budget reached, nothing claimed", events: 2, env: map[string]string{envname.DailyBudgetUSD: "1"}, earlierRuns: 1,
			before: func(h *harness) {
				if err := h.db.RecordRun(context.Background(), store.RunRecord{ID: "earlier", SessionID: "s0", Project: "p", Outcome: "ok",
					StartedAt: h.clock.Now().Add(-time.Hour), EndedAt: h.clock.Now().Add(-time.Hour), Usage: store.Usage{CostUSD: 1}}); err != nil {
					h.t.Fatal(err)
				}
			},
			want: want{pending: 2, auth: health.StateUnknown, setup: health.StateUnknown}},
		{name: "gate: observer off, the store is not even opened", events: 2, env: map[string]string{envname.MaxConcurrentAgents: "0"},
			want: want{pending: 2, auth: health.StateUnknown, setup: health.StateUnknown}},
		{name: "gate: a corrupt health.json reads as unknown, the run goes on", events: 1,
			before: func(h *harness) {
				if err := os.WriteFile(settings.Layout(h.dir).Health(), []byte("{not json"), 0o600); err != nil {
					h.t.Fatal(err)
				}
			},
			results: func(*harness) []spawn.Result { return []spawn.Result{answer(obs("One"))} },
			want: want{spawns: 1, done: 1, answers: map[vocab.Verdict]int{vocab.VerdictStored: 1}, observations: 1,
				auth: health.StateOK, setup: health.StateOK, lastRun: vocab.OutcomeOK}},
		{name: "trivial session: no run, no summary owed", final: true,
			before: func(h *harness) {
				if _, err := h.db.Ingest(context.Background(), []store.Captured{{Kind: store.CapturePrompt, Session: store.Session{ID: session, Project: "p"},
					Prompt: store.Prompt{Text: "hello", At: h.clock.Now().Add(-time.Hour), RecordID: "p0"}}}); err != nil {
					h.t.Fatal(err)
				}
			},
			want: want{auth: health.StateUnknown, setup: health.StateUnknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			maps.Copy(h.env, tc.env)
			if tc.before != nil {
				tc.before(h)
			}
			h.seed(tc.events, tc.final)
			if tc.results != nil {
				h.results = tc.results(h)
			}
			var err error
			for range max(tc.runs, 1) {
				if err = h.run(tc.final); err != nil {
					break
				}
			}
			w := tc.want
			if (err != nil) != w.err {
				t.Errorf("Run: %v", err)
			}
			if len(h.specs) != w.spawns {
				t.Errorf("%d spawns, want %d", len(h.specs), w.spawns)
			}
			if c := h.counts(); c != (store.Counts{Pending: w.pending, Done: w.done, Failed: w.failed}) {
				t.Errorf("queue %+v, want pending %d done %d failed %d", c, w.pending, w.done, w.failed)
			}
			d := h.day()
			// Every spawn is a row of runs, beside those the case recorded before.
			if d.Runs != w.spawns+tc.earlierRuns || d.Observations != w.observations || d.Duplicates != w.dups {
				t.Errorf("runs %d observations %d duplicates %d, want %d %d %d", d.Runs, d.Observations, d.Duplicates, w.spawns+tc.earlierRuns, w.observations, w.dups)
			}
			if got := d.Answers; !maps.Equal(got, w.answers) && (len(got) != 0 || len(w.answers) != 0) {
				t.Errorf("answers %v, want %v", got, w.answers)
			}
			hl := h.health()
			if hl.Auth.State != w.auth || hl.Setup.State != w.setup {
				t.Errorf("health auth %q setup %q, want %q %q", hl.Auth.State, hl.Setup.State, w.auth, w.setup)
			}
			if paused := hl.PausedUntil.After(h.clock.Now()) && hl.PauseFingerprint != ""; paused != w.paused {
				t.Errorf("paused %v, want %v (%+v)", paused, w.paused, hl)
			}
			var last vocab.Outcome
			if hl.LastRun != nil {
				last = vocab.Outcome(hl.LastRun.Outcome)
			}
			if last != w.lastRun {
				t.Errorf("last run %q, want %q", last, w.lastRun)
			}
			if tc.final && h.summaryOwed() != w.summaryOwed {
				t.Errorf("summary owed %v, want %v", !w.summaryOwed, w.summaryOwed)
			}
			if tc.env[envname.MaxConcurrentAgents] == "0" && h.opened != 0 {
				t.Errorf("the store was opened %d times with the observer off", h.opened)
			}
			raw, _ := os.ReadFile(settings.Layout(h.dir).Health())
			if strings.Contains(h.log.String(), apiKey) || strings.Contains(string(raw), apiKey) {
				t.Errorf("the credential reached the log or health.json:\n%s\n%s", h.log.String(), raw)
			}
		})
	}
}

// A pause holds while the inputs stay the same, and lifts at once when one changes (here
// the credential) or when its time is up.
func TestPauseLiftsWhenInputsChangeOrTimePasses(t *testing.T) {
	h := newHarness(t)
	h.seed(2, false)
	h.results = []spawn.Result{authFailed, authFailed, answer(obs("One"))}
	for _, step := range []struct {
		name   string
		change func()
		spawns int
	}{
		{"first run fails auth", func() {}, 1},
		{"same inputs: paused", func() {}, 1},
		{"another credential: runs", func() { h.env["ANTHROPIC_API_KEY"] = apiKey + "B" }, 2},
		{"paused again", func() {}, 2},
		{"15 minutes on: runs", func() { h.clock.Advance(pauseFor) }, 3},
	} {
		step.change()
		if err := h.run(false); err != nil {
			t.Fatal(step.name, err)
		}
		if len(h.specs) != step.spawns {
			t.Fatalf("%s: %d spawns, want %d", step.name, len(h.specs), step.spawns)
		}
	}
	if c := h.counts(); c.Done != 2 {
		t.Errorf("queue %+v after the pause lifted", c)
	}
	// The answer clears the pause and shows the credential working.
	if hl := h.health(); !hl.PausedUntil.IsZero() || hl.PauseFingerprint != "" || hl.Auth.State != health.StateOK {
		t.Errorf("health after an answer: %+v", hl)
	}
}

// A Spawn that panics gives the batch's events back (none left processing) and ends the
// run with an error.
func TestSpawnPanicReleasesTheBatch(t *testing.T) {
	h := newHarness(t)
	h.seed(2, false)
	h.panics = true
	err := h.run(false)
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("Run: %v", err)
	}
	if c := h.counts(); c != (store.Counts{Pending: 2}) {
		t.Errorf("queue %+v, want 2 pending", c)
	}
}

// The store failing to open ends the run with its error, nothing spawned.
func TestOpenStoreFailure(t *testing.T) {
	h := newHarness(t)
	d := h.deps()
	boom := errors.New("disk gone")
	d.OpenStore = func() (*store.DB, error) { return nil, boom }
	if err := Run(context.Background(), d, session, false); !errors.Is(err, boom) || len(h.specs) != 0 {
		t.Errorf("Run: %v, %d spawns", err, len(h.specs))
	}
}

// With every agent slot held, a run waits for one, polling on the clock: it takes the
// slot once one is free and runs; a run whose context ends while it waits leaves the events
// pending without spawning.
func TestNoSlotFree(t *testing.T) {
	for _, freed := range []bool{false, true} {
		h := newHarness(t)
		h.seed(2, false)
		h.env[envname.MaxConcurrentAgents] = "1"
		h.results = []spawn.Result{answer(obs("Ran once the slot was free"))}
		held, ok, err := lockfile.TrySlot(settings.Layout(h.dir).Slots(), 1)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Run(ctx, h.deps(), session, false) }()
		h.clock.WaitTimers(1) // every slot busy: the run waits
		h.clock.Advance(slotPoll)
		h.clock.WaitTimers(1) // still busy at the next poll
		if freed {
			held.Release()
		} else {
			cancel()
		}
		h.clock.Advance(slotPoll)
		err = <-done
		cancel()
		held.Release()
		want, spawns := store.Counts{Pending: 2}, 0
		if freed {
			want, spawns = store.Counts{Done: 2}, 1
		}
		if err != nil || len(h.specs) != spawns {
			t.Errorf("freed %v: Run: %v, %d spawns, want %d", freed, err, len(h.specs), spawns)
		}
		if c := h.counts(); c != want {
			t.Errorf("freed %v: queue %+v, want %+v", freed, c, want)
		}
	}
}

// ClaudeStatus names the executable unstartable while that very file (path, size, mtime) is
// the one the last spawn failed on; a changed file is found again.
func TestClaudeStatusRemembersAnUnstartableFile(t *testing.T) {
	h := newHarness(t)
	s := h.deps().Settings
	exe := h.env.Get(envname.ClaudePath)
	failedOn := health.Health{Setup: health.Setup{State: health.StateRequired, Reason: "exec format error", Path: exe, Sig: auth.FileSig(exe)}}
	var ue *claudebin.UnspawnableError
	if _, err := ClaudeStatus(h.env, s, "linux", failedOn); !errors.As(err, &ue) || ue.Path != exe {
		t.Errorf("the same file: %v", err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if bin, err := ClaudeStatus(h.env, s, "linux", failedOn); err != nil || bin.Path != exe {
		t.Errorf("a changed file: %v, %+v", err, bin)
	}
}

// strandRun claims the session's pending events under a run whose process is gone before
// it finished: its run dir holds the lease owner and the transcript it left ("" none).
func (h *harness) strandRun(sid string, owner spawn.Owner, transcript string) string {
	h.t.Helper()
	id := spawn.NewRunID(h.clock.Now().Add(-time.Minute))
	if evs, err := h.db.Claim(context.Background(), sid, id, 40, h.clock.Now().Add(-time.Minute)); err != nil || len(evs) == 0 {
		h.t.Fatalf("claim %s: %d events, %v", sid, len(evs), err)
	}
	dir, _ := spawn.RunDir(filepath.Join(h.dir, settings.SessionsDir), id)
	if err := spawn.MakeRunDir(h.dir, dir); err != nil {
		h.t.Fatal(err)
	}
	if err := spawn.WriteOwner(dir, owner); err != nil {
		h.t.Fatal(err)
	}
	if transcript != "" {
		if err := os.WriteFile(filepath.Join(dir, spawn.TranscriptFile), []byte(transcript), 0o600); err != nil {
			h.t.Fatal(err)
		}
	}
	return id
}

// answeredTranscript is the stream-json of a run that answered with text and cost.
func answeredTranscript(text string, cost float64) string {
	t, _ := json.Marshal(text)
	return `{"type":"system","subtype":"init","model":"claude-haiku"}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"text","text":` + string(t) + `}]}}` + "\n" +
		fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"result":%s,"total_cost_usd":%v}`, t, cost) + "\n"
}

// A run whose process is gone is settled by the next run at once, not after the stale
// timeout: its answer, kept in its transcript (the store failed: a full disk), is stored
// with its cost; without one its events are pending again and the run counted unrecorded.
// The run's own session is settled whatever its lease says (the next run holds the
// session's lock); another session's only when its lease's owner is gone: a live one is
// left alone (the control).
func TestStrandedRunsSettledAtOnce(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	h.seed(3, false)
	addSession := func(sid string) {
		sess := store.Session{ID: sid, Project: "p"}
		at := h.clock.Now().Add(-time.Hour)
		if _, err := h.db.Ingest(ctx, []store.Captured{{Kind: store.CaptureEvent, Session: sess, At: at,
			Event: store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: `{"command":"make"}`, At: at, RecordID: sid + "-e"}}}); err != nil {
			t.Fatal(err)
		}
	}
	addSession("dead")
	addSession("live")
	host, _ := os.Hostname() // an owner on another host is taken as alive
	alive := spawn.Owner{Pid: 100, Start: "1", Host: host}
	gone := spawn.Owner{Pid: 200, Start: "1", Host: host}
	h.procs.start[alive.Pid] = alive.Start // pid 200 has no process
	own := h.strandRun(session, alive, answeredTranscript(obs("Kept from the transcript"), 0.5))
	dead := h.strandRun("dead", gone, `{"type":"system","subtype":"init"}`+"\n")
	h.strandRun("live", alive, "")
	d := h.deps()
	if err := Run(ctx, d, session, false); err != nil {
		t.Fatal(err)
	}
	if len(h.specs) != 0 {
		t.Errorf("%d spawns: the stored answer covered the session's events", len(h.specs))
	}
	if h.procs.asked != 2 {
		t.Errorf("the process table was asked %d times, want 2 (the other sessions' runs)", h.procs.asked)
	}
	obsNow, err := h.db.SessionObservations(ctx, session, 10)
	if err != nil || len(obsNow) != 1 || obsNow[0].Title != "Kept from the transcript" || obsNow[0].RunID != own {
		t.Errorf("observations %+v, %v; want the transcript's, of run %s", obsNow, err, own)
	}
	if st := h.counts(); st.Done != 3 || st.Pending != 1 || st.Processing != 1 {
		t.Errorf("queue %+v; want the session's 3 done, the dead run's 1 pending, the live run's 1 processing", st)
	}
	ds, err := h.db.DailyStats(ctx, h.clock.Now().Add(-24*time.Hour), h.clock.Now().Add(time.Hour), time.UTC, "")
	if err != nil || len(ds) != 1 {
		t.Fatalf("daily stats %+v, %v", ds, err)
	}
	if r := ds[0]; r.Runs != 2 || r.Unrecorded != 1 || r.CostUSD != 0.5 || r.Events != 3 {
		t.Errorf("runs %d (unrecorded %d), cost $%v, events %d; want 2 (1: the dead run), $0.5, 3", r.Runs, r.Unrecorded, r.CostUSD, r.Events)
	}
	for _, want := range []string{"storing the answer of a run whose process was gone", "events of a run whose process was gone are pending again at once", dead} {
		if !strings.Contains(h.log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, h.log.String())
		}
	}
	st, err := StrandedRuns(ctx, h.db, h.dir, spawn.OwnerAlive(h.procs))
	if err != nil || len(st) != 0 {
		t.Errorf("stranded after the run: %+v, %v; want none (the live run's owner runs)", st, err)
	}
}

// StrandedRuns names what SessionStart restarts and doctor reports: runs whose lease's
// owner is gone, and whether an answer waits in their transcript.
func TestStrandedRuns(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	h.seed(2, false)
	gone := spawn.Owner{Pid: 200, Start: "1", Host: "h"}
	id := h.strandRun(session, gone, answeredTranscript(obs("Waits"), 0.1))
	for _, tc := range []struct {
		alive bool
		want  int
	}{{true, 0}, {false, 1}} {
		st, err := StrandedRuns(ctx, h.db, h.dir, func(spawn.Owner) bool { return tc.alive })
		if err != nil || len(st) != tc.want {
			t.Fatalf("owner alive %v: %+v, %v; want %d", tc.alive, st, err, tc.want)
		}
		if tc.want == 1 && (st[0].ID != id || !st[0].Answered || st[0].Events != 2 || st[0].SessionID != session) {
			t.Errorf("stranded %+v; want run %s, answered, 2 events", st[0], id)
		}
	}
}

// A run that starts no child (here: no claude executable) gives its events back and leaves
// no run dir: its lease goes with its claim. So does a run that claims nothing.
func TestRunWithoutChildLeavesNoRunDir(t *testing.T) {
	h := newHarness(t)
	h.seed(2, false)
	h.env[envname.ClaudePath] = filepath.Join(h.dir, "no-such-claude")
	if err := h.run(false); err != nil {
		t.Fatal(err)
	}
	if c := h.counts(); c.Pending != 2 {
		t.Fatalf("queue %+v, want 2 pending", c)
	}
	h.run(false) // paused now: claims, then gives back
	entries, _ := os.ReadDir(filepath.Join(h.dir, settings.SessionsDir))
	if len(entries) != 0 || len(h.specs) != 0 {
		t.Errorf("%d run dirs left, %d spawns; want none", len(entries), len(h.specs))
	}
}

// An answer the store does not take (here a trigger refuses the insert, as a full disk
// would) is not dropped: its events stay claimed, no run is recorded (its cost would be
// counted without its answer), and the next run stores it from the run's transcript with
// its cost, without spawning again. Releasing the events instead would lose it (the check
// can fail: the events would be pending and the next run would spawn).
func TestAnswerNotStoredIsKeptForTheNextRun(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	h.seed(2, false)
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, settings.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON observations BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	h.results = []spawn.Result{answer(obs("Kept for later"))}
	d := h.deps()
	spawned := d.Spawn
	d.Spawn = func(ctx context.Context, spec spawn.Spec, prompt string, resolve func() (claudebin.Result, error), opt spawn.Options) spawn.Result {
		res := spawned(ctx, spec, prompt, resolve, opt)
		// What spawn.Run keeps of the child's stdout.
		if err := os.WriteFile(filepath.Join(spec.Dir, spawn.TranscriptFile), []byte(answeredTranscript(res.Text, res.Usage.CostUSD)), 0o600); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if err := Run(ctx, d, session, false); err == nil {
		t.Fatal("the run whose answer was refused reported no error")
	}
	if c := h.counts(); c.Processing != 2 {
		t.Fatalf("queue %+v after the refused store; want the 2 events still claimed", c)
	}
	if r := h.day(); r.Runs != 0 {
		t.Fatalf("%d runs recorded before the answer was stored", r.Runs)
	}
	if _, err := raw.Exec(`DROP TRIGGER refuse`); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, d, session, false); err != nil {
		t.Fatal(err)
	}
	if len(h.specs) != 1 {
		t.Errorf("%d spawns, want 1: the answer came from the transcript", len(h.specs))
	}
	got, _ := h.db.SessionObservations(ctx, session, 10)
	if c, r := h.counts(), h.day(); len(got) != 1 || got[0].Title != "Kept for later" || c.Done != 2 || r.Runs != 1 || r.CostUSD != 0.25 {
		t.Errorf("observations %+v, queue %+v, runs %d $%v; want the answer, 2 done, 1 run $0.25", got, c, r.Runs, r.CostUSD)
	}
}
