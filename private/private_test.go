//go:build unix

package private_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-mem/claude-mem-go/private"
)

func TestRefusals(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := private.MkdirAll(base, dir); err != nil {
		t.Fatalf("MkdirAll: %v", err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("made %v; want 0700", fi.Mode().Perm())
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := private.ReadFile(file); err != nil {
		t.Errorf("control: the user's own file refused: %v", err)
	}
	os.Chmod(file, 0o620)
	var pe *private.Error
	if _, err := private.ReadFile(file); !errors.As(err, &pe) {
		t.Errorf("a group-writable file read: %v", err)
	}
	link := filepath.Join(dir, "l")
	os.Symlink(filepath.Join(dir, "g"), link)
	if f, err := private.Open(link, os.O_RDWR|os.O_CREATE); err == nil {
		f.Close()
		t.Errorf("a symlink opened")
	}
	if _, err := os.Stat(filepath.Join(dir, "g")); err == nil {
		t.Errorf("the open through a symlink created its target")
	}
	os.Chmod(filepath.Join(base, "a"), 0o777)
	if err := private.Dirs(base, dir); !errors.As(err, &pe) {
		t.Errorf("a world-writable dir above accepted: %v", err)
	}
	if err := private.MkdirAll(base, dir); !errors.As(err, &pe) {
		t.Errorf("MkdirAll accepted a world-writable dir: %v", err)
	}
}

// TestRoot: the data dir's rule. The dir itself as Check (never through a symlink); each
// real dir above it owned by root or the user, not writable by others unless sticky.
func TestRoot(t *testing.T) {
	base := t.TempDir()
	parent := filepath.Join(base, "p")
	dir := filepath.Join(parent, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Symlink(parent, filepath.Join(base, "via"))
	os.Symlink(dir, filepath.Join(base, "datalink"))
	var pe *private.Error
	for _, tc := range []struct {
		name    string
		parent  os.FileMode
		path    string
		refused bool
	}{
		{"control", 0o755, dir, false},
		{"control: sticky parent", os.ModeSticky | 0o777, dir, false},
		{"control: through a symlinked parent", 0o755, filepath.Join(base, "via", "data"), false},
		{"control: parent writable by the user's own group (user private groups, umask 002)", 0o775, dir, false},
		{"world-writable parent", 0o777, dir, true},
		{"world-writable parent through a symlink", 0o757, filepath.Join(base, "via", "data"), true},
		{"the data dir a symlink", 0o755, filepath.Join(base, "datalink"), true},
	} {
		os.Chmod(parent, tc.parent)
		err := private.Root(tc.path)
		if errors.As(err, &pe) != tc.refused {
			t.Errorf("%s: %v; want refused %v", tc.name, err, tc.refused)
		} else if tc.refused {
			t.Logf("%s: %v (fix: %s)", tc.name, err, pe.Fix)
		}
	}
	os.Chmod(parent, 0o755)
	if os.Geteuid() == 0 { // a dir above owned by another uid, who can swap the data dir
		os.Chown(parent, 65534, 65534)
		if err := private.Root(dir); !errors.As(err, &pe) {
			t.Errorf("a parent of another uid's: %v", err)
		}
		os.Chown(parent, 0, 0)
		os.Chmod(parent, 0o775) // writable by a group that is not the user's own
		os.Chown(parent, 0, 65534)
		if err := private.Root(dir); !errors.As(err, &pe) {
			t.Errorf("a parent writable by another group: %v", err)
		}
		os.Chown(parent, 0, 0)
		os.Chmod(parent, 0o755)
	}
	os.Chmod(dir, 0o777)
	if err := private.Root(dir); !errors.As(err, &pe) || pe.Fix != "chmod 700 "+dir {
		t.Errorf("a world-writable data dir: %v", err)
	}
}

// TestOpenSymlinkSaid: O_NOFOLLOW's ELOOP is said as the refusal it is.
func TestOpenSymlinkSaid(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t")
	os.WriteFile(target, []byte("x"), 0o600)
	os.Symlink(target, filepath.Join(dir, "l"))
	var pe *private.Error
	if _, err := private.ReadFile(filepath.Join(dir, "l")); !errors.As(err, &pe) || pe.Problem != "a symlink" {
		t.Errorf("got %v; want a *private.Error", err)
	}
	if _, err := private.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
