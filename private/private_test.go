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
