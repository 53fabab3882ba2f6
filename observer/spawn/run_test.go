//go:build linux

package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/vocab"
)

const childToken = "sk-ant-oat01-CHILD"

// fakeSpec builds a real spec (BuildSpec) whose binary is this test binary; the fake's
// controls reach it through CLAUDE_MEM_PASS_ENV like any variable a user passes.
func fakeSpec(t *testing.T, binary, mode, model string, timeout time.Duration) (spec Spec, recordPath string) {
	t.Helper()
	tmp := t.TempDir()
	recordPath = filepath.Join(tmp, "record.json")
	st := &settings.Settings{
		DataDir: filepath.Join(tmp, "data"), Model: model, PreserveProxy: true, ObserverTimeout: timeout,
		PassEnv: []string{fakeModeVar, fakeRecordVar, fakeFixtureVar, fakePidsVar},
	}
	env := settings.Env{
		"PATH": os.Getenv("PATH"), "HOME": tmp, "LANG": "C.UTF-8",
		fakeModeVar: mode, fakeRecordVar: recordPath, fakePidsVar: filepath.Join(tmp, "pids"),
		fakeFixtureVar: fixture(t, "streamjson-out-401-maxretries0.jsonl"),
		// What must not arrive: the user's session and other credentials.
		"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "b1423f95", "ANTHROPIC_API_KEY": "sk-ant-api03-PARENT",
	}
	spec = BuildSpec(SpecInput{
		Settings: st, Env: env, GOOS: "linux", RunID: NewRunID(time.Now()),
		Binary: claudebin.Result{Path: binary, Via: claudebin.ViaPATH},
		Auth:   auth.Source{Kind: auth.KindEnv, From: "environment", EnvVar: "CLAUDE_CODE_OAUTH_TOKEN", Value: childToken},
	})
	return spec, recordPath
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func readRecord(t *testing.T, path string) record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake recorded nothing: %v", err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func noResolve(t *testing.T) func() (claudebin.Result, error) {
	return func() (claudebin.Result, error) {
		t.Error("resolve called although the first start could not be cured by it")
		return claudebin.Result{}, errors.New("unexpected")
	}
}

