//go:build unix

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// The probe plugin and its one-plugin marketplace.
const (
	probeName   = "e2eprobe"
	probeMarket = "e2eprobe-market"
)

var probeEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"}

// recordScript is the probe's hook: it appends "<tag> <event>" to $E2E_HOOK_LOG/events,
// keeps the event's stdin and environment, and at SessionStart answers with an
// additionalContext and a systemMessage naming the tag.
const recordScript = `#!/bin/sh
echo "$1 $2" >> "$E2E_HOOK_LOG/events"
cat > "$E2E_HOOK_LOG/$1-$2.json"
env > "$E2E_HOOK_LOG/$1-$2.env"
if [ "$2" = SessionStart ]; then
  printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"E2E-CONTEXT-%s"},"systemMessage":"E2E-SYSMSG-%s"}\n' "$1" "$1"
fi
`

// layout says where the probe declares its hooks and how it writes the command.
type layout struct {
	hooksDir      bool   // hooks/hooks.json (tag "hooksdir")
	rootHooks     bool   // hooks.json at the plugin root (tag "root")
	manifestHooks bool   // plugin.json has "hooks": "./hooks.json"
	form          string // "quoted" shell form (default), "unquoted" shell form, or "exec" (command + args)
}

// writePlugin writes the probe plugin, and a marketplace listing it as "./", into dir.
func writePlugin(t *testing.T, dir string, l layout) {
	t.Helper()
	manifest := map[string]any{"name": probeName, "version": "0.1.0", "description": "e2e probe plugin"}
	if l.manifestHooks {
		manifest["hooks"] = "./hooks.json"
	}
	testkit.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), mustJSON(manifest), 0o644)
	testkit.WriteFile(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), mustJSON(map[string]any{
		"name":    probeMarket,
		"owner":   map[string]string{"name": "e2e"},
		"plugins": []any{map[string]string{"name": probeName, "source": "./", "description": "e2e probe plugin", "version": "0.1.0"}},
	}), 0o644)
	testkit.WriteFile(t, filepath.Join(dir, "record.sh"), recordScript, 0o755)
	if l.hooksDir {
		testkit.WriteFile(t, filepath.Join(dir, "hooks", "hooks.json"), hooksJSON("hooksdir", l.form), 0o644)
	}
	if l.rootHooks {
		testkit.WriteFile(t, filepath.Join(dir, "hooks.json"), hooksJSON("root", l.form), 0o644)
	}
}

func hooksJSON(tag, form string) string {
	hooks := map[string]any{}
	for _, ev := range probeEvents {
		h := map[string]any{"type": "command"}
		switch form {
		case "exec":
			h["command"], h["args"] = "${CLAUDE_PLUGIN_ROOT}/record.sh", []string{tag, ev}
		case "unquoted":
			h["command"] = "${CLAUDE_PLUGIN_ROOT}/record.sh " + tag + " " + ev
		default:
			h["command"] = `"${CLAUDE_PLUGIN_ROOT}/record.sh" ` + tag + " " + ev
		}
		hooks[ev] = []any{map[string]any{"hooks": []any{h}}}
	}
	return mustJSON(map[string]any{"hooks": hooks})
}

