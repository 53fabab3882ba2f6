package selfcapture

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/settings"
)

// layout is a user's machine in a temp dir: home, our data dir, a plugin checkout, the
// executable's dir, a config dir and the user's project.
type layout struct {
	tmp, home, data, pluginRoot, exeDir, cfg, project string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	// Resolved, so expected reasons can name the real paths.
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{
		tmp:        tmp,
		home:       filepath.Join(tmp, "home"),
		data:       filepath.Join(tmp, "home", ".local", "share", "claude-mem"),
		pluginRoot: filepath.Join(tmp, "dev", "claude-mem"),
		exeDir:     filepath.Join(tmp, "opt", "claude-mem", "bin"),
		cfg:        filepath.Join(tmp, "cfg"),
		project:    filepath.Join(tmp, "home", "src", "app"),
	}
	for _, d := range []string{
		filepath.Join(l.data, "observer-sessions", "run1"),
		filepath.Join(tmp, "home", ".local", "share", "claude-mem2"),
		filepath.Join(l.pluginRoot, "bin"),
		l.exeDir,
		filepath.Join(l.cfg, "plugins", "cache"),
		filepath.Join(l.home, ".claude", "plugins", "cache", "x", "claude-mem", "13.12.4"),
		filepath.Join(l.home, ".claude", "projects", "-home-src-app"),
		l.project,
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestCheck(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the linux layout uses symlinks")
	}
	l := newLayout(t)
	if err := os.Symlink(l.data, filepath.Join(l.tmp, "shortcut")); err != nil {
		t.Fatal(err)
	}
	base := func() Input {
		return Input{
			Env:            settings.Env{"CLAUDE_PLUGIN_ROOT": l.pluginRoot},
			Home:           l.home,
			DataDir:        l.data,
			ExecutableDir:  l.exeDir,
			Cwd:            l.project,
			TranscriptPath: filepath.Join(l.home, ".claude", "projects", "-home-src-app", "s.jsonl"),
			GOOS:           "linux",
		}
	}
	tests := []struct {
		name   string
		edit   func(*Input)
		reason string // "" means not ours
	}{
		{"user's project", func(*Input) {}, ""},
		{"marker", func(in *Input) { in.Env["CLAUDE_MEM_INTERNAL"] = "1" }, "CLAUDE_MEM_INTERNAL=1"},
		{"marker 0 is not the marker", func(in *Input) { in.Env["CLAUDE_MEM_INTERNAL"] = "0" }, ""},
		{"marker true is not the marker", func(in *Input) { in.Env["CLAUDE_MEM_INTERNAL"] = "true" }, ""},
		{"cwd in an observer run dir", func(in *Input) { in.Cwd = filepath.Join(l.data, "observer-sessions", "run1") },
			"cwd inside data dir " + l.data},
		{"cwd is the data dir", func(in *Input) { in.Cwd = l.data }, "cwd inside data dir " + l.data},
		{"prefix trap", func(in *Input) { in.Cwd = l.data + "2" }, ""},
		{"cwd through a symlink into the data dir", func(in *Input) {
			in.Cwd = filepath.Join(l.tmp, "shortcut", "observer-sessions", "run1")
		}, "cwd inside data dir " + l.data},
		{"cwd in the plugin root", func(in *Input) { in.Cwd = filepath.Join(l.pluginRoot, "bin") },
			"cwd inside plugin root " + l.pluginRoot},
		{"cwd in the executable dir", func(in *Input) { in.Cwd = l.exeDir }, "cwd inside executable dir " + l.exeDir},
		{"cwd in the default plugins dir", func(in *Input) {
			in.Cwd = filepath.Join(l.home, ".claude", "plugins", "cache", "x", "claude-mem", "13.12.4")
		}, "cwd inside plugins dir " + filepath.Join(l.home, ".claude", "plugins")},
		{"CLAUDE_CONFIG_DIR moves the plugins dir", func(in *Input) {
			in.Env["CLAUDE_CONFIG_DIR"] = l.cfg
			in.Cwd = filepath.Join(l.cfg, "plugins", "cache")
		}, "cwd inside plugins dir " + filepath.Join(l.cfg, "plugins")},
		{"CLAUDE_CONFIG_DIR replaces the default", func(in *Input) {
			in.Env["CLAUDE_CONFIG_DIR"] = l.cfg
			in.Cwd = filepath.Join(l.home, ".claude", "plugins", "cache")
		}, ""},
		{"transcript in the data dir", func(in *Input) {
			in.TranscriptPath = filepath.Join(l.data, "observer-sessions", "run1", "transcript.jsonl")
		}, "transcript_path inside data dir " + l.data},
		{"transcript in the plugin root is not checked", func(in *Input) {
			in.TranscriptPath = filepath.Join(l.pluginRoot, "t.jsonl")
		}, ""},
		{"transcript with the data dir unset", func(in *Input) {
			in.DataDir = ""
			in.TranscriptPath = filepath.Join(l.data, "observer-sessions", "run1", "transcript.jsonl")
		}, ""},
		{"every dir unset", func(in *Input) {
			*in = Input{Env: settings.Env{}, Cwd: l.project, TranscriptPath: in.TranscriptPath, GOOS: "linux"}
		}, ""},
		{"empty cwd and transcript", func(in *Input) { in.Cwd, in.TranscriptPath = "", "" }, ""},
		{"a root data dir is skipped", func(in *Input) { in.DataDir = "/" }, ""},
		{"a data dir equal to home is skipped", func(in *Input) { in.DataDir = l.home }, ""},
		{"an executable dir above home is skipped", func(in *Input) { in.ExecutableDir = l.tmp }, ""},
		{"linux compares case", func(in *Input) { in.Cwd = filepath.Join(l.tmp, "HOME", ".local", "share", "claude-mem") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.edit(&in)
			got := Check(in)
			want := Decision{Ours: tt.reason != "", Reason: tt.reason}
			if got != want {
				t.Errorf("Check = %+v, want %+v", got, want)
			}
		})
	}
}

func TestCheckOtherPlatforms(t *testing.T) {
	// Paths of other machines: compared as text, never looked up here.
	tests := []struct {
		name string
		in   Input
		want Decision
	}{
		{"darwin data dir, other case", Input{
			DataDir: "/Users/A/Library/Application Support/claude-mem",
			Cwd:     "/users/a/library/application support/claude-mem/observer-sessions/1",
			GOOS:    "darwin",
		}, Decision{true, "cwd inside data dir /Users/A/Library/Application Support/claude-mem"}},
		{"darwin prefix trap", Input{
			DataDir: "/Users/A/Data", Cwd: "/users/a/data2", GOOS: "darwin",
		}, Decision{}},
		{"windows data dir with slashes and case", Input{
			DataDir: `C:\Users\A\AppData\Local\claude-mem`,
			Cwd:     `c:/users/a/appdata/local/claude-mem/observer-sessions/1`,
			GOOS:    "windows",
		}, Decision{true, `cwd inside data dir C:\Users\A\AppData\Local\claude-mem`}},
		{"windows default plugins dir", Input{
			Home: `C:\Users\A`, Cwd: `c:\users\a\.claude\plugins\cache\x\claude-mem\13.12.4`, GOOS: "windows",
		}, Decision{true, `cwd inside plugins dir C:\Users\A\.claude\plugins`}},
		{"windows CLAUDE_CONFIG_DIR", Input{
			Env:  settings.Env{"CLAUDE_CONFIG_DIR": `D:\cfg`},
			Home: `C:\Users\A`, Cwd: `d:\CFG\plugins\x`, GOOS: "windows",
		}, Decision{true, `cwd inside plugins dir D:\cfg\plugins`}},
		{"windows transcript", Input{
			DataDir:        `C:\Users\A\AppData\Local\claude-mem`,
			Cwd:            `C:\Users\A\src\app`,
			TranscriptPath: `C:\USERS\A\APPDATA\LOCAL\CLAUDE-MEM\observer-sessions\1\transcript.jsonl`,
			GOOS:           "windows",
		}, Decision{true, `transcript_path inside data dir C:\Users\A\AppData\Local\claude-mem`}},
		{"windows drive root executable dir is skipped", Input{
			ExecutableDir: `C:\`, Cwd: `C:\Users\A\src\app`, GOOS: "windows",
		}, Decision{}},
		{"windows user's project", Input{
			Home: `C:\Users\A`, DataDir: `C:\Users\A\AppData\Local\claude-mem`,
			Env: settings.Env{"CLAUDE_PLUGIN_ROOT": `C:\Users\A\.claude\plugins\cache\x\claude-mem\13.12.4`},
			Cwd: `C:\Users\A\src\claude-mem2`, GOOS: "windows",
		}, Decision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Check(tt.in); got != tt.want {
				t.Errorf("Check = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOwner(t *testing.T) {
	in := Input{
		Env:            settings.Env{envname.Internal: "1"},
		DataDir:        "/data/claude-mem",
		Cwd:            "/data/claude-mem/x",
		TranscriptPath: "/data/claude-mem/t.jsonl",
		GOOS:           "linux",
	}
	// Owner answers for the path given, not for the marker, in.Cwd or the transcript.
	if d, ok := Owner(in, "/home/u/src/app"); ok {
		t.Errorf("Owner(project) = %v, true", d)
	}
	d, ok := Owner(in, "/data/claude-mem/observer-sessions/1")
	if want := (OwnedDir{"data dir", "/data/claude-mem"}); !ok || d != want {
		t.Errorf("Owner(run dir) = %v, %v; want %v, true", d, ok, want)
	}
}

func BenchmarkCheck(b *testing.B) {
	tmp := b.TempDir()
	in := Input{
		Env:            settings.Env{"CLAUDE_PLUGIN_ROOT": filepath.Join(tmp, "plugin")},
		Home:           tmp,
		DataDir:        filepath.Join(tmp, ".local", "share", "claude-mem"),
		ExecutableDir:  filepath.Join(tmp, "plugin", "bin"),
		Cwd:            filepath.Join(tmp, "src", "a", "b", "c"),
		TranscriptPath: filepath.Join(tmp, ".claude", "projects", "x", "s.jsonl"),
		GOOS:           runtime.GOOS,
	}
	for _, d := range []string{in.Env["CLAUDE_PLUGIN_ROOT"], in.DataDir, in.ExecutableDir, in.Cwd, filepath.Dir(in.TranscriptPath), filepath.Join(tmp, ".claude", "plugins")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if Check(in).Ours {
			b.Fatal("ours")
		}
	}
}