// gone reports whether pid has exited (a zombie waiting for a reaper counts as gone).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func TestRun(t *testing.T) {
	grace := killGrace
	killGrace = 200 * time.Millisecond
	t.Cleanup(func() { killGrace = grace })
	exe := testBinary(t)
	msg := prompt.Build(prompt.Input{Project: "project", Events: toolEvents(), Prompts: nil, Final: false})

	cases := []struct {
		mode    string
		timeout time.Duration
		cancel  bool
		check   func(t *testing.T, spec Spec, rec string, res Result)
	}{
		{mode: "ok", timeout: time.Minute, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != vocab.OutcomeOK || res.Reason != "" || res.ExitCode != 0 || res.Lines != 3 || res.Text != fakeAnswer || res.Binary != exe {
				t.Errorf("result %+v", res)
			}
			if a := prompt.Parse(res.Text, false, false); len(a.Observations) != 2 || len(a.Warnings) != 0 {
				t.Errorf("parsed %d observations, warnings %q", len(a.Observations), a.Warnings)
			}
			r := readRecord(t, rec)
			if !slices.Equal(r.Args, spec.Args) || r.Args[0] != exe {
				t.Errorf("argv\n got %q\nwant %q", r.Args, spec.Args)
			}
			if !slices.Equal(r.Env, spec.Env) {
				t.Errorf("env\n got %q\nwant %q", r.Env, spec.Env)
			}
			env := strings.Join(r.Env, "\n")
			for _, bad := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "sk-ant-api03-PARENT"} {
				if strings.Contains(env, bad) {
					t.Errorf("%s reached the child", bad)
				}
			}
			if !slices.Contains(r.Env, "CLAUDE_CODE_OAUTH_TOKEN="+childToken) || !slices.Contains(r.Env, "CLAUDE_MEM_INTERNAL=1") {
				t.Errorf("env lacks the credential or the marker: %q", r.Env)
			}
			if cwd, _ := filepath.EvalSymlinks(spec.Dir); r.Cwd != cwd {
				t.Errorf("cwd %s, want %s", r.Cwd, cwd)
			}
			if r.Stdin != string(StdinMessage(msg)) {
				t.Errorf("stdin %q", r.Stdin)
			}
			tr, _ := os.ReadFile(filepath.Join(spec.Dir, TranscriptFile))
			if n := strings.Count(string(tr), "\n"); n != 3 || !strings.Contains(string(tr), `"type":"result"`) {
				t.Errorf("transcript has %d lines: %s", n, tr)
			}
			for _, d := range []string{spec.Dir, spec.ConfigDir} {
				if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("%s: %v %v", d, fi, err)
				}
			}
		}},
		{mode: "auth", timeout: time.Minute, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != vocab.OutcomeAuthFailed || res.Reason != "Invalid API key · Fix external API key" || res.ExitCode != 1 || res.Lines != 3 {
				t.Errorf("result %+v", res)
			}
		}},
		{mode: "crash", timeout: time.Minute, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != vocab.OutcomeError || res.Reason != "exited with code 1 without a result" || res.ExitCode != 1 || res.Lines != 1 {
				t.Errorf("result %+v", res)
			}
			// The tail is the end of what stderr.log holds whole, whatever the process
			// wrote last (a -cover build adds its own warning after the fake's last words).
			full, _ := os.ReadFile(filepath.Join(spec.Dir, StderrFile))
			if !strings.HasPrefix(string(full), "stack frame 0\n") {
				t.Error("stderr.log does not hold the whole stderr")
			}
			if !strings.HasSuffix(strings.TrimSpace(string(full)), res.StderrTail) || !strings.Contains(res.StderrTail, "fatal: the last words") ||
				len(res.StderrTail) > stderrTailBytes || strings.Contains(res.StderrTail, "stack frame 0\n") {
				t.Errorf("stderr tail of %d bytes: %q", len(res.StderrTail), res.StderrTail)
			}
		}},
		{mode: "hang", timeout: 2 * time.Second, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != vocab.OutcomeTransient || res.Reason != "timed out after 2s" || res.ExitCode != -1 || res.Lines != 1 {
				t.Errorf("result %+v", res)
			}
			b, err := os.ReadFile(filepath.Join(filepath.Dir(rec), "pids"))
			if err != nil {
				t.Fatalf("the fake did not start its grandchild within the timeout: %v", err)
			}
			// The group's SIGKILL is sent, but the grandchild is reaped by init a moment
			// later: poll until gone, with a deadline.
			for _, p := range strings.Fields(string(b)) {
				if pid, _ := strconv.Atoi(p); !testkit.Within(5*time.Second, func() bool { return gone(pid) }) {
					t.Errorf("process %d of the group outlived the run", pid)
				}
			}
		}},
		{mode: "hang", timeout: time.Minute, cancel: true, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != vocab.OutcomeTransient || res.Reason != "stopped: context canceled" {
				t.Errorf("result %+v", res)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.mode+map[bool]string{true: "-canceled"}[tc.cancel], func(t *testing.T) {
			t.Parallel()
			spec, rec := fakeSpec(t, exe, tc.mode, "haiku", tc.timeout)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			res := Run(ctx, spec, msg, noResolve(t), Options{})
			tc.check(t, spec, rec, res)
		})
	}
}

// TestRunNoShell: shell syntax in the prompt and in argv values is inert: it arrives byte for
// byte and creates no file anywhere.
func TestRunNoShell(t *testing.T) {
	const payload = "a > pwned1; echo hi | tee pwned2 $(touch pwned3) `touch pwned4` \"q\" 'q' \n && touch pwned5 & del pwned6 ^> pwned7"
	exe := testBinary(t)
	spec, rec := fakeSpec(t, exe, "ok", "haiku $(touch pwned8) > pwned9", time.Minute)
	events := toolEvents()
	events[0].Input, events[0].ToolName = payload, payload
	msg := prompt.Build(prompt.Input{Project: payload, Events: events, Prompts: nil, Final: true}) + payload
	wd, _ := os.Getwd()
	before := listNames(t, wd)

	res := Run(context.Background(), spec, msg, noResolve(t), Options{})
	if res.Outcome != vocab.OutcomeOK {
		t.Fatalf("result %+v", res)
	}
	r := readRecord(t, rec)
	if r.Stdin != string(StdinMessage(msg)) || !slices.Contains(r.Args, "haiku $(touch pwned8) > pwned9") {
		t.Errorf("the payload did not arrive verbatim: %q", r.Args)
	}
	for _, root := range []string{filepath.Dir(rec), wd, filepath.Dir(spec.Dir)} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Error(err)
				return err
			}
			if strings.Contains(d.Name(), "pwned") {
				t.Errorf("a shell ran: %s exists", p)
			}
			return nil
		})
	}
	if after := listNames(t, wd); !slices.Equal(before, after) {
		t.Errorf("the package dir changed: %q → %q", before, after)
	}
	entries, _ := os.ReadDir(spec.Dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{RunLockFile, StderrFile, TranscriptFile}) {
		t.Errorf("the run dir holds %q", names)
	}
}

