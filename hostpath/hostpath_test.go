package hostpath

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Inside is the guard's question, on cleaned, symlink-resolved paths: is path dir or below it.
func Inside(path, dir, goos string) bool {
	return Within(Key(Canonical(path, goos), goos), Key(Canonical(dir, goos), goos), goos)
}

func TestInsideText(t *testing.T) {
	// Paths that do not exist on this machine: decided on the cleaned text alone.
	tests := []struct {
		name, path, dir, goos string
		want                  bool
	}{
		{"child", "/data/claude-mem/observer-sessions/1", "/data/claude-mem", "linux", true},
		{"itself", "/data/claude-mem", "/data/claude-mem", "linux", true},
		{"trailing separators", "/data/claude-mem/./x/", "/data/claude-mem/", "linux", true},
		{"prefix trap", "/data/claude-mem2", "/data/claude-mem", "linux", false},
		{"prefix trap below", "/data/claude-mem2/x", "/data/claude-mem", "linux", false},
		{"dotdot out", "/data/claude-mem/../claude-mem2", "/data/claude-mem", "linux", false},
		{"parent is not inside", "/data", "/data/claude-mem", "linux", false},
		{"root holds all", "/anything/at/all", "/", "linux", true},
		{"linux is case-sensitive", "/Data/Claude-Mem/x", "/data/claude-mem", "linux", false},
		{"darwin folds case", "/users/a/data/x", "/Users/A/Data", "darwin", true},
		{"darwin prefix trap", "/Users/A/Data2", "/users/a/data", "darwin", false},
		{"windows folds case", `c:\users\X\proj`, `C:\Users\x`, "windows", true},
		{"windows slashes", `C:/Users/x/proj`, `c:\USERS\X\`, "windows", true},
		{"windows prefix trap", `C:\Users\x2`, `C:\Users\x`, "windows", false},
		{"windows other drive", `D:\Users\x`, `C:\Users\x`, "windows", false},
		{"windows drive root", `C:\anything`, `C:\`, "windows", true},
		{"windows dotdot out", `C:\Users\x\..\y`, `C:\Users\x`, "windows", false},
		{"windows unc", `\\server\share\dir\x`, `\\SERVER\share\dir`, "windows", true},
		{"windows unc other share", `\\server\share2\dir`, `\\server\share`, "windows", false},
		{"windows long path prefix", `\\?\C:\Users\x\p`, `C:\Users\x`, "windows", true},
		{"windows long unc prefix", `\\?\UNC\srv\sh\p`, `\\srv\sh`, "windows", true},
		{"backslashes are not separators on linux", `c:\users\x\p`, `C:\Users\x`, "linux", false},
		{"empty path", "", "/x", "linux", false},
		{"empty dir holds nothing", "/x", "", "linux", false},
		{"both empty", "", "", "linux", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inside(tt.path, tt.dir, tt.goos); got != tt.want {
				t.Errorf("Inside(%q, %q, %s) = %v, want %v", tt.path, tt.dir, tt.goos, got, tt.want)
			}
		})
	}
}

func TestInsideSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	mkdirs(t, filepath.Join(data, "observer-sessions"), filepath.Join(tmp, "data2"), filepath.Join(tmp, "elsewhere"))
	symlink(t, data, filepath.Join(tmp, "link"))
	symlink(t, filepath.Join(tmp, "data2"), filepath.Join(tmp, "link2"))
	symlink(t, filepath.Join(tmp, "elsewhere"), filepath.Join(data, "out"))

	tests := []struct {
		name, path, dir, goos string
		want                  bool
	}{
		{"through a link into the dir", filepath.Join(tmp, "link", "observer-sessions"), data, "linux", true},
		{"not yet existing below a link", filepath.Join(tmp, "link", "observer-sessions", "new", "deeper"), data, "linux", true},
		{"dir given through a link", filepath.Join(data, "observer-sessions"), filepath.Join(tmp, "link"), "linux", true},
		{"link to the prefix-trap sibling", filepath.Join(tmp, "link2", "x"), data, "linux", false},
		{"link out of the dir leads out", filepath.Join(data, "out", "x"), data, "linux", false},
		{"darwin rules on real links", filepath.Join(tmp, "link", "observer-sessions"), data, "darwin", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inside(tt.path, tt.dir, tt.goos); got != tt.want {
				t.Errorf("Inside(%q, %q, %s) = %v, want %v", tt.path, tt.dir, tt.goos, got, tt.want)
			}
		})
	}
}

func TestCanonicalKeyRootBase(t *testing.T) {
	tests := []struct {
		p, goos, canonical, key, base string
		root                          bool
	}{
		{"//a/./b/../c/", "linux", "/a/c", "/a/c", "c", false},
		{"/", "linux", "/", "/", "", true},
		{"/Users/A/Proj", "darwin", "/Users/A/Proj", "/users/a/proj", "Proj", false},
		{"rel/dir", "linux", "rel/dir", "rel/dir", "dir", false},
		{`c:/Users/A/../B/`, "windows", `c:\Users\B`, `c:\users\b`, "B", false},
		{`C:\`, "windows", `C:\`, `c:\`, "", true},
		{`C:`, "windows", `C:\`, `c:\`, "", true},
		{`C:\..\..`, "windows", `C:\`, `c:\`, "", true},
		{`\\Server\Share`, "windows", `\\Server\Share\`, `\\server\share\`, "", true},
		{`\\server\share\`, "windows", `\\server\share\`, `\\server\share\`, "", true},
		{`\\server\share\a\..\..`, "windows", `\\server\share\`, `\\server\share\`, "", true},
		{`\\server\share\Proj`, "windows", `\\server\share\Proj`, `\\server\share\proj`, "Proj", false},
		{`\\?\UNC\srv\sh\x`, "windows", `\\srv\sh\x`, `\\srv\sh\x`, "x", false},
		{`\\?\D:\x\y`, "windows", `D:\x\y`, `d:\x\y`, "y", false},
		{`\`, "windows", `\`, `\`, "", true},
		{`C:\Users`, "linux", `C:\Users`, `C:\Users`, `C:\Users`, false},
		{"", "linux", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.goos+" "+tt.p, func(t *testing.T) {
			if runtime.GOOS != "windows" || tt.goos == "windows" {
				if got := Canonical(tt.p, tt.goos); got != tt.canonical {
					t.Errorf("Canonical = %q, want %q", got, tt.canonical)
				}
			}
			if got := Key(tt.p, tt.goos); got != tt.key {
				t.Errorf("Key = %q, want %q", got, tt.key)
			}
			if got := IsRoot(tt.p, tt.goos); got != tt.root {
				t.Errorf("IsRoot = %v, want %v", got, tt.root)
			}
			if got := Base(tt.p, tt.goos); got != tt.base {
				t.Errorf("Base = %q, want %q", got, tt.base)
			}
		})
	}
}

func TestOnHost(t *testing.T) {
	other := "windows"
	if runtime.GOOS == "windows" {
		other = "linux"
	}
	if !OnHost(runtime.GOOS) {
		t.Errorf("OnHost(%s) = false on its own host", runtime.GOOS)
	}
	if OnHost(other) {
		t.Errorf("OnHost(%s) = true on %s", other, runtime.GOOS)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