// hookLog makes the directory the probe's hooks write into and puts it in env.
func hookLog(t *testing.T, s *sandbox) string {
	t.Helper()
	dir := filepath.Join(s.Root, "hooklog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// firedEvents reads "<tag> <event>" lines in the order the hooks ran.
func firedEvents(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "events"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func hookInput(t *testing.T, dir, tag, event string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, tag+"-"+event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s stdin is not JSON: %s", event, b)
	}
	return m
}

func hookEnv(t *testing.T, dir, tag, event string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, tag+"-"+event+".env"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestPluginDirSession: a `claude -p` session with the probe loaded by --plugin-dir runs a
// Bash tool. Every hook fires once, in order, synchronously, with CLAUDE_PLUGIN_ROOT set to
// the plugin dir and the session's own environment; SessionStart's additionalContext
// reaches the model as a system-role message, its systemMessage does not.
func TestPluginDirSession(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	plugin := filepath.Join(s.Root, "plugin")
	writePlugin(t, plugin, layout{hooksDir: true})
	logDir := hookLog(t, s)
	s.Mock.Handle(mockapi.ToolResult, mockapi.Text("done after the tool"))
	s.Mock.Handle(mockapi.Any, mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}))
	env := s.env()
	env["E2E_HOOK_LOG"] = logDir

	r := s.run([]string{"-p", "please run echo hi", "--output-format", "stream-json", "--verbose",
		"--allowedTools", "Bash", "--plugin-dir", plugin, "--model", "haiku"}, "", env)
	if r.exit != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.exit, r.stderr)
	}

	want := []string{"hooksdir SessionStart", "hooksdir UserPromptSubmit", "hooksdir PreToolUse",
		"hooksdir PostToolUse", "hooksdir Stop", "hooksdir SessionEnd"}
	if got := firedEvents(t, logDir); !slices.Equal(got, want) {
		t.Fatalf("hooks fired %v, want %v", got, want)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"} {
		in := hookInput(t, logDir, "hooksdir", ev)
		if in["hook_event_name"] != ev || in["cwd"] != s.Cwd || in["session_id"] == "" {
			t.Errorf("%s stdin: %v", ev, in)
		}
		e := hookEnv(t, logDir, "hooksdir", ev)
		if e["CLAUDE_PLUGIN_ROOT"] != plugin || e["CLAUDE_PROJECT_DIR"] != s.Cwd || e["E2E_HOOK_LOG"] != logDir {
			t.Errorf("%s env: CLAUDE_PLUGIN_ROOT=%q CLAUDE_PROJECT_DIR=%q E2E_HOOK_LOG=%q", ev, e["CLAUDE_PLUGIN_ROOT"], e["CLAUDE_PROJECT_DIR"], e["E2E_HOOK_LOG"])
		}
	}
	if in := hookInput(t, logDir, "hooksdir", "SessionStart"); in["source"] != "startup" {
		t.Errorf("SessionStart source %v", in["source"])
	}
	if in := hookInput(t, logDir, "hooksdir", "UserPromptSubmit"); in["prompt"] != "please run echo hi" {
		t.Errorf("UserPromptSubmit prompt %v", in["prompt"])
	}
	post := hookInput(t, logDir, "hooksdir", "PostToolUse")
	input, _ := post["tool_input"].(map[string]any)
	resp, _ := post["tool_response"].(map[string]any)
	if post["tool_name"] != "Bash" || input["command"] != "echo hi" || resp["stdout"] != "hi" || !strings.HasPrefix(post["tool_use_id"].(string), "toolu_mock_") {
		t.Errorf("PostToolUse stdin: %v", post)
	}

	msgs := s.Mock.Messages()
	if len(msgs) != 2 || !msgs[1].HasToolResult() || !strings.Contains(msgs[1].MessageText("user"), "hi") {
		t.Fatalf("want a tool_use turn then a request carrying the tool result; got %d requests", len(msgs))
	}
	for i, m := range msgs {
		if !strings.Contains(m.MessageText("system"), "E2E-CONTEXT-hooksdir") {
			t.Errorf("request %d lacks the SessionStart additionalContext", i+1)
		}
		if strings.Contains(string(m.Body), "E2E-SYSMSG") {
			t.Errorf("request %d carries the systemMessage", i+1)
		}
	}
	// In -p the systemMessage surfaces only inside the SessionStart hook_response line.
	for _, l := range r.lines(t) {
		if strings.Contains(mustJSON(l), "E2E-SYSMSG") && (l["subtype"] != "hook_response" || l["hook_event"] != "SessionStart") {
			t.Errorf("systemMessage in a %v/%v line", l["type"], l["subtype"])
		}
	}
}

// TestPluginHooksLocation pins which hooks file the CLI reads and which command forms
// survive a plugin root with a space in it.
func TestPluginHooksLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		l        layout
		dirName  string
		wantTags []string // tags whose SessionStart hook ran, sorted
	}{
		{"hooks/hooks.json", layout{hooksDir: true}, "plugin", []string{"hooksdir"}},
		{"root hooks.json, not in plugin.json", layout{rootHooks: true}, "plugin", nil},
		{"root hooks.json named by plugin.json", layout{rootHooks: true, manifestHooks: true}, "plugin", []string{"root"}},
		{"both files, root named by plugin.json", layout{hooksDir: true, rootHooks: true, manifestHooks: true}, "plugin", []string{"hooksdir", "root"}},
		{"space in path, quoted shell form", layout{hooksDir: true}, "my plugin", []string{"hooksdir"}},
		{"space in path, exec form", layout{hooksDir: true, form: "exec"}, "my plugin", []string{"hooksdir"}},
		{"space in path, unquoted shell form", layout{hooksDir: true, form: "unquoted"}, "my plugin", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			plugin := filepath.Join(s.Root, tt.dirName)
			writePlugin(t, plugin, tt.l)
			logDir := hookLog(t, s)
			env := s.env()
			env["E2E_HOOK_LOG"] = logDir
			r := s.run([]string{"-p", "hi", "--output-format", "stream-json", "--verbose", "--plugin-dir", plugin, "--model", "haiku"}, "", env)
			if r.exit != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.exit, r.stderr)
			}
			var tags []string
			for _, e := range firedEvents(t, logDir) {
				if tag, ev, _ := strings.Cut(e, " "); ev == "SessionStart" {
					tags = append(tags, tag)
				}
			}
			slices.Sort(tags)
			if !slices.Equal(tags, tt.wantTags) {
				t.Errorf("SessionStart hooks that ran: %v, want %v", tags, tt.wantTags)
			}
			msgs := s.Mock.Messages()
			if len(msgs) != 1 {
				t.Fatalf("%d Messages requests", len(msgs))
			}
			for _, tag := range tt.wantTags {
				if !strings.Contains(msgs[0].MessageText("system"), "E2E-CONTEXT-"+tag) {
					t.Errorf("context of %s missing from the request", tag)
				}
			}
		})
	}
}

