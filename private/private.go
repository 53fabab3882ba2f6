// Package private decides whether a dir or file is the user's alone: owned by them, not
// writable by group or others, not a symlink. The fallback journal dirs (a shared temp dir
// is writable by every local user), run dirs, locks and health.json are used only when they
// are, so another user can neither plant a record nor redirect one.
package private

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Error is a path refused because it is not the user's alone.
type Error struct {
	Path    string
	Problem string // "owned by uid 65534", "writable by group or others (mode 0777)", "a symlink", …
}

func (e *Error) Error() string { return e.Path + " refused: " + e.Problem }

// Check reports whether fi (an Lstat or an fstat of path) is the user's alone.
func Check(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &Error{path, "a symlink"}
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return &Error{path, "not a regular file"}
	}
	if uid, ok := owner(fi); ok && uid != euid() {
		return &Error{path, fmt.Sprintf("owned by uid %d, not by you (uid %d)", uid, euid())}
	}
	if groupWritable && fi.Mode().Perm()&0o022 != 0 {
		return &Error{path, fmt.Sprintf("writable by group or others (mode %04o)", fi.Mode().Perm())}
	}
	return nil
}

// Lstat checks path itself (a symlink is refused, not followed).
func Lstat(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return Check(path, fi)
}

// File checks an open file (an fstat: what was opened, whatever the path names now).
func File(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return Check(f.Name(), fi)
}

// Open opens path (flag: os.O_RDONLY, os.O_RDWR, …, with O_CREATE a new file is 0600)
// without following a symlink, and only when the file opened is the user's alone.
func Open(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|NoFollow, 0o600)
	if err != nil {
		return nil, err
	}
	if err := File(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile is os.ReadFile of a file Open accepts: nothing is read from a file another
// user could have written.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// MkdirAll makes dir and each missing dir between base and it with mode 0700, and checks
// every one of them below base, those that were there already included: base is a shared
// place (the temp dir) whose own mode is not ours to judge.
func MkdirAll(base, dir string) error { return walk(base, dir, true) }

// Dirs checks dir and each dir between base and it, creating nothing: what a reader asks
// before it trusts what a dir holds. A missing dir is fs.ErrNotExist.
func Dirs(base, dir string) error { return walk(base, dir, false) }

func walk(base, dir string, create bool) error {
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("private: %s is not below %s", dir, base)
	}
	if create {
		if err := os.MkdirAll(base, 0o700); err != nil { // a fresh home has no ~/.cache yet
			return err
		}
	}
	p := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if create {
			if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
		if err := Lstat(p); err != nil {
			return err
		}
	}
	return nil
}
