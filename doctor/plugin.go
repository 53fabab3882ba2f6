package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/permit"
	"github.com/claude-mem/claude-mem-go/pluginreg"
	"github.com/claude-mem/claude-mem-go/settings"
)

// Plugin is the report's `plugin` section: what Claude Code's registry says about
// claude-mem, and whether the plugin it runs is this very binary.
type Plugin struct {
	pluginreg.State
	// Checked: this binary belongs to a plugin dir (a checkout or an unpacked archive) that
	// Claude Code is not running it from right now, so its install is this doctor's business.
	Checked bool `json:"checked"`
	// Hook is the executable Claude Code runs (<root>/bin/hook); HookState compares it with
	// this one: "same", "different", "newer" (built after this one), "missing", or empty
	// when not compared.
	Hook      string `json:"hook,omitempty"`
	HookState string `json:"hook_state,omitempty"`
	// Tools: whether Claude Code lets the model call the memory tools without asking
	// (permit.State), once the plugin is installed; empty before.
	Tools permit.State `json:"tools,omitempty"`
	Error string       `json:"error,omitempty"`
}

// checkPlugin reads the registry and returns the section, its findings (each with the
// command that fixes it) and whether one of them is a failure: not installed (when
// checked), disabled, a marketplace directory that is gone, or memory tools not allowed.
func checkPlugin(in Inputs) (Plugin, []string, bool) {
	p, findings, failed := checkInstall(in)
	if !p.Installed {
		return p, findings, failed
	}
	var err error
	p.Tools, err = permit.Check(permit.SettingsFile(settings.ClaudeConfigDir(in.Env, in.Home)))
	switch {
	case err != nil:
		findings = append(findings, "claude-mem: cannot tell whether the memory tools are allowed: "+err.Error())
	case p.Tools == permit.NotAllowed:
		findings = append(findings, fmt.Sprintf("claude-mem: the memory tools are not allowed — Claude asks at every call (claude -p refuses them); run: %s allow-tools", in.command()))
		failed = true
	case p.Tools == permit.Denied:
		findings = append(findings, "claude-mem: the memory tools are denied by permissions.deny in your Claude Code settings (your choice; remove that rule to use them)")
	}
	return p, findings, failed
}

// checkInstall is checkPlugin's install part: registry, marketplace, enabled, same build.
func checkInstall(in Inputs) (Plugin, []string, bool) {
	st, err := pluginreg.Read(settings.ClaudeConfigDir(in.Env, in.Home))
	p := Plugin{State: st, Checked: in.PluginRoot != "" && in.Env.Get(envname.PluginRoot) == ""}
	if err != nil {
		p.Error = err.Error()
		return p, []string{"claude-mem: " + err.Error()}, false
	}
	fix := reinstall(in.PluginRoot)
	switch {
	case !st.Installed:
		if !p.Checked {
			return p, nil, false
		}
		return p, []string{"claude-mem: plugin not installed in Claude Code — run: " + fix}, true
	case st.MarketMissing:
		where := "is not a known marketplace"
		if st.MarketDir != "" {
			where = fmt.Sprintf("directory %s is gone (moved or deleted)", st.MarketDir)
		}
		return p, []string{fmt.Sprintf("claude-mem: plugin cannot load — marketplace %s %s; run: %s", pluginreg.Marketplace, where, fix)}, true
	case !st.Enabled && st.Scope == "user": // a project-scope install is enabled in that project's settings
		// The user's choice (claude plugin disable): said, with the way back, not failed.
		return p, []string{"claude-mem: plugin installed but disabled; to turn it back on, run: claude plugin enable " + pluginreg.ID}, false
	}
	if !p.Checked || st.Root == "" {
		return p, nil, false
	}
	p.Hook = filepath.Join(st.Root, "bin", filepath.Base(in.Hook))
	same, err := pluginreg.SameFile(in.Hook, p.Hook)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.HookState = "missing"
		return p, []string{fmt.Sprintf("claude-mem: the installed plugin has no %s — run: %s", p.Hook, fix)}, false
	case err != nil:
		p.Error = err.Error()
		return p, []string{"claude-mem: comparing the installed plugin's executable: " + err.Error()}, false
	case !same && newer(p.Hook, in.Hook):
		// An old copy's doctor: re-pointing the marketplace here would undo the update.
		p.HookState = "newer"
		return p, []string{fmt.Sprintf("claude-mem: Claude Code runs %s, a newer build than this %s — nothing to do here; for its report, run: %s doctor", p.Hook, in.Hook, in.commandFor(p.Hook))}, false
	case !same:
		p.HookState = "different"
		return p, []string{fmt.Sprintf("claude-mem: Claude Code runs %s, a different build from this %s — run: %s", p.Hook, in.Hook, fix)}, false
	}
	p.HookState = "same"
	return p, nil, false
}

// newer reports whether the executable at a was built (written) after the one at b.
func newer(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && fa.ModTime().After(fb.ModTime())
}

// reinstall is the command that (re)installs the plugin this binary belongs to: `make
// install` in a checkout, the two `claude plugin` commands for any other plugin dir.
func reinstall(root string) string {
	if root == "" {
		return "claude plugin marketplace add <the claude-mem directory> && claude plugin install " + pluginreg.ID
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err == nil {
		return "make -C " + shellQuote(root) + " install"
	}
	return "claude plugin marketplace add " + shellQuote(root) + " && claude plugin install " + pluginreg.ID
}

// summary is the section in one line for the text report.
func (p Plugin) summary() string {
	switch {
	case p.Error != "" && !p.Installed:
		return "unknown: " + p.Error
	case !p.Installed:
		return "no: " + pluginreg.ID + " is not in " + filepath.Join(p.ConfigDir, "plugins", "installed_plugins.json")
	}
	s := fmt.Sprintf("%s %s (scope %s), %s", pluginreg.ID, p.Version, p.Scope, map[bool]string{true: "enabled", false: "disabled"}[p.Enabled])
	switch {
	case p.MarketMissing:
		s += ", marketplace missing: " + orNone(p.MarketDir)
	case p.Root != "":
		s += ", runs from " + p.Root
	}
	if p.HookState != "" {
		s += ", bin/hook " + p.HookState
	}
	return s
}

// shellQuote makes a path safe to paste into a shell command: the fixes doctor prints are
// meant to be copied.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