// TestMarketplaceInstall installs the probe the way a user does, from a local directory
// marketplace into a throwaway HOME, pins the files that writes, and shows that a user's
// `claude -p` runs the plugin's hooks while the observer's argv does not.
func TestMarketplaceInstall(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.Config = "" // as a user: everything under ~/.claude
	market := filepath.Join(s.Root, "marketplace")
	writePlugin(t, market, layout{hooksDir: true})
	logDir := hookLog(t, s)
	env := s.env()
	env["E2E_HOOK_LOG"] = logDir
	env["HTTPS_PROXY"], env["HTTP_PROXY"], env["NO_PROXY"] = s.Mock.URL(), s.Mock.URL(), "127.0.0.1"

	id := probeName + "@" + probeMarket
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "marketplace", "add", market}, "Successfully added marketplace: " + probeMarket},
		{[]string{"plugin", "install", id}, "Successfully installed plugin: " + id + " (scope: user)"},
	} {
		r := s.run(step.args, "", env)
		if r.exit != 0 || !strings.Contains(string(r.stdout), step.want) {
			t.Fatalf("claude %v: exit %d\nstdout: %s\nstderr: %s", step.args, r.exit, r.stdout, r.stderr)
		}
	}

	claudeDir := filepath.Join(s.Home, ".claude")
	cache := filepath.Join(claudeDir, "plugins", "cache", probeMarket, probeName, "0.1.0")
	var settings struct {
		ExtraKnownMarketplaces map[string]struct{ Source map[string]string }
		EnabledPlugins         map[string]bool
	}
	readJSON(t, filepath.Join(claudeDir, "settings.json"), &settings)
	if src := settings.ExtraKnownMarketplaces[probeMarket].Source; !reflect.DeepEqual(src, map[string]string{"source": "directory", "path": market}) || !settings.EnabledPlugins[id] {
		t.Errorf("settings.json: %+v", settings)
	}
	var known map[string]struct{ InstallLocation string }
	readJSON(t, filepath.Join(claudeDir, "plugins", "known_marketplaces.json"), &known)
	if known[probeMarket].InstallLocation != market {
		t.Errorf("known_marketplaces.json: %+v", known)
	}
	var installed struct {
		Version int
		Plugins map[string][]struct{ Scope, InstallPath, Version string }
	}
	readJSON(t, filepath.Join(claudeDir, "plugins", "installed_plugins.json"), &installed)
	if p := installed.Plugins[id]; installed.Version != 2 || len(p) != 1 || p[0].Scope != "user" || p[0].InstallPath != cache || p[0].Version != "0.1.0" {
		t.Errorf("installed_plugins.json: %+v", installed)
	}
	if fi, err := os.Stat(filepath.Join(cache, "record.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the cache copy lacks an executable record.sh: %v", err)
	}

	// A user's session runs the plugin, from the marketplace directory itself.
	r := s.run([]string{"-p", "hi", "--output-format", "stream-json", "--verbose", "--model", "haiku"}, "", env)
	if r.exit != 0 {
		t.Fatalf("user session: exit %d; stderr:\n%s", r.exit, r.stderr)
	}
	if got := firedEvents(t, logDir); len(got) == 0 || got[0] != "hooksdir SessionStart" {
		t.Fatalf("user session: hooks fired %v", got)
	}
	if root := hookEnv(t, logDir, "hooksdir", "SessionStart")["CLAUDE_PLUGIN_ROOT"]; root != market {
		t.Errorf("CLAUDE_PLUGIN_ROOT %q, want the marketplace dir %q", root, market)
	}
	if !initHasPlugin(of(r.lines(t), "system", "init"), id) {
		t.Errorf("user session: init does not list %s", id)
	}

	// The observer's argv, same HOME: the installed plugin is not loaded.
	if err := os.Remove(filepath.Join(logDir, "events")); err != nil {
		t.Fatal(err)
	}
	r = s.run(observerArgv(), userLine("hello"), env)
	if r.exit != 0 {
		t.Fatalf("observer: exit %d; stderr:\n%s", r.exit, r.stderr)
	}
	if got := firedEvents(t, logDir); len(got) != 0 {
		t.Errorf("observer: plugin hooks fired %v", got)
	}
	if initHasPlugin(of(r.lines(t), "system", "init"), id) {
		t.Errorf("observer: init lists %s", id)
	}
}

