//go:build linux

package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// hookNamed are the ways output can call the product hook: a command spelled `hook doctor`,
// a path to bin/hook given as the command to run while claude-mem on PATH is this very
// binary, a "hook:" or "hook search:" prefix, a usage line of hook, the old version line.
var hookNamed = []*regexp.Regexp{
	regexp.MustCompile(`(^|[^\w./-])hook (doctor|search|stats|viewer|forget|export|import|allow-tools|version|help|observe|upgrade|mcp)\b`),
	regexp.MustCompile(`/hook (doctor|search|stats|viewer|forget|export|import|allow-tools|version|help)\b`),
	regexp.MustCompile(`(?m)^hook( [a-z-]+)?: `),
	regexp.MustCompile(`\busage: hook\b`),
	regexp.MustCompile(`claude-mem hook\b`),
}

// misnamed is every place in text that calls the product hook.
func misnamed(text string) []string {
	var out []string
	for _, re := range hookNamed {
		for _, m := range re.FindAllString(text, -1) {
			out = append(out, strings.TrimSpace(m))
		}
	}
	return out
}

// nameRun runs the product as a person does once make install linked it: `claude-mem ARGS`
// found on PATH (argv[0] claude-mem, the link ~/.local/bin/claude-mem → bin/hook).
func (h *harness) nameRun(argv0 string, stdin []byte, env []string, args ...string) result {
	h.t.Helper()
	path := hookBin
	if argv0 == "claude-mem" {
		path = filepath.Join(h.home, ".local", "bin", "claude-mem")
	}
	cmd := &exec.Cmd{Path: path, Args: append([]string{argv0}, args...), Dir: h.work, Env: env, Stdin: bytes.NewReader(stdin)}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("claude-mem %v: %v", args, err)
	}
	h.mu.Lock()
	h.outputs = append(h.outputs, r.stdout, r.stderr)
	h.mu.Unlock()
	return r
}

