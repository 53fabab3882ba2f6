package pluginreg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The registry as Claude Code 2.1.328 writes it after `plugin marketplace add DIR` and
// `plugin install claude-mem@claude-mem-go` (captured; tests/e2e pins it live), then each
// way it goes wrong.
func TestRead(t *testing.T) {
	installed := `{"version":2,"plugins":{"claude-mem@claude-mem-go":[{"scope":"user","installPath":"CFG/plugins/cache/claude-mem-go/claude-mem/0.1.0","version":"0.1.0","installedAt":"2026-11-30T20:30:50.192Z","lastUpdated":"2026-11-30T20:30:50.192Z"}]}}`
	known := `{"claude-mem-go":{"source":{"source":"directory","path":"MARKET"},"installLocation":"MARKET","lastUpdated":"2026-11-30T20:30:49.143Z"}}`
	enabled := `{"extraKnownMarketplaces":{"claude-mem-go":{"source":{"source":"directory","path":"MARKET"}}},"enabledPlugins":{"claude-mem@claude-mem-go":true}}`
	listing := `{"name":"claude-mem-go","plugins":[{"name":"claude-mem","source":"./"}]}`
	for _, tc := range []struct {
		name                     string
		files                    map[string]string // under cfg/, or market/ for "M:"
		installed, enabled, gone bool
		root                     string // relative to the temp dir
	}{
		{"nothing written yet", nil, false, false, false, ""},
		{"installed, enabled, runs in place from the marketplace dir",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": known, "settings.json": enabled, "M:.claude-plugin/marketplace.json": listing},
			true, true, false, "market"},
		{"a plugin in a sub-dir of its marketplace",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": known, "settings.json": enabled, "M:.claude-plugin/marketplace.json": `{"plugins":[{"name":"other","source":"./x"},{"name":"claude-mem","source":"./plugin"}]}`},
			true, true, false, "market/plugin"},
		{"disabled (plugin disable writes false)",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": known, "settings.json": `{"enabledPlugins":{"claude-mem@claude-mem-go":false}}`, "M:.claude-plugin/marketplace.json": listing},
			true, false, false, "market"},
		{"absent from enabledPlugins is disabled",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": known, "settings.json": `{}`, "M:.claude-plugin/marketplace.json": listing},
			true, false, false, "market"},
		{"marketplace dir moved away",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": known, "settings.json": enabled},
			true, true, true, ""},
		{"marketplace removed from the registry",
			map[string]string{"plugins/installed_plugins.json": installed, "plugins/known_marketplaces.json": `{}`, "settings.json": enabled},
			true, true, true, ""},
		{"another plugin named claude-mem (the JavaScript one) is not ours",
			map[string]string{"plugins/installed_plugins.json": `{"version":2,"plugins":{"claude-mem@thedotmack":[{"scope":"user","installPath":"x","version":"9"}]}}`, "settings.json": `{"enabledPlugins":{"claude-mem@thedotmack":true}}`},
			false, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, market := filepath.Join(dir, "cfg"), filepath.Join(dir, "market")
			for name, content := range tc.files {
				content = strings.NewReplacer("MARKET", market, "CFG", cfg).Replace(content)
				if rest, ok := strings.CutPrefix(name, "M:"); ok {
					write(t, filepath.Join(market, rest), content)
				} else {
					write(t, filepath.Join(cfg, name), content)
				}
			}
			st, err := Read(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.Installed != tc.installed || st.Enabled != tc.enabled || st.MarketMissing != tc.gone {
				t.Fatalf("installed %v enabled %v marketplace missing %v, want %v %v %v: %+v", st.Installed, st.Enabled, st.MarketMissing, tc.installed, tc.enabled, tc.gone, st)
			}
			want := ""
			if tc.root != "" {
				want = filepath.Join(dir, tc.root)
			}
			if st.Root != want {
				t.Errorf("root %q, want %q", st.Root, want)
			}
		})
	}
}

func TestReadUnreadable(t *testing.T) {
	cfg := t.TempDir()
	write(t, filepath.Join(cfg, "plugins", "installed_plugins.json"), `{"plugins":`)
	if _, err := Read(cfg); err == nil {
		t.Fatal("a torn installed_plugins.json read as fine")
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b, c, d := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c"), filepath.Join(dir, "d")
	big := make([]byte, 200_000)
	write(t, a, string(big))
	write(t, b, string(big)) // a copy
	big[150_000] = 1
	write(t, c, string(big)) // same size, one byte differs past the first block
	write(t, d, "short")
	for _, tc := range []struct {
		x, y string
		want bool
	}{{a, a, true}, {a, b, true}, {a, c, false}, {a, d, false}} {
		got, err := SameFile(tc.x, tc.y)
		if err != nil || got != tc.want {
			t.Errorf("SameFile(%s, %s) = %v, %v; want %v", filepath.Base(tc.x), filepath.Base(tc.y), got, err, tc.want)
		}
	}
	if _, err := SameFile(a, filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
