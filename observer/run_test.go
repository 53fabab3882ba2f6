//go:build linux

package observer

import (
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
	"github.com/claude-mem/claude-mem-go/settings"
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
	prompt := BuildPrompt(PromptInput{Project: "project", Events: benignEvents(), Prompts: nil, Final: false})

	cases := []struct {
		mode    string
		timeout time.Duration
		cancel  bool
		check   func(t *testing.T, spec Spec, rec string, res Result)
	}{
		{mode: "ok", timeout: time.Minute, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != OutcomeOK || res.Reason != "" || res.ExitCode != 0 || res.Lines != 3 || res.Text != fakeAnswer || res.Binary != exe {
				t.Errorf("result %+v", res)
			}
			if obs, _, w := Parse(res.Text); len(obs) != 2 || len(w) != 0 {
				t.Errorf("parsed %d observations, warnings %q", len(obs), w)
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
			if r.Stdin != string(StdinMessage(prompt)) {
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
			if res.Outcome != OutcomeAuthFailed || res.Reason != "Invalid API key · Fix external API key" || res.ExitCode != 1 || res.Lines != 3 {
				t.Errorf("result %+v", res)
			}
		}},
		{mode: "crash", timeout: time.Minute, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != OutcomeError || res.Reason != "exited with code 1 without a result" || res.ExitCode != 1 || res.Lines != 1 {
				t.Errorf("result %+v", res)
			}
			if !strings.HasSuffix(res.StderrTail, "fatal: the last words") || len(res.StderrTail) > stderrTailBytes ||
				strings.Contains(res.StderrTail, "stack frame 0\n") {
				t.Errorf("stderr tail of %d bytes: %q", len(res.StderrTail), res.StderrTail)
			}
			if full, _ := os.ReadFile(filepath.Join(spec.Dir, StderrFile)); !strings.HasPrefix(string(full), "stack frame 0\n") {
				t.Error("stderr.log does not hold the whole stderr")
			}
		}},
		{mode: "hang", timeout: 2 * time.Second, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != OutcomeTransient || res.Reason != "timed out after 2s" || res.ExitCode != -1 || res.Lines != 1 {
				t.Errorf("result %+v", res)
			}
			b, err := os.ReadFile(filepath.Join(filepath.Dir(rec), "pids"))
			if err != nil {
				t.Fatalf("the fake did not start its grandchild within the timeout: %v", err)
			}
			for _, p := range strings.Fields(string(b)) {
				if pid, _ := strconv.Atoi(p); !gone(pid) {
					t.Errorf("process %d of the group outlived the run", pid)
				}
			}
		}},
		{mode: "hang", timeout: time.Minute, cancel: true, check: func(t *testing.T, spec Spec, rec string, res Result) {
			if res.Outcome != OutcomeTransient || res.Reason != "stopped: context canceled" {
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
			res := Run(ctx, spec, prompt, noResolve(t))
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
	events := benignEvents()
	events[0].Input, events[0].ToolName = payload, payload
	prompt := BuildPrompt(PromptInput{Project: payload, Events: events, Prompts: nil, Final: true}) + payload
	wd, _ := os.Getwd()
	before := listNames(t, wd)

	res := Run(context.Background(), spec, prompt, noResolve(t))
	if res.Outcome != OutcomeOK {
		t.Fatalf("result %+v", res)
	}
	r := readRecord(t, rec)
	if r.Stdin != string(StdinMessage(prompt)) || !slices.Contains(r.Args, "haiku $(touch pwned8) > pwned9") {
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
	if !slices.Equal(names, []string{StderrFile, TranscriptFile}) {
		t.Errorf("the run dir holds %q", names)
	}
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
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
		want       Outcome
		wantBinary string
		wantReason string
	}{
		{"unlinked, re-resolved", unlinked, claudebin.Result{Path: fresh, Via: claudebin.ViaNativeLink}, nil, 1, OutcomeOK, fresh, ""},
		{"unlinked, the new path is missing too", unlinked, claudebin.Result{Path: filepath.Join(dir, "claude-gone")}, nil, 1,
			OutcomeSetupRequired, filepath.Join(dir, "claude-gone"), "claude-gone"},
		{"unlinked, nothing found any more", unlinked, claudebin.Result{}, &claudebin.NotFoundError{Probed: []claudebin.Probe{{Path: "/usr/bin/claude", Reason: "not found"}}}, 1,
			OutcomeSetupRequired, unlinked, "claude CLI not found"},
		{"not executable: no retry", notExec, claudebin.Result{}, nil, 0, OutcomeSetupRequired, notExec, "permission denied"},
		{"a .cmd target is never started", script, claudebin.Result{}, nil, 0, OutcomeSetupRequired, script, "script target"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec, rec := fakeSpec(t, tc.binary, "ok", "haiku", time.Minute)
			calls := 0
			res := Run(context.Background(), spec, "hello", func() (claudebin.Result, error) {
				calls++
				return tc.resolved, tc.resolveErr
			})
			if res.Outcome != tc.want || res.Binary != tc.wantBinary || calls != tc.calls || !strings.Contains(res.Reason, tc.wantReason) {
				t.Errorf("got %+v after %d resolves", res, calls)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatal("a script target ran")
			}
			if tc.want != OutcomeOK {
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
	})
	if res.Outcome != OutcomeTransient || res.StartErr != nil || !strings.Contains(res.Reason, "too many open files") {
		t.Fatalf("Run = %+v, want a transient outcome naming EMFILE, no StartErr", res)
	}
}
