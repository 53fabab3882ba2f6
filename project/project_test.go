package project

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/selfcapture"
	"github.com/claude-mem/claude-mem-go/settings"
)

// tree builds a machine in a temp dir (resolved, so expected paths are the real ones) from
// entries: "dir/" makes a directory, "a/.git=text" writes a file, "link->target" a symlink;
// "<tmp>" in any of them is the temp dir.
func tree(t testing.TB, entries ...string) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(p string) string {
		p = strings.ReplaceAll(p, "<tmp>", tmp)
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(tmp, filepath.FromSlash(p))
	}
	for _, e := range entries {
		switch {
		case strings.Contains(e, "->"):
			link, target, _ := strings.Cut(e, "->")
			mustOK(t, os.MkdirAll(filepath.Dir(at(link)), 0o755))
			mustOK(t, os.Symlink(at(target), at(link)))
		case strings.Contains(e, "="):
			file, text, _ := strings.Cut(e, "=")
			mustOK(t, os.MkdirAll(filepath.Dir(at(file)), 0o755))
			mustOK(t, os.WriteFile(at(file), []byte(strings.ReplaceAll(text, "<tmp>", tmp)), 0o644))
		default:
			mustOK(t, os.MkdirAll(at(e), 0o755))
		}
	}
	return tmp
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func skipOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the trees use unix paths and symlinks")
	}
}