// TestRunStartFailures: a binary unlinked between resolve and start is re-resolved once and
// the new path runs; a start that fails again, or a failure a resolve cannot cure, is
// setup_required.
func TestRunStartFailures(t *testing.T) {
	exe := testBinary(t)
	dir := t.TempDir()
	link := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(exe, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unlinked := link("claude-old")
	if err := os.Remove(unlinked); err != nil { // the auto-update removed it after resolve
		t.Fatal(err)
	}
	fresh := link("claude-new")
	script := filepath.Join(dir, "claude.cmd")
	notExec := filepath.Join(dir, "claude-noexec")
	for _, f := range []string{script, notExec} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "pwned")+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(notExec, 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name       string
		binary     string
		resolved   claudebin.Result
		resolveErr error
		calls      int
		want       vocab.Outcome
		wantBinary string
		wantReason string
	}{
		{"unlinked, re-resolved", unlinked, claudebin.Result{Path: fresh, Via: claudebin.ViaNativeLink}, nil, 1, vocab.OutcomeOK, fresh, ""},
		{"unlinked, the new path is missing too", unlinked, claudebin.Result{Path: filepath.Join(dir, "claude-gone")}, nil, 1,
			vocab.OutcomeSetupRequired, filepath.Join(dir, "claude-gone"), "claude-gone"},
		{"unlinked, nothing found any more", unlinked, claudebin.Result{}, &claudebin.NotFoundError{Probed: []claudebin.Probe{{Path: "/usr/bin/claude", Reason: "not found"}}}, 1,
			vocab.OutcomeSetupRequired, unlinked, "claude CLI not found"},
		{"not executable, still after a re-resolve", notExec, claudebin.Result{Path: notExec}, nil, 1, vocab.OutcomeSetupRequired, notExec, "permission denied"},
		{"a .cmd target is never started", script, claudebin.Result{}, nil, 0, vocab.OutcomeSetupRequired, script, "script target"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, rec := fakeSpec(t, tc.binary, "ok", "haiku", time.Minute)
			calls := 0
			res := Run(context.Background(), spec, "hello", func() (claudebin.Result, error) {
				calls++
				return tc.resolved, tc.resolveErr
			}, Options{})
			if res.Outcome != tc.want || res.Binary != tc.wantBinary || calls != tc.calls || !strings.Contains(res.Reason, tc.wantReason) {
				t.Errorf("got %+v after %d resolves", res, calls)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatal("a script target ran")
			}
			if tc.want != vocab.OutcomeOK {
				return
			}
			r := readRecord(t, rec)
			if r.Args[0] != fresh || !slices.Equal(r.Args[1:], spec.Args[1:]) {
				t.Errorf("argv %q", r.Args)
			}
		})
	}
}

// A start that fails in this process (no file descriptors left for the pipes) is transient,
// not setup_required: nothing is wrong with claude, so nothing may pause the observer.
func TestRunLocalStartFailureIsTransientNotSetup(t *testing.T) {
	spec, _ := fakeSpec(t, testBinary(t), "ok", "haiku", time.Minute)
	old := newPipe
	newPipe = func() (*os.File, *os.File, error) {
		return nil, nil, &os.SyscallError{Syscall: "pipe2", Err: syscall.EMFILE}
	}
	defer func() { newPipe = old }()
	res := Run(context.Background(), spec, "hello", func() (claudebin.Result, error) {
		t.Fatal("a local failure must not re-resolve the binary")
		return claudebin.Result{}, nil
	}, Options{})
	if res.Outcome != vocab.OutcomeTransient || res.StartErr != nil || !strings.Contains(res.Reason, "too many open files") {
		t.Fatalf("Run = %+v, want a transient outcome naming EMFILE, no StartErr", res)
	}
}

