//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/permit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// allowMarker is the prompt of searchWithoutAllowedTools' sessions.
const allowMarker = "E2E-ALLOW-SESSION"

// searchWithoutAllowedTools runs a `claude -p` session without --allowedTools whose model
// loads the memory search tool (ToolSearch select), calls it with query, and answers; it
// returns the search call's tool result as the model got it.
func (p *product) searchWithoutAllowedTools(query string) string {
	t := p.t
	t.Helper()
	// A marker of this session's own: the mock's first matching rule keeps answering with
	// its last reply once its script is used up.
	marker := fmt.Sprintf("%s-%d", allowMarker, len(p.requestsWith(allowMarker)))
	p.Mock.Handle(all(mockapi.Not(isObserver), mockapi.BodyContains(marker)),
		mockapi.ToolUse("ToolSearch", map[string]any{"query": "select:" + mcpSearch, "max_results": 1}),
		mockapi.ToolUse(mcpSearch, map[string]any{"query": query}),
		mockapi.Text("done"))
	r := p.run([]string{"-p", marker + " what do we know about " + query + "?", "--output-format", "stream-json", "--verbose", "--model", "haiku"}, "", p.userEnv(true))
	if r.exit != 0 {
		t.Fatalf("session: exit %d\n%s", r.exit, r.stderr)
	}
	p.quiesce()
	reqs := p.requestsWith(marker)
	if len(reqs) < 3 {
		t.Fatalf("%d requests, want 3 (ToolSearch, search, answer):\n%s", len(reqs), lastLines(r.stdout, 30))
	}
	return lastToolResult(reqs[len(reqs)-1])
}

// TestInstallAllowsMemoryTools: `make install` with ALLOW_TOOLS=yes adds the one permission
// rule to the user's Claude Code settings, keeping every other key byte for byte, and then
// a `claude -p` session WITHOUT --allowedTools gets the model's search call answered with the
// stored memory (Claude Code 2.1.328 takes a rule naming the plugin's server,
// mcp__plugin_claude-mem_memory, as allowing its every tool). `make uninstall` takes it back,
// every key of the user's as it was, and installed again without the rule the same
// session's call is refused: the control. The backup install keeps,
// settings.json.bak-claude-mem, is the user's file byte for byte, taken before Claude
// Code's own plugin commands rewrite it, and uninstall lists it among what stays.
func TestInstallAllowsMemoryTools(t *testing.T) {
	t.Parallel()
	p := newProductWith(t, "checkout-allow")
	cli := filepath.Join(p.BinDir, "claude")
	p.Mock.Handle(isObserver, mockapi.Text("no observations"))
	settingsPath := filepath.Join(p.Home, ".claude", "settings.json")
	before := "{\n  \"cleanupPeriodDays\": 30,\n  \"env\": {\n    \"FOO\": \"bar\"\n  },\n  \"includeCoAuthoredBy\": false\n}\n"
	if err := os.MkdirAll(filepath.Dir(settingsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsPath, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	env := p.installEnv() // ALLOW_TOOLS=yes
	out, err := makeIn(env, "install", "PLUGIN_DIR="+p.Plugin, "HOOK_BIN="+p.Hook, "CLAUDE="+cli)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "the memory tools are allowed: added") {
		t.Errorf("make install does not say it allowed the tools:\n%s", out)
	}
	// The command for people: ~/.local/bin/claude-mem is the plugin's hook.
	link := filepath.Join(p.Home, ".local", "bin", "claude-mem")
	if got, err := os.Readlink(link); err != nil || got != p.Hook {
		t.Errorf("after make install, %s → %q (%v), want %s", link, got, err, p.Hook)
	}
	if !strings.Contains(string(out), "install: linked "+link+" to "+p.Hook) {
		t.Errorf("make install does not say where claude-mem is:\n%s", out)
	}
	after, _ := os.ReadFile(settingsPath)
	if st, err := permit.Check(settingsPath); err != nil || st != permit.Allowed {
		t.Fatalf("after make install: %v %v\n%s", st, err, after)
	}
	// The backup is the user's own bytes; the file itself was rewritten (by allow-tools and
	// by Claude Code's plugin commands, which add their own keys), so a backup taken after
	// any of them would differ.
	backup := settingsPath + ".bak-claude-mem"
	if b, err := os.ReadFile(backup); err != nil || string(b) != before {
		t.Errorf("after make install the backup %s is %q (%v), want the user's file %q", backup, b, err, before)
	}
	if !strings.Contains(string(after), "extraKnownMarketplaces") || string(after) == before {
		t.Errorf("Claude Code's plugin commands did not rewrite settings.json (the control):\n%s", after)
	}
	var was, is map[string]json.RawMessage
	if json.Unmarshal([]byte(before), &was) != nil || json.Unmarshal(after, &is) != nil {
		t.Fatalf("settings:\n%s", after)
	}
	for k, v := range was {
		if string(is[k]) != string(v) {
			t.Errorf("settings key %s changed: %s → %s", k, v, is[k])
		}
	}
	p.seedObservation(mcpObsTitle)

	answered := func() string { return p.searchWithoutAllowedTools("zebra") }
	if res := answered(); !strings.Contains(res, mcpObsTitle) {
		t.Errorf("without --allowedTools, the search call's result lacks the stored memory:\n%s", res)
	}

	out, err = makeIn(env, "uninstall", "PLUGIN_DIR="+p.Plugin, "CLAUDE="+cli)
	if err != nil {
		t.Fatal(err)
	}
	// What install added is gone, every key of the user's is as it was; Claude Code's own
	// plugin bookkeeping (enabledPlugins, extraKnownMarketplaces, written by `claude plugin
	// install`) is its own.
	restored, _ := os.ReadFile(settingsPath)
	var now map[string]json.RawMessage
	if err := json.Unmarshal(restored, &now); err != nil {
		t.Fatal(err)
	}
	delete(now, "enabledPlugins")
	delete(now, "extraKnownMarketplaces")
	if len(now) != len(was) || !strings.HasPrefix(string(restored), strings.TrimSuffix(before, "\n}\n")) {
		t.Errorf("after make uninstall the settings file is not as it was:\n%s\nwant:\n%s", restored, before)
	}
	for k, v := range was {
		if string(now[k]) != string(v) {
			t.Errorf("after make uninstall, key %s: %s, want %s", k, now[k], v)
		}
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("after make uninstall %s is still there: %v", link, err)
	}
	for _, want := range []string{"took back the rule", "removed " + link, "plugins/cache/" + productMarket, "claude-mem-go",
		`your settings.json before install:   rm -f "` + backup + `"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make uninstall does not say %q:\n%s", want, out)
		}
	}

	// The control: installed again without the rule, the same call is refused. The backup
	// is the file as this install found it.
	out, err = makeIn(append(p.installEnv(), "ALLOW_TOOLS=no"), "install", "PLUGIN_DIR="+p.Plugin, "HOOK_BIN="+p.Hook, "CLAUDE="+cli)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(backup); err != nil || string(b) != string(restored) {
		t.Errorf("after make install again the backup is %q (%v), want the file as it was %q", b, err, restored)
	}
	if !strings.Contains(string(out), "to allow them: "+p.Hook+" allow-tools") {
		t.Errorf("make install with ALLOW_TOOLS=no does not say how to allow the tools:\n%s", out)
	}
	if res := answered(); strings.Contains(res, mcpObsTitle) {
		t.Errorf("without the rule and without --allowedTools, the search call was answered: the rule is not what allowed it:\n%s", res)
	}
}