// TestNameIsClaudeMem: every user-facing command's output (help, version, doctor, search,
// stats, export and import, forget, allow-tools, SessionStart's notice, the viewer's printed
// line, its pages and its refusal page) calls the product claude-mem, and each command it
// prints for the user to run is `claude-mem …` when the claude-mem on PATH is this binary.
// The controls: without the link on PATH the same doctor names the binary's path, and run
// as `hook` its errors say "hook search:": the check finds both.
func TestNameIsClaudeMem(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	local := filepath.Join(h.home, ".local", "bin")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hookBin, filepath.Join(local, "claude-mem")); err != nil {
		t.Fatal(err)
	}
	withoutLink := h.environ(nil)
	h.env["PATH"] = local + ":" + h.env["PATH"]
	env := h.environ(nil)
	seed := filepath.Join(h.work, "seed.jsonl")
	if err := os.WriteFile(seed, []byte(nameSeed), 0o600); err != nil {
		t.Fatal(err)
	}

	outputs := map[string]string{} // what a person reads, by the command that printed it
	say := func(label string, r result) result {
		outputs[label] = r.stdout + r.stderr
		return r
	}
	run := func(args ...string) result {
		t.Helper()
		return say("claude-mem "+strings.Join(args, " "), h.nameRun("claude-mem", nil, env, args...))
	}
	// want: each of these must be in label's output (the commands it prints to run).
	want := func(label string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			// Doctor wraps a finding at the width and puts its command on a line of its own.
			if !strings.Contains(strings.Join(strings.Fields(outputs[label]), " "), p) {
				t.Errorf("%s does not say %q:\n%s", label, p, outputs[label])
			}
		}
	}

	run("help")
	want("claude-mem help", "usage: claude-mem [command]", "Run 'claude-mem help COMMAND'")
	run("help", "search")
	run("doctor", "--help")
	run("frobnicate")
	want("claude-mem frobnicate", `claude-mem: unknown command "frobnicate"`)
	if r := run("version"); !regexp.MustCompile(`^claude-mem \S+\n$`).MatchString(r.stdout) {
		t.Errorf("claude-mem version: %q", r.stdout)
	}
	var v struct{ Name, Version string }
	if r := run("version", "--json"); json.Unmarshal([]byte(r.stdout), &v) != nil || v.Name != "claude-mem" || v.Version == "" {
		t.Errorf("claude-mem version --json: %q", r.stdout)
	}

	// Doctor: signed out (the --retry command), the memory tools not allowed in an
	// installed plugin (the allow-tools command), a pause (--retry again), --verbose.
	testkit.WriteFile(t, filepath.Join(h.home, ".claude", "plugins", "installed_plugins.json"),
		`{"version":2,"plugins":{"claude-mem@claude-mem-go":[{"scope":"user","installPath":"x","version":"1"}]}}`, 0o600)
	run("doctor")
	want("claude-mem doctor", "then run: claude-mem doctor --retry", "run: claude-mem allow-tools", "): claude-mem doctor --verbose")
	run("doctor", "--json")
	want("claude-mem doctor --json", `"command": "claude-mem"`)
	run("doctor", "--verbose")
	run("allow-tools", "--check")
	want("claude-mem allow-tools --check", "; to allow them: claude-mem allow-tools")
	run("allow-tools", "--backup-only")
	run("allow-tools")
	run("allow-tools", "--remove")
	run("allow-tools", "--check", "--remove")
	want("claude-mem allow-tools --check --remove", "usage: claude-mem allow-tools")
	testkit.WriteFile(t, filepath.Join(h.data, "health.json"),
		`{"auth":{"state":"ok"},"setup":{"state":"ok"},"paused_until":"2099-01-01T00:00:00Z","pause_reason":"auth_failed"}`, 0o600)
	run("doctor")
	want("claude-mem doctor", "to clear it, run: claude-mem doctor --retry")
	os.Remove(filepath.Join(h.data, "health.json"))

	// The memory commands, their messages and their errors.
	run("import", seed)
	run("import", filepath.Join(h.work, "missing.jsonl"))
	want("claude-mem import "+filepath.Join(h.work, "missing.jsonl"), "claude-mem import: ")
	run("export", "-o", filepath.Join(h.work, "out.jsonl"))
	run("export", "extra")
	run("search", "kookaburra")
	want("claude-mem search kookaburra", "Kookaburra nest observed")
	run("search")
	want("claude-mem search", "claude-mem search: no query", "usage: claude-mem search")
	run("search", "-n", "2", "x")
	run("stats")
	run("stats", "--days", "0")
	run("forget", "1", "--dry-run")
	run("forget", "X2")
	want("claude-mem forget X2", "claude-mem forget: ")

	// SessionStart with a claude that cannot be found: the notice's "details:" command.
	// Claude Code runs the plugin's bin/hook; the claude-mem link on PATH names it.
	ss := h.nameRun("hook", fixtureEvent(t, "SessionStart-startup.json", h.base("name-s1")),
		h.environ(map[string]string{"CLAUDE_MEM_CLAUDE_PATH": filepath.Join(h.work, "no-claude")}))
	var o sessionStartOut
	if err := json.Unmarshal([]byte(ss.stdout), &o); err != nil {
		t.Fatalf("SessionStart: %q: %v", ss.stdout, err)
	}
	say("SessionStart", result{stdout: o.SystemMessage + "\n" + o.HookSpecificOutput.AdditionalContext})
	want("SessionStart", "details: claude-mem doctor)")

	// The viewer: its printed line, every page, and its refusal.
	vr := h.startViewer()
	for _, page := range []string{"/", "/timeline?project=web", "/record/1", "/search", "/search?q=kookaburra", "/live",
		"/health", "/cost", "/settings", "/context?project=web", "/forget?id=1"} {
		outputs["viewer "+page] = vr.get(page)
	}
	want("viewer /health", "<code>claude-mem doctor</code>")
	want("viewer /cost", "<code>claude-mem stats</code>")
	want("viewer /forget?id=1", "<code>claude-mem forget</code>")
	want("viewer /search", "<code>claude-mem search</code>")
	resp, err := (&http.Client{Transport: localhostTransport(), Timeout: time.Minute}).Get(vr.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	refusal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	outputs["viewer refusal"] = string(refusal)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request without the cookie: %s", resp.Status)
	}
	want("viewer refusal", "claude-mem viewer")
	vr.stop()
	outputs["claude-mem viewer (stderr)"] = vr.stderr.String()

	for label, text := range outputs {
		if bad := misnamed(text); len(bad) > 0 {
			t.Errorf("%s calls the product hook: %q\n%s", label, bad, text)
		}
	}
	if len(outputs) < 30 {
		t.Errorf("only %d outputs checked", len(outputs))
	}

	// Controls: the check finds a path given as the command (no link on PATH), and a
	// "hook" prefix (run as hook, the name typed).
	if r := h.nameRun("claude-mem", nil, withoutLink, "doctor"); len(misnamed(r.stdout)) == 0 || !strings.Contains(r.stdout, hookBin+" doctor --verbose") {
		t.Errorf("control: without claude-mem on PATH doctor names no path, or the check misses it:\n%s", r.stdout)
	}
	if r := h.nameRun("hook", nil, env, "search"); !strings.HasPrefix(r.stderr, "hook search: ") || len(misnamed(r.stderr)) == 0 {
		t.Errorf("control: run as hook, the check misses %q", r.stderr)
	}
}

// nameSeed is a small memory: one session of project web with a prompt, two observations
// and a summary.
const nameSeed = `{"kind":"header","format":1,"product":"claude-mem-go","version":"test","exported_at":"2026-12-01T00:00:00Z"}
{"kind":"session","id":"s1","project":"web","cwd":"/work/web","started_at":"2026-11-30T10:00:00Z","ended_at":"2026-11-30T10:00:09Z"}
{"kind":"prompt","session":"s1","project":"web","at":"2026-11-30T10:00:01Z","text":"count the kookaburra nests"}
{"kind":"observation","session":"s1","project":"web","at":"2026-11-30T10:00:04Z","type":"discovery","title":"Kookaburra nest observed","subtitle":"","narrative":"A kookaburra nest in the gum tree.","facts":[],"concepts":[],"files_read":[],"files_modified":[]}
{"kind":"observation","session":"s1","project":"web","at":"2026-11-30T10:00:05Z","type":"change","title":"Gum tree tagged","subtitle":"","narrative":"The tree is tagged.","facts":[],"concepts":[],"files_read":[],"files_modified":[]}
{"kind":"summary","session":"s1","project":"web","at":"2026-11-30T10:00:08Z","request":"Survey the kookaburra colony","investigated":"","learned":"","completed":"one nest","next_steps":"","notes":""}
`