// TestRunRunDirGoneIsNotSetup: the run dir removed under a run (another observer's prune
// did it) makes the start fail with ENOENT, which is not claude's fault: transient, never
// setup_required (which would pause the observer for 15 minutes).
func TestRunRunDirGoneIsNotSetup(t *testing.T) {
	spec, _ := fakeSpec(t, testBinary(t), "ok", "haiku", time.Minute)
	old := newPipe
	newPipe = func() (*os.File, *os.File, error) {
		os.RemoveAll(spec.Dir)
		return os.Pipe()
	}
	defer func() { newPipe = old }()
	res := Run(context.Background(), spec, "hello", func() (claudebin.Result, error) {
		return claudebin.Result{Path: spec.Binary}, nil
	}, Options{})
	if res.Outcome != vocab.OutcomeTransient || res.StartErr != nil || !strings.Contains(res.Reason, "run dir is gone") {
		t.Fatalf("Run = %+v, want transient naming the run dir", res)
	}
}

// TestRunAPIKeyHelperFile: the apiKeyHelper reaches the child in a 0600 settings file named
// by --settings, never in argv, and the file is gone after the run.
func TestRunAPIKeyHelperFile(t *testing.T) {
	const helper = "printf sk-ant-api03-HELPERCANARY"
	spec, rec := fakeSpec(t, testBinary(t), "ok", "haiku", time.Minute)
	src := auth.Source{Kind: auth.KindAPIKeyHelper, From: "CLAUDE_MEM_API_KEY_HELPER", Helper: helper}
	in := SpecInput{Settings: &settings.Settings{DataDir: filepath.Dir(spec.SessionDir), Model: "haiku",
		ObserverTimeout: time.Minute, PassEnv: []string{fakeModeVar, fakeRecordVar}},
		Env:  settings.Env{"PATH": os.Getenv("PATH"), fakeModeVar: "ok", fakeRecordVar: rec},
		GOOS: "linux", RunID: spec.RunID, Binary: claudebin.Result{Path: spec.Binary}, Auth: src}
	spec = BuildSpec(in)
	res := Run(context.Background(), spec, "hello", noResolve(t), Options{})
	if res.Outcome != vocab.OutcomeOK {
		t.Fatalf("result %+v", res)
	}
	r := readRecord(t, rec)
	for _, a := range r.Args {
		if strings.Contains(a, "HELPERCANARY") {
			t.Errorf("argv holds the helper: %q", a)
		}
	}
	i := slices.Index(r.Args, "--settings")
	if i < 0 || r.Args[i+1] != filepath.Join(spec.Dir, SettingsFileName) {
		t.Fatalf("argv %q lacks --settings <run>/settings.json", r.Args)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(r.Settings), &got); err != nil || got["apiKeyHelper"] != helper || r.SettingsMode != 0o600 {
		t.Errorf("the child read %q (mode %o, %v)", r.Settings, r.SettingsMode, err)
	}
	if _, err := os.Stat(filepath.Join(spec.Dir, SettingsFileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the settings file outlived the run: %v", err)
	}
}

// TestRunOutputTooLarge: a child whose stdout passes RunFileCap is stopped, outcome error
// "output too large"; transcript.jsonl and stderr.log are scrubbed and within the cap, with
// their head (the canaries' lines, scrubbed) and tail kept.
func TestRunOutputTooLarge(t *testing.T) {
	old := RunFileCap
	RunFileCap = 1 << 20
	defer func() { RunFileCap = old }()
	spec, _ := fakeSpec(t, testBinary(t), "flood", "haiku", time.Minute)
	start := time.Now()
	res := Run(context.Background(), spec, "hello", noResolve(t), Options{})
	if res.Outcome != vocab.OutcomeError || !strings.Contains(res.Reason, "output too large") {
		t.Fatalf("result %+v", res)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("stopping the flood took %v", d)
	}
	for _, name := range []string{TranscriptFile, StderrFile} {
		b, err := os.ReadFile(filepath.Join(spec.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) > RunFileCap {
			t.Errorf("%s is %d bytes, cap %d", name, len(b), RunFileCap)
		}
		if leaks := redacttest.Leaks(b, redacttest.Diagnostic()); len(leaks) > 0 {
			t.Errorf("%s holds %d canaries, e.g. %+v", name, len(leaks), leaks[0])
		}
		if !bytes.Contains(b, []byte("[REDACTED:")) {
			t.Errorf("%s lacks the scrubbed canary lines", name)
		}
		// stdout passed the cap, so its file was cut (stderr may not have got that far).
		if name == TranscriptFile && !bytes.Contains(b, []byte("bytes omitted")) {
			t.Errorf("%s lacks the omission marker", name)
		}
	}
}

// TestRunLeaseInSlot: with a slot, the child inherits its lock (the slot stays busy while
// the child lives, whoever else closes it) and its lease names the child; after the run the
// lease is cleared.
func TestRunLeaseInSlot(t *testing.T) {
	spec, _ := fakeSpec(t, testBinary(t), "hang", "haiku", 3*time.Second)
	slots := filepath.Join(t.TempDir(), "agents")
	held, ok, err := lockfile.TrySlot(slots, 1)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer held.Release()
	done := make(chan Result)
	// The deadline is read from the clock given, not the machine's.
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	go func() {
		done <- Run(context.Background(), spec, "hello", noResolve(t), Options{Slot: held, Now: func() time.Time { return clock }})
	}()
	var l Lease
	testkit.Eventually(t, 20*time.Second, "the lease written", func() bool {
		b, _ := os.ReadFile(filepath.Join(slots, "slot-0"))
		return json.Unmarshal(b, &l) == nil && l.Pid != 0
	})
	var pids []byte
	testkit.Within(20*time.Second, func() bool {
		pids, _ = os.ReadFile(filepath.Join(filepath.Dir(spec.SessionDir), "..", "pids"))
		return len(pids) > 0
	})
	if !strings.HasPrefix(string(pids), strconv.Itoa(l.Pid)+" ") {
		t.Errorf("lease pid %d, the child wrote %q", l.Pid, pids)
	}
	if st, err := (OSProcs{}).StartTime(l.Pid); err != nil || st != l.Start || l.Run != spec.RunID {
		t.Errorf("lease %+v; start time now %q (%v)", l, st, err)
	}
	if want := clock.Add(3*time.Second + killGrace); !l.Deadline.Equal(want) {
		t.Errorf("deadline %v, want %v", l.Deadline, want)
	}
	res := <-done
	if res.Outcome != vocab.OutcomeTransient {
		t.Errorf("result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(slots, "slot-0")); len(b) != 0 {
		t.Errorf("lease left after the run: %s", b)
	}
}

// fakeProcs is a process table for ReapOrphans.
type fakeProcs struct {
	start  map[int]string
	killed []int
}

func (f *fakeProcs) StartTime(pid int) (string, error) {
	if s, ok := f.start[pid]; ok {
		return s, nil
	}
	return "", fs.ErrNotExist
}

func (f *fakeProcs) KillGroup(pgid int) error { f.killed = append(f.killed, pgid); return nil }

func TestReapOrphans(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	late := now.Add(-reapGrace - time.Second)
	cases := []struct {
		name  string
		lease string
		held  bool
		procs map[int]string
		kill  bool
	}{
		{"late, held, same process: killed", lease(100, "777", late), true, map[int]string{100: "777"}, true},
		{"not late yet", lease(100, "777", now.Add(-reapGrace+time.Second)), true, map[int]string{100: "777"}, false},
		{"slot free: the child is gone", lease(100, "777", late), false, map[int]string{100: "777"}, false},
		{"pid reused by another process", lease(100, "777", late), true, map[int]string{100: "999"}, false},
		{"process gone", lease(100, "777", late), true, nil, false},
		{"empty slot file", "", true, map[int]string{100: "777"}, false},
		{"torn lease", `{"pid":10`, true, map[int]string{10: "777"}, false},
		{"pid 1 never", lease(1, "777", late), true, map[int]string{1: "777"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "slot-0")
			if tc.held {
				h, _, err := lockfile.TryHold(path)
				if err != nil {
					t.Fatal(err)
				}
				defer h.Release()
			}
			if err := os.WriteFile(path, []byte(tc.lease), 0o600); err != nil {
				t.Fatal(err)
			}
			p := &fakeProcs{start: tc.procs}
			stopped, err := ReapOrphans(dir, now, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(p.killed) == 1 && p.killed[0] == 100 && len(stopped) == 1; got != tc.kill || (!tc.kill && len(p.killed) > 0) {
				t.Errorf("killed %v, stopped %v; want a kill: %v", p.killed, stopped, tc.kill)
			}
		})
	}
}

func lease(pid int, start string, deadline time.Time) string {
	b, _ := json.Marshal(Lease{Pid: pid, Start: start, Deadline: deadline, Run: "r"})
	return string(b)
}
