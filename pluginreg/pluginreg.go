// Package pluginreg reads Claude Code's plugin registry for claude-mem: whether the plugin
// is installed and enabled, where its marketplace is, and the directory Claude Code runs
// it from. The format is Claude Code 2.1.328's, pinned by tests/e2e (TestMarketplaceInstall,
// TestDoctorInstallState):
//
//	<config>/settings.json                    {"enabledPlugins":{"<id>":true}, ...}
//	<config>/plugins/installed_plugins.json   {"version":2,"plugins":{"<id>":[{"scope","installPath","version",...}]}}
//	<config>/plugins/known_marketplaces.json  {"<market>":{"source":{"source":"directory","path"},"installLocation"}}
//
// A plugin from a directory marketplace runs in place from that directory (joined with the
// plugin's "source" in its marketplace.json); Claude Code's cache copy is not used, and a
// moved or deleted directory leaves the plugin unloadable ("failed to load … cache-miss").
package pluginreg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The product's names in the registry.
const (
	Marketplace = "claude-mem-go"
	Plugin      = "claude-mem"
	ID          = Plugin + "@" + Marketplace
)

// State is what the registry says about claude-mem.
type State struct {
	ConfigDir   string `json:"config_dir"`
	Installed   bool   `json:"installed"`
	Scope       string `json:"scope,omitempty"`
	Version     string `json:"version,omitempty"`
	InstallPath string `json:"install_path,omitempty"` // Claude Code's cache copy
	Enabled     bool   `json:"enabled"`
	// The marketplace: its source kind ("directory", "github", …) and where it lives.
	Source        string `json:"marketplace_source,omitempty"`
	MarketDir     string `json:"marketplace_dir,omitempty"`
	MarketMissing bool   `json:"marketplace_missing,omitempty"`
	// Root is the directory Claude Code runs the plugin from.
	Root string `json:"root,omitempty"`
}

// ErrRegistry is a registry file that exists but cannot be read as Claude Code writes it.
var ErrRegistry = errors.New("plugin registry unreadable")

// Read reads the registry under configDir (CLAUDE_CONFIG_DIR or ~/.claude). Missing files
// mean nothing is installed, not an error.
func Read(configDir string) (State, error) {
	st := State{ConfigDir: configDir}
	var installed struct {
		Plugins map[string][]struct {
			Scope       string `json:"scope"`
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
		} `json:"plugins"`
	}
	if err := optional(readJSON(filepath.Join(configDir, "plugins", "installed_plugins.json"), &installed)); err != nil {
		return st, err
	}
	installs := installed.Plugins[ID]
	if len(installs) == 0 {
		return st, nil
	}
	in := installs[0]
	for _, i := range installs {
		if i.Scope == "user" {
			in = i
		}
	}
	st.Installed, st.Scope, st.Version, st.InstallPath = true, in.Scope, in.Version, in.InstallPath

	var settings struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if err := optional(readJSON(filepath.Join(configDir, "settings.json"), &settings)); err != nil {
		return st, err
	}
	st.Enabled = settings.EnabledPlugins[ID] // absent is disabled (2.1.328's `plugin list`)

	var markets map[string]struct {
		Source struct {
			Source string `json:"source"`
		} `json:"source"`
		InstallLocation string `json:"installLocation"`
	}
	if err := optional(readJSON(filepath.Join(configDir, "plugins", "known_marketplaces.json"), &markets)); err != nil {
		return st, err
	}
	m, ok := markets[Marketplace]
	if !ok {
		st.MarketMissing = true
		return st, nil
	}
	st.Source, st.MarketDir = m.Source.Source, m.InstallLocation
	if st.Source != "directory" {
		st.Root = st.InstallPath // other sources run from Claude Code's cache copy
		return st, nil
	}
	var listing struct {
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	err := readJSON(filepath.Join(st.MarketDir, ".claude-plugin", "marketplace.json"), &listing)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && listing.Plugins == nil) {
		st.MarketMissing = true
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Root = st.MarketDir
	for _, p := range listing.Plugins {
		var rel string
		if p.Name == Plugin && json.Unmarshal(p.Source, &rel) == nil {
			st.Root = filepath.Join(st.MarketDir, filepath.FromSlash(rel))
		}
	}
	return st, nil
}

// readJSON decodes path into v. A missing file is an error that says fs.ErrNotExist.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRegistry, path, err)
	}
	return nil
}

// optional is readJSON's error for a registry file Claude Code has not written yet.
func optional(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// SameFile reports whether the executables at a and b are the same build: the same file,
// or the same size and bytes (a copy made by `make install` or an unpacked archive).
func SameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	if os.SameFile(fa, fb) {
		return true, nil
	}
	if fa.Size() != fb.Size() {
		return false, nil
	}
	ra, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer ra.Close()
	rb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer rb.Close()
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(ra, ba)
		nb, eb := io.ReadFull(rb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == ea, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}