func TestDeriveRepositories(t *testing.T) {
	skipOnWindows(t)
	tmp := tree(t,
		"repo/.git/", "repo/a/b/c/", "repo/13.12.4/",
		"repo/nested/.git/", "repo/nested/x/",
		"main/.git/worktrees/wt/", "wts/feature/.git=gitdir: <tmp>/main/.git/worktrees/wt\n", "wts/feature/sub/",
		"wts/rel/.git=gitdir: ../../main/.git/worktrees/rel\r\n",
		"mainlink->main", "wts/vialink/.git=gitdir: <tmp>/mainlink/.git/worktrees/vialink\n",
		"super/.git/modules/lib/", "super/lib/.git=gitdir: ../.git/modules/lib\n", "super/lib/src/",
		"odd/.git=not a gitdir file\n",
		"dotgitlink/.git->repo/.git", "dotgitlink/x/",
		"plain/notes/",
		"shortcut->repo/a/b",
		"v2.1.0/.git/", "v2.1.0/src/",
	)
	j := func(p string) string { return filepath.Join(tmp, filepath.FromSlash(p)) }
	tests := []struct {
		name, cwd, wantName, wantRoot string
		refused                       string
	}{
		{name: "repo root", cwd: "repo", wantName: "repo", wantRoot: "repo"},
		{name: "repo subdir", cwd: "repo/a/b/c", wantName: "repo", wantRoot: "repo"},
		{name: "version-named dir inside a repo", cwd: "repo/13.12.4", wantName: "repo", wantRoot: "repo"},
		{name: "nested repo: innermost wins", cwd: "repo/nested/x", wantName: "nested", wantRoot: "repo/nested"},
		{name: "worktree", cwd: "wts/feature/sub", wantName: "main", wantRoot: "main"},
		{name: "worktree with a relative gitdir and CRLF", cwd: "wts/rel", wantName: "main", wantRoot: "main"},
		{name: "worktree whose gitdir goes through a link", cwd: "wts/vialink", wantName: "main", wantRoot: "main"},
		{name: "submodule", cwd: "super/lib/src", wantName: "lib", wantRoot: "super/lib"},
		{name: ".git file that is not a gitdir file", cwd: "odd", wantName: "odd", wantRoot: "odd"},
		{name: ".git symlinked to a directory", cwd: "dotgitlink/x", wantName: "dotgitlink", wantRoot: "dotgitlink"},
		{name: "no repository", cwd: "plain/notes", wantName: "notes", wantRoot: "plain/notes"},
		{name: "symlinked cwd into a repo", cwd: "shortcut/c", wantName: "repo", wantRoot: "repo"},
		{name: "repository with a version name", cwd: "v2.1.0/src", refused: "version-like name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Derive(j(tt.cwd), Options{GOOS: runtime.GOOS})
			if tt.refused != "" {
				var re *RefusedError
				if !errors.As(err, &re) || re.Reason != tt.refused {
					t.Fatalf("Derive = %+v, %v; want refused %q", p, err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := (Project{tt.wantName, j(tt.wantRoot)}); p != want {
				t.Errorf("Derive = %+v, want %+v", p, want)
			}
		})
	}
}

func TestDeriveNames(t *testing.T) {
	skipOnWindows(t)
	refused := []string{"13.12.4", "v2.1.0", "1.0.0-beta.1", "2026.11", "1.2", "V3.0", "2.0.0+build.5", "1.2.3-rc.1+sha.abc"}
	accepted := []string{"v8-engine", "python3", "web2", "2048-game", "v2", "1", "1.x", "1.2.3.beta", "claude-mem", "1.2-"}
	var entries []string
	for _, n := range append(append([]string{}, refused...), accepted...) {
		entries = append(entries, "names/"+n+"/")
	}
	tmp := tree(t, entries...)
	for _, n := range refused {
		t.Run(n, func(t *testing.T) {
			p, err := Derive(filepath.Join(tmp, "names", n), Options{GOOS: runtime.GOOS})
			var re *RefusedError
			if !errors.As(err, &re) || re.Reason != "version-like name" || re.Name != n {
				t.Errorf("Derive = %+v, %v; want refused as version-like name", p, err)
			}
		})
	}
	for _, n := range accepted {
		t.Run(n, func(t *testing.T) {
			p, err := Derive(filepath.Join(tmp, "names", n), Options{GOOS: runtime.GOOS})
			if err != nil || p.Name != n {
				t.Errorf("Derive = %+v, %v; want name %q", p, err, n)
			}
		})
	}
}

func TestDeriveRefusals(t *testing.T) {
	skipOnWindows(t)
	tmp := tree(t,
		"home/.local/share/claude-mem/observer-sessions/r1/", "home/.local/share/claude-mem2/",
		"home/.claude/plugins/cache/x/claude-mem/13.12.4/", "home/src/app/",
		"dev/claude-mem/hooks/", "opt/claude-mem/bin/", "cfg/plugins/cache/",
		"into-data->home/.local/share/claude-mem/observer-sessions",
	)
	j := func(p string) string { return filepath.Join(tmp, filepath.FromSlash(p)) }
	data := j("home/.local/share/claude-mem")
	ours := selfcapture.Input{
		Env:           settings.Env{"CLAUDE_PLUGIN_ROOT": j("dev/claude-mem")},
		Home:          j("home"),
		DataDir:       data,
		ExecutableDir: j("opt/claude-mem/bin"),
	}
	withCfg := ours
	withCfg.Env = settings.Env{"CLAUDE_CONFIG_DIR": j("cfg")}
	tests := []struct {
		name, cwd, goos string
		ours            selfcapture.Input
		reason          string // "" means accepted
	}{
		{"user's project", j("home/src/app"), "linux", ours, ""},
		{"observer run dir", j("home/.local/share/claude-mem/observer-sessions/r1"), "linux", ours, "inside data dir " + data},
		{"symlink into the data dir", j("into-data/r1"), "linux", ours, "inside data dir " + data},
		{"prefix trap", j("home/.local/share/claude-mem2"), "linux", ours, ""},
		{"plugin cache version dir", j("home/.claude/plugins/cache/x/claude-mem/13.12.4"), "linux", ours,
			"inside plugins dir " + j("home/.claude/plugins")},
		{"plugin root", j("dev/claude-mem/hooks"), "linux", ours, "inside plugin root " + j("dev/claude-mem")},
		{"executable dir", j("opt/claude-mem/bin"), "linux", ours, "inside executable dir " + j("opt/claude-mem/bin")},
		{"CLAUDE_CONFIG_DIR plugins", j("cfg/plugins/cache"), "linux", withCfg, "inside plugins dir " + j("cfg/plugins")},
		{"filesystem root", "/", "linux", ours, "filesystem root"},
		{"empty cwd", "", "linux", ours, "empty name"},
		{"darwin data dir in another case", "/users/a/library/claude-mem/x", "darwin",
			selfcapture.Input{DataDir: "/Users/A/Library/claude-mem"}, "inside data dir /Users/A/Library/claude-mem"},
		{"windows drive root", `C:\`, "windows", selfcapture.Input{}, "drive root"},
		{"windows drive root with a slash", `c:/`, "windows", selfcapture.Input{}, "drive root"},
		{"windows share root", `\\server\share`, "windows", selfcapture.Input{}, "drive root"},
		{"windows share root with a separator", `\\server\share\`, "windows", selfcapture.Input{}, "drive root"},
		{"windows version dir", `C:\Users\x\plugins\13.12.4`, "windows", selfcapture.Input{}, "version-like name"},
		{"windows plugins dir", `c:\users\x\.claude\plugins\cache\claude-mem\1.0.0`, "windows",
			selfcapture.Input{Home: `C:\Users\X`}, `inside plugins dir C:\Users\X\.claude\plugins`},
		{"windows project", `C:\Users\x\src\app`, "windows", selfcapture.Input{Home: `C:\Users\x`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Derive(tt.cwd, Options{GOOS: tt.goos, Ours: tt.ours})
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Derive = %v, want accepted", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Derive = %+v, %v; want refused %q", p, err, tt.reason)
			}
			if re.Reason != tt.reason || re.Path != tt.cwd {
				t.Errorf("refused %+v, want reason %q for %q", re, tt.reason, tt.cwd)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not name the reason", err)
			}
		})
	}
}

func TestDeriveWindowsProject(t *testing.T) {
	p, err := Derive(`c:/Users/x/src/App/`, Options{GOOS: "windows"})
	if want := (Project{"App", `c:\Users\x\src\App`}); err != nil || p != want {
		t.Errorf("Derive = %+v, %v; want %+v", p, err, want)
	}
}

func TestDeriveExcluded(t *testing.T) {
	skipOnWindows(t)
	tmp := tree(t,
		"home/work/secret/app/", "home/work/app/", "home/work/client-acme/", "home/work/clientacme/",
		"home/work/repo/.git/", "home/work/repo/sub/", "home/ab/", "home/café/",
		"link->home/work/secret",
	)
	home := filepath.Join(tmp, "home")
	j := func(p string) string { return filepath.Join(home, filepath.FromSlash(p)) }
	tests := []struct {
		name, cwd, home, goos string
		patterns              []string
		want                  string // the matching pattern, "" when not excluded
	}{
		{"name star", j("work/client-acme"), home, "linux", []string{"client-*"}, "client-*"},
		{"name star needs its literal", j("work/clientacme"), home, "linux", []string{"client-*"}, ""},
		{"name question mark", j("work/secret/app"), home, "linux", []string{"?pp"}, "?pp"},
		{"question mark is one char", j("ab"), home, "linux", []string{"?"}, ""},
		{"question mark is a character, not a byte", j("café"), home, "linux", []string{"caf?"}, "caf?"},
		{"path question mark is a character", j("café"), home, "linux", []string{"~/caf?"}, "~/caf?"},
		{"name star matches every name", j("ab"), home, "linux", []string{"*"}, "*"},
		{"name is matched whole", j("work/secret/app"), home, "linux", []string{"ap"}, ""},
		{"path star", j("work/secret/app"), home, "linux", []string{"~/work/*/app"}, "~/work/*/app"},
		{"path star stops at a separator", j("work/secret/app"), home, "linux", []string{"~/work/*"}, ""},
		{"path double star", j("work/secret/app"), home, "linux", []string{"~/work/**"}, "~/work/**"},
		{"double star covers the dir itself", j("work"), home, "linux", []string{"~/work/**"}, "~/work/**"},
		{"double star in the middle", j("work/secret/app"), home, "linux", []string{"~/**/app"}, "~/**/app"},
		{"double star may be empty", j("work/app"), home, "linux", []string{"~/work/**/app"}, "~/work/**/app"},
		{"leading double star", j("work/secret/app"), home, "linux", []string{"**/secret/**"}, "**/secret/**"},
		{"path question mark", j("ab"), home, "linux", []string{"~/a?"}, "~/a?"},
		{"repo root path from a subdir", j("work/repo/sub"), home, "linux", []string{"~/work/repo"}, "~/work/repo"},
		{"plain path is not a tree", j("work/secret/app"), home, "linux", []string{"~/work/secret"}, ""},
		{"tilde alone is home", home, home, "linux", []string{"~"}, "~"},
		{"tilde alone is not below home", j("ab"), home, "linux", []string{"~"}, ""},
		{"tilde user is literal", j("ab"), home, "linux", []string{"~ab"}, ""},
		{"no home: tilde patterns skipped", j("ab"), "", "linux", []string{"~/ab", "~"}, ""},
		{"absolute path", j("ab"), home, "linux", []string{filepath.Join(home, "ab")}, filepath.Join(home, "ab")},
		{"given symlinked path", filepath.Join(tmp, "link", "app"), home, "linux", []string{filepath.Join(tmp, "link", "*")}, filepath.Join(tmp, "link", "*")},
		{"resolved symlinked path", filepath.Join(tmp, "link", "app"), home, "linux", []string{"~/work/secret/app"}, "~/work/secret/app"},
		{"spaces and empty entries", j("ab"), home, "linux", []string{"", "  ", " nope ", " ab "}, "ab"},
		{"first match wins", j("ab"), home, "linux", []string{"zz", "a*", "ab"}, "a*"},
		{"linux compares case", j("work/app"), home, "linux", []string{"~/Work/**", "APP"}, ""},
		{"darwin folds case", "/Users/A/work/x", "/Users/A", "darwin", []string{"~/Work/**"}, "~/Work/**"},
		{"darwin name folds case", "/Users/A/work/MyApp", "/Users/A", "darwin", []string{"myapp"}, "myapp"},
		{"windows backslash tilde", `c:\users\a\work\x`, `C:\Users\A`, "windows", []string{`~\Work\**`}, `~\Work\**`},
		{"windows slash pattern", `C:\Users\A\work\x`, `C:\Users\A`, "windows", []string{`c:/users/a/work/*`}, `c:/users/a/work/*`},
		{"windows star stops at backslash", `C:\Users\A\work\x\y`, `C:\Users\A`, "windows", []string{`C:\Users\A\work\*`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Derive(tt.cwd, Options{Home: tt.home, GOOS: tt.goos, Excluded: tt.patterns})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Derive = %v, want not excluded", err)
				}
				return
			}
			var ee *ExcludedError
			if !errors.As(err, &ee) {
				t.Fatalf("Derive = %+v, %v; want excluded by %q", p, err, tt.want)
			}
			if ee.Pattern != tt.want || ee.Path != tt.cwd {
				t.Errorf("excluded %+v, want pattern %q for %q", ee, tt.want, tt.cwd)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"", "", true},
		{"", "a", false},
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"a*", "a/b", false},
		{"a**", "a/b", true},
		{"a/**", "a", true},
		{"a/**", "ab", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a**b", "a/x/b", true},
		{"**", "", true},
		{"?", "/", false},
		{"caf?", "café", true}, // ? is a character, not a byte
		{"caf?", "caf", false},
		{"caf??", "café", false},
		{"caf*", "café/x", false},
		{"?é?", "aéb", true},
		{"*a*a*a*a*a*a*a*b", strings.Repeat("a", 200), false},
		{"*a*a*a*a*a*a*a*b", strings.Repeat("a", 200) + "b", true},
	}
	for _, tt := range tests {
		if got := match(tt.pat, tt.s, '/'); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
	}
}

func BenchmarkDerive(b *testing.B) {
	// Our dirs exist, as they do on a machine with the plugin installed.
	tmp := tree(b, "home/src/repo/.git/", "home/src/repo/l1/l2/l3/l4/l5/l6/",
		"home/.local/share/claude-mem/", "home/.claude/plugins/", "plugin/bin/")
	cwd := filepath.Join(tmp, "home/src/repo/l1/l2/l3/l4/l5/l6")
	o := Options{
		Home:     filepath.Join(tmp, "home"),
		GOOS:     runtime.GOOS,
		Excluded: []string{"~/private/**", "scratch-*"},
		Ours: selfcapture.Input{
			Env:           settings.Env{"CLAUDE_PLUGIN_ROOT": filepath.Join(tmp, "plugin")},
			Home:          filepath.Join(tmp, "home"),
			DataDir:       filepath.Join(tmp, "home/.local/share/claude-mem"),
			ExecutableDir: filepath.Join(tmp, "plugin/bin"),
		},
	}
	for b.Loop() {
		if p, err := Derive(cwd, o); err != nil || p.Name != "repo" {
			b.Fatal(p, err)
		}
	}
}