func initHasPlugin(inits []map[string]any, id string) bool {
	for _, in := range inits {
		ps, _ := in["plugins"].([]any)
		for _, p := range ps {
			if m, _ := p.(map[string]any); m["source"] == id {
				return true
			}
		}
	}
	return false
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestHookWaiting: a hook is synchronous by default (the CLI waits for it before the first
// request), `"async": true` is not waited for and is cancelled when the session ends, and
// `"timeout"` (seconds) bounds a synchronous hook, which is then cancelled.
func TestHookWaiting(t *testing.T) {
	t.Parallel()
	const ctx = `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"E2E-SLOW-CONTEXT"}}'`
	tests := []struct {
		name        string
		hook        map[string]any
		wantContext bool
		wantOutcome string
	}{
		{"synchronous by default", map[string]any{"command": "sleep 1; " + ctx}, true, "success"},
		{"async", map[string]any{"command": "sleep 20; " + ctx, "async": true}, false, "cancelled"},
		{"timeout 1", map[string]any{"command": "sleep 20; " + ctx, "timeout": 1}, false, "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			plugin := filepath.Join(s.Root, "plugin")
			tt.hook["type"] = "command"
			testkit.WriteFile(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"waiting","version":"0.1.0"}`, 0o644)
			testkit.WriteFile(t, filepath.Join(plugin, "hooks", "hooks.json"), mustJSON(map[string]any{
				"hooks": map[string]any{"SessionStart": []any{map[string]any{"hooks": []any{tt.hook}}}},
			}), 0o644)
			r := s.run([]string{"-p", "hi", "--output-format", "stream-json", "--verbose", "--plugin-dir", plugin, "--model", "haiku"}, "", s.env())
			if r.exit != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.exit, r.stderr)
			}
			msgs := s.Mock.Messages()
			if len(msgs) != 1 {
				t.Fatalf("%d Messages requests", len(msgs))
			}
			if got := strings.Contains(string(msgs[0].Body), "E2E-SLOW-CONTEXT"); got != tt.wantContext {
				t.Errorf("hook context in the request: %v, want %v", got, tt.wantContext)
			}
			var outcomes []any
			for _, l := range of(r.lines(t), "system", "hook_response") {
				outcomes = append(outcomes, l["outcome"])
			}
			if len(outcomes) != 1 || outcomes[0] != tt.wantOutcome {
				t.Errorf("hook_response outcomes %v, want [%s]", outcomes, tt.wantOutcome)
			}
		})
	}
}

// TestSystemMessageTextOutput: with the default text output, a SessionStart systemMessage
// is printed nowhere; stdout is the model's answer alone.
func TestSystemMessageTextOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	plugin := filepath.Join(s.Root, "plugin")
	writePlugin(t, plugin, layout{hooksDir: true})
	env := s.env()
	env["E2E_HOOK_LOG"] = hookLog(t, s)
	s.Mock.Handle(mockapi.Any, mockapi.Text("the answer"))
	r := s.run([]string{"-p", "hi", "--plugin-dir", plugin, "--model", "haiku"}, "", env)
	if r.exit != 0 || string(r.stdout) != "the answer\n" || len(r.stderr) != 0 {
		t.Errorf("exit %d\nstdout %q\nstderr %q", r.exit, r.stdout, r.stderr)
	}
	if got := firedEvents(t, env["E2E_HOOK_LOG"]); len(got) == 0 || got[0] != "hooksdir SessionStart" {
		t.Errorf("SessionStart hook did not run: %v", got)
	}
}
