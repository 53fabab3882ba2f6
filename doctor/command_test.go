//go:build unix

package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommand: claude-mem when the first claude-mem on PATH (~ expanded as shells do) is
// this very binary, whether it is a link or a hard link; the executable's quoted path
// when there is none, when the first one is another build, or when the one pointing here
// comes after it. A relative or empty PATH entry is never trusted.
func TestCommand(t *testing.T) {
	home := t.TempDir()
	plugin := filepath.Join(home, "my plugin") // a space: the path is quoted
	exe := filepath.Join(plugin, "bin", "hook")
	other := filepath.Join(home, "old", "hook")
	for _, f := range []string{exe, other} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(home, ".local", "bin")
	elsewhere := filepath.Join(home, "elsewhere")
	link := func(dir, to string) {
		t.Helper()
		os.MkdirAll(dir, 0o755)
		os.Remove(filepath.Join(dir, Name))
		if err := os.Symlink(to, filepath.Join(dir, Name)); err != nil {
			t.Fatal(err)
		}
	}
	quoted := "'" + exe + "'"
	link(local, exe)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"the link on PATH", "/usr/bin:" + local, Name},
		{"the link, PATH spelled with ~", "/usr/bin:~/.local/bin", Name},
		{"the link not on PATH", "/usr/bin:/bin", quoted},
		{"an empty PATH", "", quoted},
		{"a relative entry", ".local/bin", quoted},
	} {
		if got := Command(tc.path, home, exe); got != tc.want {
			t.Errorf("%s (PATH=%q): %q, want %q", tc.name, tc.path, got, tc.want)
		}
	}
	if got := Command(local, "", exe); got != Name {
		t.Errorf("no home: %q", got)
	}
	// Another build's claude-mem first on PATH: typing claude-mem runs that one.
	link(elsewhere, other)
	if got := Command(elsewhere+":"+local, home, exe); got != quoted {
		t.Errorf("another build first: %q, want %q", got, quoted)
	}
	if got := Command(elsewhere+":"+local, home, other); got != Name {
		t.Errorf("the other build, first on PATH: %q, want %s", got, Name)
	}
	// A hard link is the same file too; a file that cannot run is passed over.
	os.Remove(filepath.Join(elsewhere, Name))
	if err := os.Link(exe, filepath.Join(elsewhere, Name)); err != nil {
		t.Fatal(err)
	}
	if got := Command(elsewhere, home, exe); got != Name {
		t.Errorf("a hard link: %q", got)
	}
	os.Remove(filepath.Join(elsewhere, Name))
	os.WriteFile(filepath.Join(elsewhere, Name), []byte("not a program"), 0o644)
	if got := Command(elsewhere+":"+local, home, exe); got != Name {
		t.Errorf("past a file that cannot run: %q", got)
	}
	if got := Command(local, home, filepath.Join(home, "gone")); !strings.HasSuffix(got, "/gone") {
		t.Errorf("an executable that is gone: %q", got)
	}
	if got := Command(local, home, ""); got != Name {
		t.Errorf("no executable: %q", got)
	}
}
