package claudebin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/settings"
)

// sysFS is the real OSFS with the system-wide install dirs redirected under a temp root, so
// a claude installed on the test machine cannot leak into results; results still name the
// system path.
type sysFS struct {
	OSFS
	root string
}

func (s sysFS) redirect(name string) string {
	for _, d := range []string{"/usr/local/bin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(name, d) {
			return filepath.Join(s.root, name)
		}
	}
	return name
}

func (s sysFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(s.redirect(name)) }
func (s sysFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(s.redirect(name)) }

// entry is one thing in a fake tree, its path relative to the test root ("sys/usr/local/bin"
// is the redirected /usr/local/bin). kind: exe (0755 script), file (0644), garbage (0755, no
// shebang), dir, or link:TARGET (a symlink; TARGET relative to the link's dir).
type entry struct{ path, kind string }

func build(t testing.TB, root string, entries []entry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(root, e.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch kind := e.kind; {
		case kind == "exe":
			err = os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755)
		case kind == "file":
			err = os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o644)
		case kind == "garbage":
			err = os.WriteFile(p, []byte("\x00\x01not a program\n"), 0o755)
		case kind == "dir":
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(kind, "link:"):
			err = os.Symlink(strings.TrimPrefix(kind, "link:"), p)
		default:
			t.Fatalf("bad kind %q", kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// emptyHome is the tail of the probe list for a linux home with nothing installed.
func emptyHome(home string) []Probe {
	return []Probe{
		{home + "/.local/bin/claude", "not found"},
		{home + "/.claude/local/claude", "not found"},
		{"/usr/local/bin/claude", "not found"},
		{"/opt/homebrew/bin/claude", "not found"},
		{home + "/.npm-global/bin/claude", "not found"},
		{home + "/.bun/bin/claude", "not found"},
		{home + "/.vscode/extensions/anthropic.claude-code-*/resources/native-binary/claude", "no match"},
		{home + "/.vscode-insiders/extensions/anthropic.claude-code-*/resources/native-binary/claude", "no match"},
		{home + "/.vscode-server/extensions/anthropic.claude-code-*/resources/native-binary/claude", "no match"},
		{home + "/.cursor/extensions/anthropic.claude-code-*/resources/native-binary/claude", "no match"},
		{home + "/.windsurf/extensions/anthropic.claude-code-*/resources/native-binary/claude", "no match"},
	}
}

const (
	vscodeExt = "home/.vscode/extensions/anthropic.claude-code-"
	nativeBin = "/resources/native-binary/claude"
	npmShim   = "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
)

func TestResolve(t *testing.T) {
	// In env values, want paths and probes, $R is the test root and $H its home.
	tests := []struct {
		name string
		goos string // "" is linux
		tree []entry
		env  map[string]string // nil: HOME=$H, PATH=$R/bin
		want Result
		// exactly one of want.Path, notFound, unspawnable is set
		notFound    []Probe
		unspawnable error  // errors.Is target
		setting     string // UnspawnableError.Setting
	}{
		{
			name: "PATH",
			tree: []entry{{"bin/claude", "exe"}},
			want: Result{"$R/bin/claude", ViaPATH},
		},
		{
			name: "PATH first dir wins",
			tree: []entry{{"a/claude", "exe"}, {"b/claude", "exe"}},
			env:  map[string]string{"HOME": "$H", "PATH": "$R/a:$R/b"},
			want: Result{"$R/a/claude", ViaPATH},
		},
		{
			name: "PATH skips no-x file, directory and relative entry",
			tree: []entry{{"a/claude", "file"}, {"b/claude", "dir"}, {"c/claude", "exe"}},
			env:  map[string]string{"HOME": "$H", "PATH": "::$R/a:bin:$R/b:$R/c"},
			want: Result{"$R/c/claude", ViaPATH},
		},
		{
			name: "native link returned as the link, not its target",
			tree: []entry{
				{"home/.local/share/claude/versions/2.1.328", "exe"},
				{"home/.local/bin/claude", "link:../share/claude/versions/2.1.328"},
			},
			want: Result{"$H/.local/bin/claude", ViaNativeLink},
		},
		{
			name: "dangling native link: newest version, 2.1.10 beats 2.1.9",
			tree: []entry{
				{"home/.local/bin/claude", "link:../share/claude/versions/2.1.11"},
				{"home/.local/share/claude/versions/2.1.9", "exe"},
				{"home/.local/share/claude/versions/2.1.10", "exe"},
				{"home/.local/share/claude/versions/2.1.2", "exe"},
				{"home/.local/share/claude/versions/latest", "exe"},
				{"home/.local/share/claude/versions/2.1.99.tmp", "exe"},
				{"home/.local/share/claude/versions/.lock", "file"},
			},
			want: Result{"$H/.local/share/claude/versions/2.1.10", ViaNativeVersions},
		},
		{
			name: "dangling native link: newest not executable yet, next newest",
			tree: []entry{
				{"home/.local/bin/claude", "link:../share/claude/versions/2.1.11"},
				{"home/.local/share/claude/versions/2.1.9", "exe"},
				{"home/.local/share/claude/versions/2.1.10", "file"},
			},
			want: Result{"$H/.local/share/claude/versions/2.1.9", ViaNativeVersions},
		},
		{
			name: "dangling native link on PATH is probed once and still falls back",
			tree: []entry{
				{"home/.local/bin/claude", "link:../share/claude/versions/2.1.11"},
				{"home/.local/share/claude/versions/2.1.10", "exe"},
			},
			env:  map[string]string{"HOME": "$H", "PATH": "$H/.local/bin"},
			want: Result{"$H/.local/share/claude/versions/2.1.10", ViaNativeVersions},
		},
		{
			name: "dangling native link and no versions",
			tree: []entry{
				{"home/.local/bin/claude", "link:../share/claude/versions/2.1.11"},
				{"home/.local/share/claude/versions/latest", "file"},
				{"bin", "dir"},
			},
			notFound: append([]Probe{
				{"$R/bin/claude", "not found"},
				{"$H/.local/bin/claude", "dangling link"},
				{"$H/.local/share/claude/versions/*", "no match"},
			}, emptyHome("$H")[1:]...),
		},
		{
			name: "~/.claude/local",
			tree: []entry{{"home/.claude/local/claude", "exe"}},
			want: Result{"$H/.claude/local/claude", ViaKnownLocation},
		},
		{
			name: "/usr/local/bin",
			tree: []entry{{"sys/usr/local/bin/claude", "exe"}},
			want: Result{"/usr/local/bin/claude", ViaKnownLocation},
		},
		{
			name: "/opt/homebrew/bin",
			goos: "darwin",
			tree: []entry{{"sys/opt/homebrew/bin/claude", "exe"}},
			want: Result{"/opt/homebrew/bin/claude", ViaKnownLocation},
		},
		{
			name: "~/.npm-global",
			tree: []entry{{"home/.npm-global/bin/claude", "exe"}},
			want: Result{"$H/.npm-global/bin/claude", ViaKnownLocation},
		},
		{
			name: "~/.bun",
			tree: []entry{{"home/.bun/bin/claude", "exe"}},
			want: Result{"$H/.bun/bin/claude", ViaKnownLocation},
		},
		{
			name: "VS Code only, 2.1.10 beats 2.1.9",
			tree: []entry{
				{vscodeExt + "2.1.9-linux-x64" + nativeBin, "exe"},
				{vscodeExt + "2.1.10-linux-x64" + nativeBin, "exe"},
				{vscodeExt + "2.1.2-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.10-linux-x64" + nativeBin, ViaEditor},
		},
		{
			name: "Cursor only",
			tree: []entry{{"home/.cursor/extensions/anthropic.claude-code-2.1.328-linux-arm64" + nativeBin, "exe"}},
			want: Result{"$H/.cursor/extensions/anthropic.claude-code-2.1.328-linux-arm64" + nativeBin, ViaEditor},
		},
		{
			name: "vscode-server only, no platform suffix",
			tree: []entry{{"home/.vscode-server/extensions/anthropic.claude-code-2.1.328" + nativeBin, "exe"}},
			want: Result{"$H/.vscode-server/extensions/anthropic.claude-code-2.1.328" + nativeBin, ViaEditor},
		},
		{
			name: "windsurf and insiders: newest overall wins",
			tree: []entry{
				{"home/.vscode-insiders/extensions/anthropic.claude-code-2.1.9-linux-x64" + nativeBin, "exe"},
				{"home/.windsurf/extensions/anthropic.claude-code-2.1.10-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.windsurf/extensions/anthropic.claude-code-2.1.10-linux-x64" + nativeBin, ViaEditor},
		},
		{
			name: "same version in two editors: editor order",
			tree: []entry{
				{"home/.cursor/extensions/anthropic.claude-code-2.1.10-linux-x64" + nativeBin, "exe"},
				{vscodeExt + "2.1.10-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.10-linux-x64" + nativeBin, ViaEditor},
		},
		{
			name: "platform suffix: another OS's binary is skipped",
			tree: []entry{
				{vscodeExt + "2.1.10-darwin-arm64" + nativeBin, "exe"},
				{vscodeExt + "2.1.9-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.9-linux-x64" + nativeBin, ViaEditor},
		},
		{
			name: "platform suffix: darwin takes the darwin build",
			goos: "darwin",
			tree: []entry{
				{vscodeExt + "2.1.10-darwin-arm64" + nativeBin, "exe"},
				{vscodeExt + "2.1.11-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.10-darwin-arm64" + nativeBin, ViaEditor},
		},
		{
			name: "editor: newest extension without a binary falls to the next",
			tree: []entry{
				{vscodeExt + "2.1.10-linux-x64/package.json", "file"},
				{vscodeExt + "2.1.9-linux-x64" + nativeBin, "exe"},
			},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.9-linux-x64" + nativeBin, ViaEditor},
		},
		{
			name: "all at once: PATH first",
			tree: []entry{
				{"bin/claude", "exe"},
				{"home/.local/bin/claude", "exe"},
				{"home/.claude/local/claude", "exe"},
				{vscodeExt + "2.1.9" + nativeBin, "exe"},
			},
			want: Result{"$R/bin/claude", ViaPATH},
		},
		{
			name: "native before known before editor",
			tree: []entry{
				{"home/.local/bin/claude", "exe"},
				{"home/.claude/local/claude", "exe"},
				{vscodeExt + "2.1.9" + nativeBin, "exe"},
			},
			want: Result{"$H/.local/bin/claude", ViaNativeLink},
		},
		{
			name: "known in listed order before editor",
			tree: []entry{
				{"home/.bun/bin/claude", "exe"},
				{"sys/usr/local/bin/claude", "exe"},
				{"home/.claude/local/claude", "file"},
				{vscodeExt + "2.1.9" + nativeBin, "exe"},
			},
			want: Result{"/usr/local/bin/claude", ViaKnownLocation},
		},
		{
			name: "nothing: every probe in order, no-x file and directory reported",
			tree: []entry{{"a/claude", "file"}, {"b/claude", "dir"}, {"c/claude", "link:gone"}},
			env:  map[string]string{"HOME": "$H", "PATH": "$R/a:$R/b:$R/c:rel"},
			notFound: append([]Probe{
				{"$R/a/claude", "not executable"},
				{"$R/b/claude", "is a directory"},
				{"$R/c/claude", "dangling link"},
				{"rel", "relative PATH entry ignored"},
			}, emptyHome("$H")...),
		},
		{
			name: "no HOME",
			tree: []entry{{"bin", "dir"}},
			env:  map[string]string{"PATH": "$R/bin"},
			notFound: []Probe{
				{"$R/bin/claude", "not found"},
				{"~", "HOME not set"},
				{"/usr/local/bin/claude", "not found"},
				{"/opt/homebrew/bin/claude", "not found"},
			},
		},
		{
			name: "CLAUDE_MEM_CLAUDE_PATH beats PATH and CLAUDE_CODE_PATH",
			tree: []entry{{"bin/claude", "exe"}, {"x/claude", "exe"}, {"y/claude", "exe"}},
			env:  map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_MEM_CLAUDE_PATH": "$R/x/claude", "CLAUDE_CODE_PATH": "$R/y/claude"},
			want: Result{"$R/x/claude", ViaClaudeMemPath},
		},
		{
			name: "CLAUDE_CODE_PATH",
			tree: []entry{{"bin/claude", "exe"}, {"y/claude", "exe"}},
			env:  map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_CODE_PATH": "$R/y/claude"},
			want: Result{"$R/y/claude", ViaClaudeCodePath},
		},
		{
			name: "explicit setting with ~ (settings.json is not shell-expanded)",
			tree: []entry{{"home/bin/claude", "exe"}},
			env:  map[string]string{"HOME": "$H", "CLAUDE_MEM_CLAUDE_PATH": "~/bin/claude"},
			want: Result{"$H/bin/claude", ViaClaudeMemPath},
		},
		{
			name:        "explicit setting pointing at nothing: no fallback to PATH",
			tree:        []entry{{"bin/claude", "exe"}},
			env:         map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_MEM_CLAUDE_PATH": "$R/gone/claude"},
			unspawnable: ErrNoFile,
			setting:     ViaClaudeMemPath,
		},
		{
			name:        "CLAUDE_CODE_PATH is a directory",
			tree:        []entry{{"bin/claude", "exe"}, {"d", "dir"}},
			env:         map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_CODE_PATH": "$R/d"},
			unspawnable: ErrIsDirectory,
			setting:     ViaClaudeCodePath,
		},
		{
			name:        "explicit setting not executable",
			tree:        []entry{{"bin/claude", "exe"}, {"x/claude", "file"}},
			env:         map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_MEM_CLAUDE_PATH": "$R/x/claude"},
			unspawnable: ErrNotExecutable,
			setting:     ViaClaudeMemPath,
		},
		{
			name:        "explicit setting relative",
			tree:        []entry{{"bin/claude", "exe"}},
			env:         map[string]string{"HOME": "$H", "PATH": "$R/bin", "CLAUDE_MEM_CLAUDE_PATH": "claude"},
			unspawnable: ErrRelative,
			setting:     ViaClaudeMemPath,
		},

		// windows rules on a forward-slash tree: no execute bit needed, .exe only.
		{
			name: "windows: claude.exe on Path (case-insensitive name, ; separator)",
			goos: "windows",
			tree: []entry{{"a/claude", "exe"}, {"b/claude.exe", "file"}},
			env:  map[string]string{"USERPROFILE": "$H", "Path": "$R/a;$R/b"},
			want: Result{"$R/b/claude.exe", ViaPATH},
		},
		{
			name: "windows: quoted Path entry",
			goos: "windows",
			tree: []entry{{"with;semi/claude.exe", "file"}},
			env:  map[string]string{"USERPROFILE": "$H", "PATH": `"$R/with;semi"`},
			want: Result{"$R/with;semi/claude.exe", ViaPATH},
		},
		{
			name: "windows: npm claude.cmd shim maps to the package's claude.exe",
			goos: "windows",
			tree: []entry{
				{"npm/claude.cmd", "file"},
				{"npm/claude.ps1", "file"},
				{"npm/claude", "exe"},
				{"npm/" + npmShim, "file"},
			},
			env:  map[string]string{"USERPROFILE": "$H", "PATH": "$R/npm"},
			want: Result{"$R/npm/" + npmShim, ViaPATH},
		},
		{
			name: "windows: never a .cmd, .bat or .ps1",
			goos: "windows",
			tree: []entry{
				{"npm/claude.cmd", "exe"},
				{"s/claude.bat", "exe"},
				{"s/claude.ps1", "exe"},
				{"s/claude", "exe"},
				{"sys/usr/local/bin/claude", "exe"},
				{"home/.vscode/extensions/anthropic.claude-code-2.1.9-linux-x64" + nativeBin, "exe"},
			},
			env: map[string]string{"USERPROFILE": "$H", "PATH": "$R/npm;$R/s"},
			notFound: []Probe{
				{"$R/npm/claude.exe", "not found"},
				{"$R/npm/claude.cmd", "npm shim: cannot be started without a shell"},
				{"$R/npm/" + npmShim, "not found"},
				{"$R/s/claude.exe", "not found"},
				{"$H/.local/bin/claude.exe", "not found"},
				{"$H/.claude/local/claude.exe", "not found"},
				{"$H/.npm-global/bin/claude.exe", "not found"},
				{"$H/.bun/bin/claude.exe", "not found"},
				{"$H/.vscode/extensions/anthropic.claude-code-2.1.9-linux-x64/resources/native-binary/claude.exe", "built for linux-x64"},
				{"$H/.vscode-insiders/extensions/anthropic.claude-code-*/resources/native-binary/claude.exe", "no match"},
				{"$H/.vscode-server/extensions/anthropic.claude-code-*/resources/native-binary/claude.exe", "no match"},
				{"$H/.cursor/extensions/anthropic.claude-code-*/resources/native-binary/claude.exe", "no match"},
				{"$H/.windsurf/extensions/anthropic.claude-code-*/resources/native-binary/claude.exe", "no match"},
			},
		},
		{
			name: "windows: HOME wins over USERPROFILE, native claude.exe",
			goos: "windows",
			tree: []entry{{"home/.local/bin/claude.exe", "file"}, {"other/.local/bin/claude.exe", "file"}},
			env:  map[string]string{"HOME": "$H", "USERPROFILE": "$R/other"},
			want: Result{"$H/.local/bin/claude.exe", ViaNativeLink},
		},
		{
			name: "windows: known location under home",
			goos: "windows",
			tree: []entry{{"home/.bun/bin/claude.exe", "file"}},
			env:  map[string]string{"USERPROFILE": "$H"},
			want: Result{"$H/.bun/bin/claude.exe", ViaKnownLocation},
		},
		{
			name: "windows: VS Code win32 extension",
			goos: "windows",
			tree: []entry{
				{vscodeExt + "2.1.9-win32-x64" + nativeBin + ".exe", "file"},
				{vscodeExt + "2.1.10-win32-x64" + nativeBin + ".exe", "file"},
			},
			env:  map[string]string{"USERPROFILE": "$H"},
			want: Result{"$H/.vscode/extensions/anthropic.claude-code-2.1.10-win32-x64" + nativeBin + ".exe", ViaEditor},
		},
		{
			name: "windows: explicit claude.CMD shim is mapped",
			goos: "windows",
			tree: []entry{{"npm/claude.CMD", "file"}, {"npm/" + npmShim, "file"}},
			env:  map[string]string{"USERPROFILE": "$H", "CLAUDE_MEM_CLAUDE_PATH": "$R/npm/claude.CMD"},
			want: Result{"$R/npm/" + npmShim, ViaClaudeMemPath},
		},
		{
			name:        "windows: explicit shim without the package",
			goos:        "windows",
			tree:        []entry{{"npm/claude.cmd", "file"}, {"bin/claude.exe", "file"}},
			env:         map[string]string{"USERPROFILE": "$H", "PATH": "$R/bin", "claude_code_path": "$R/npm/claude.cmd"},
			unspawnable: ErrNoFile,
			setting:     ViaClaudeCodePath,
		},
		{
			name:        "windows: explicit .BAT",
			goos:        "windows",
			tree:        []entry{{"s/claude.BAT", "file"}},
			env:         map[string]string{"USERPROFILE": "$H", "CLAUDE_MEM_CLAUDE_PATH": "$R/s/claude.BAT"},
			unspawnable: ErrShellScript,
			setting:     ViaClaudeMemPath,
		},
		{
			name:        "windows: explicit file without .exe",
			goos:        "windows",
			tree:        []entry{{"s/claude", "exe"}},
			env:         map[string]string{"USERPROFILE": "$H", "CLAUDE_MEM_CLAUDE_PATH": "$R/s/claude"},
			unspawnable: ErrNotExe,
			setting:     ViaClaudeMemPath,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			build(t, root, append([]entry{{"home", "dir"}}, tt.tree...))
			sub := strings.NewReplacer("$R", root, "$H", home).Replace
			envIn := tt.env
			if envIn == nil {
				envIn = map[string]string{"HOME": "$H", "PATH": "$R/bin"}
			}
			env := settings.Env{}
			for k, v := range envIn {
				env[k] = sub(v)
			}
			goos := tt.goos
			if goos == "" {
				goos = "linux"
			}

			got, err := Resolve(env, sysFS{root: filepath.Join(root, "sys")}, goos)

			var nf *NotFoundError
			var us *UnspawnableError
			switch {
			case tt.notFound != nil:
				if !errors.As(err, &nf) {
					t.Fatalf("Resolve = %+v, %v; want NotFoundError", got, err)
				}
				want := make([]Probe, len(tt.notFound))
				for i, p := range tt.notFound {
					want[i] = Probe{sub(p.Path), p.Reason}
				}
				if !reflect.DeepEqual(nf.Probed, want) {
					t.Errorf("probes:\n got %q\nwant %q", nf.Probed, want)
				}
				if !IsSetupError(err) {
					t.Errorf("IsSetupError(%v) = false", err)
				}
			case tt.unspawnable != nil:
				if !errors.As(err, &us) {
					t.Fatalf("Resolve = %+v, %v; want UnspawnableError", got, err)
				}
				if !errors.Is(err, tt.unspawnable) || us.Setting != tt.setting || !strings.Contains(err.Error(), tt.setting+"=") {
					t.Errorf("err = %v (setting %q); want %v naming %s", err, us.Setting, tt.unspawnable, tt.setting)
				}
			default:
				want := Result{sub(tt.want.Path), tt.want.Via}
				if err != nil || got != want {
					t.Errorf("Resolve = %+v, %v; want %+v", got, err, want)
				}
			}
		})
	}
}

// A binary that disappears is noticed by the next call: nothing is cached.
func TestResolveNotCached(t *testing.T) {
	root := t.TempDir()
	build(t, root, []entry{{"home", "dir"}, {"bin/claude", "exe"}})
	env := settings.Env{"HOME": root + "/home", "PATH": root + "/bin"}
	fsys := sysFS{root: root + "/sys"}
	if _, err := Resolve(env, fsys, "linux"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(root + "/bin/claude"); err != nil {
		t.Fatal(err)
	}
	var nf *NotFoundError
	if _, err := Resolve(env, fsys, "linux"); !errors.As(err, &nf) {
		t.Fatalf("after removal: %v; want NotFoundError", err)
	}
	build(t, root, []entry{{"home/.local/bin/claude", "exe"}})
	if got, err := Resolve(env, fsys, "linux"); err != nil || got.Via != ViaNativeLink {
		t.Fatalf("after install: %+v, %v", got, err)
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		goos, base string
		names      []string
		want       string
	}{
		{"linux", "/home/me", []string{".local", "bin", "claude"}, "/home/me/.local/bin/claude"},
		{"linux", "/home/me/", []string{"x"}, "/home/me/x"},
		{"windows", `C:\Users\me`, []string{".local", "bin", "claude.exe"}, `C:\Users\me\.local\bin\claude.exe`},
		{"windows", `C:\`, []string{"npm"}, `C:\npm`},
		{"windows", "C:/Users/me/", []string{"x", "claude.exe"}, "C:/Users/me/x/claude.exe"},
		{"windows", "/tmp/h", []string{"x"}, "/tmp/h/x"},
	}
	for _, tt := range tests {
		r := &resolver{windows: tt.goos == "windows"}
		if got := r.join(tt.base, tt.names...); got != tt.want {
			t.Errorf("%s join(%q, %q) = %q; want %q", tt.goos, tt.base, tt.names, got, tt.want)
		}
	}
}

func TestShimTargetWindowsPath(t *testing.T) {
	r := &resolver{windows: true}
	got := r.shimTarget(`C:\Users\me\AppData\Roaming\npm\claude.cmd`)
	want := `C:\Users\me\AppData\Roaming\npm\node_modules\@anthropic-ai\claude-code\bin\claude.exe`
	if got != want {
		t.Errorf("shimTarget = %q; want %q", got, want)
	}
}

func TestParseExtension(t *testing.T) {
	tests := []struct {
		name     string
		v        version
		platform string
		ok       bool
	}{
		{"anthropic.claude-code-2.1.328-darwin-arm64", version{2, 1, 328}, "darwin-arm64", true},
		{"anthropic.claude-code-2.1.10-win32-x64", version{2, 1, 10}, "win32-x64", true},
		{"anthropic.claude-code-2.1.9", version{2, 1, 9}, "", true},
		{"Anthropic.Claude-Code-1.0.0-linux-x64", version{1, 0, 0}, "linux-x64", true},
		{"anthropic.claude-code-latest", nil, "", false},
		{"anthropic.claude-code-", nil, "", false},
		{"anthropic.claude-code-2", nil, "", false},
		{"anthropic.claude-code-2..1", nil, "", false},
		{"anthropic.claude-code-2.1.x-linux-x64", nil, "", false},
		{"ms-python.python-2.1.9", nil, "", false},
	}
	for _, tt := range tests {
		v, platform, ok := parseExtension(tt.name)
		if ok != tt.ok || (ok && (!reflect.DeepEqual(v, tt.v) || platform != tt.platform)) {
			t.Errorf("parseExtension(%q) = %v, %q, %v; want %v, %q, %v", tt.name, v, platform, ok, tt.v, tt.platform, tt.ok)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2.1.10", "2.1.9", 1},
		{"2.1.9", "2.1.10", -1},
		{"2.1.328", "2.1.328", 0},
		{"10.0.0", "9.99.99", 1},
		{"2.1", "2.1.0", -1},
		{"2.02.1", "2.2.1", 0},
	}
	for _, tt := range tests {
		a, okA := parseVersion(tt.a)
		b, okB := parseVersion(tt.b)
		if !okA || !okB {
			t.Fatalf("parseVersion(%q, %q) failed", tt.a, tt.b)
		}
		if got := a.compare(b); got != tt.want {
			t.Errorf("compare(%s, %s) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// SessionStart runs this on every session of a user without claude: it must stay cheap.
func BenchmarkResolveNotFound(b *testing.B) {
	root := b.TempDir()
	build(b, root, []entry{{"home", "dir"}, {"bin1", "dir"}, {"bin2", "dir"}, {"bin3", "dir"}})
	env := settings.Env{"HOME": root + "/home", "PATH": root + "/bin1:" + root + "/bin2:" + root + "/bin3"}
	fsys := sysFS{root: root + "/sys"}
	for b.Loop() {
		if _, err := Resolve(env, fsys, "linux"); err == nil {
			b.Fatal("found a claude in an empty home")
		}
	}
}
