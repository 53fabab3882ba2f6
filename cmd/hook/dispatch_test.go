package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/settings"
)

// runProc runs run() in-process with the given args and stdin and returns the exit
// status, stdout and stderr.
func runProc(t *testing.T, env settings.Env, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	root := t.TempDir()
	p := &proc{
		args: args, env: env, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
		exe: filepath.Join(root, "plugin", "bin", "hook"), xdgDataHome: filepath.Join(root, "xdg"),
		goos: runtime.GOOS, pid: 4242,
	}
	rc := run(p)
	return rc, out.String(), errb.String()
}

func TestRunVersionAndHelpPrintToStdoutAndExit0(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		rc, out, errs := runProc(t, settings.Env{}, "", args...)
		if rc != 0 || out != "claude-mem "+version+"\n" || errs != "" {
			t.Errorf("%v: rc %d, stdout %q, stderr %q; want 0, the version line, nothing", args, rc, out, errs)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		rc, out, errs := runProc(t, settings.Env{}, "", args...)
		if rc != 0 || out != commands.Usage("hook") || errs != "" {
			t.Errorf("%v: rc %d, stdout %q, stderr %q; want 0, the usage, nothing", args, rc, out, errs)
		}
	}
	for _, cmd := range []string{"doctor", "search", "observe", "forget", "export", "import", "version", "help"} {
		if !strings.Contains(commands.Usage("hook"), "  "+cmd) {
			t.Errorf("usage does not list %q", cmd)
		}
	}
}

// A bare hook on a terminal is a person, not Claude Code: help and exit 2 instead of
// waiting for hook JSON. The control: off a terminal it is hook mode (exit 0, an answer).
func TestRunBareOnATerminalPrintsHelp(t *testing.T) {
	for _, term := range []bool{true, false} {
		var out, errb bytes.Buffer
		root := t.TempDir()
		p := &proc{
			env: settings.Env{"CLAUDE_MEM_DATA_DIR": filepath.Join(root, "data")}, stdin: strings.NewReader(`{"hook_event_name":"Bogus"}`), stdout: &out, stderr: &errb,
			now: time.Now, exe: filepath.Join(root, "hook"), xdgDataHome: root, goos: runtime.GOOS,
			isTerminal: func() bool { return term },
		}
		rc := run(p)
		if term && (rc != 2 || errb.String() != commands.Usage("hook") || out.Len() != 0) {
			t.Errorf("on a terminal: rc %d stdout %q stderr %q; want 2 and the usage on stderr", rc, out.String(), errb.String())
		}
		if !term && (rc != 0 || errb.Len() != 0) {
			t.Errorf("off a terminal: rc %d stderr %q; want hook mode's 0 and nothing", rc, errb.String())
		}
	}
}

func TestRunUnknownSubcommandPrintsUsageToStderrAndExits2(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"--bogus"}, {"Version"}, {""}, {"bogus", "version"}} {
		rc, out, errs := runProc(t, settings.Env{}, `{"hook_event_name":"SessionStart"}`, args...)
		if rc != 2 {
			t.Errorf("%q: rc %d, want 2", args, rc)
		}
		if out != "" {
			t.Errorf("%q: stdout %q, want nothing", args, out)
		}
		if !strings.HasPrefix(errs, "hook: unknown command "+`"`+args[0]+`"`) || !strings.HasSuffix(errs, commands.Usage("hook")) {
			t.Errorf("%q: stderr %q, want the unknown command named and the usage", args, errs)
		}
	}
}

func TestRunWithoutArgumentsIsHookModeAndAlwaysExits0(t *testing.T) {
	dir := t.TempDir()
	env := settings.Env{envname.DataDir: filepath.Join(dir, "data"), "HOME": filepath.Join(dir, "home"), "PATH": ""}
	for _, stdin := range []string{"", "bogus", "not json", `["x"]`, `{"hook_event_name":"Nope"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"rel"}`} {
		rc, out, errs := runProc(t, env, stdin)
		if rc != 0 || out != "" || errs != "" {
			t.Errorf("stdin %q: rc %d, stdout %q, stderr %q; want 0 and nothing", stdin, rc, out, errs)
		}
	}
	start := `{"hook_event_name":"SessionStart","session_id":"s1","cwd":"` + filepath.Join(dir, "proj") + `","source":"startup"}`
	rc, out, errs := runProc(t, env, start)
	var v struct {
		HSO struct{ HookEventName, AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if rc != 0 || errs != "" || json.Unmarshal([]byte(out), &v) != nil || v.HSO.HookEventName != "SessionStart" {
		t.Errorf("SessionStart: rc %d, stdout %q, stderr %q; want 0 and the SessionStart object", rc, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", settings.LogsDir, "hook.log")); err != nil {
		t.Errorf("hook mode wrote no log: %v", err)
	}

	// A data dir that cannot be created: still exit 0, SessionStart says memory is unavailable.
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := settings.Env{envname.DataDir: filepath.Join(dir, "afile", "data"), "HOME": env["HOME"], "PATH": ""}
	rc, out, errs = runProc(t, bad, start)
	if rc != 0 || errs != "" || !strings.Contains(out, `"additionalContext":"claude-mem: memory unavailable`) {
		t.Errorf("unusable data dir: rc %d, stdout %q, stderr %q", rc, out, errs)
	}
	rc, out, errs = runProc(t, bad, `{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/p","prompt":"x"}`)
	if rc != 0 || out != "" || errs != "" {
		t.Errorf("unusable data dir, UserPromptSubmit: rc %d, stdout %q, stderr %q", rc, out, errs)
	}
}

// Bare claude-mem (the link a person runs) is help and exit 2 in a pipe too, as on a
// terminal: only bin/hook, which Claude Code runs, reads hook JSON off a terminal (the
// control, with the same stdin).
func TestRunBareClaudeMemInAPipePrintsHelp(t *testing.T) {
	for _, name := range []string{"/home/u/.local/bin/claude-mem", "claude-mem.exe", "/p/bin/hook"} {
		var out, errb bytes.Buffer
		root := t.TempDir()
		p := &proc{
			name: name, env: settings.Env{"CLAUDE_MEM_DATA_DIR": filepath.Join(root, "data")}, stdin: strings.NewReader(`{"hook_event_name":"Bogus"}`),
			stdout: &out, stderr: &errb, now: time.Now, exe: filepath.Join(root, "hook"), xdgDataHome: root, goos: runtime.GOOS,
			isTerminal: func() bool { return false },
		}
		rc := run(p)
		if hook := strings.HasSuffix(name, "hook"); hook {
			if rc != 0 || errb.Len() != 0 {
				t.Errorf("control: bare %s in a pipe: rc %d stderr %q; want hook mode's 0 and nothing", name, rc, errb.String())
			}
		} else if rc != 2 || out.Len() != 0 || errb.String() != commands.Usage("claude-mem") {
			t.Errorf("bare %s in a pipe: rc %d stdout %q stderr %q; want 2 and the help on stderr", name, rc, out.String(), errb.String())
		}
	}
}

// The width doctor wraps at: the terminal's, else $COLUMNS, else 100 (a pipe, a file).
func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		term    int
		columns string
		want    int
	}{{132, "60", 132}, {0, "60", 60}, {0, "", 100}, {0, "wide", 100}} {
		p := &proc{env: settings.Env{"COLUMNS": tc.columns}, columns: func() int { return tc.term }}
		if got := p.width(); got != tc.want {
			t.Errorf("terminal %d, COLUMNS %q: width %d, want %d", tc.term, tc.columns, got, tc.want)
		}
	}
}
