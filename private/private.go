// Package private decides whether a dir or file is the user's alone: owned by them, not
// writable by group or others, not a symlink (as ssh refuses a key file others can write).
// The data dir and everything read from it (settings.json, .env, the database, the log,
// health.json, locks, run dirs) and the fallback journal dirs (a shared temp dir is writable
// by every local user) are used only when they are, so another user can neither plant a
// setting, a record or a program, nor redirect a write.
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
	Fix     string // what the user runs to make it theirs alone: "chmod 700 /d", "rm /d/f", …
}

func (e *Error) Error() string { return e.Path + " refused: " + e.Problem }

// refused is the Error for path, with the fix for its problem: a dir or file of the
// user's is chmod'ed; anything else (another user's, a symlink, a device) is not the
// user's to keep, and is removed.
func refused(path, problem string, dir, ours bool) *Error {
	fix := "rm " + path
	switch {
	case dir && ours:
		fix = "chmod 700 " + path
	case dir:
		fix = "move " + path + " away (it is not yours), or set CLAUDE_MEM_DATA_DIR to a dir of your own"
	case ours:
		fix = "chmod 600 " + path
	}
	return &Error{Path: path, Problem: problem, Fix: fix}
}

// Check reports whether fi (an Lstat or an fstat of path) is the user's alone.
func Check(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return refused(path, "a symlink", false, false)
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return refused(path, "not a regular file", false, false)
	}
	if uid, ok := owner(fi); ok && uid != euid() {
		return refused(path, fmt.Sprintf("owned by uid %d, not by you (uid %d)", uid, euid()), fi.IsDir(), false)
	}
	if groupWritable && fi.Mode().Perm()&0o022 != 0 {
		return refused(path, fmt.Sprintf("writable by group or others (mode %04o)", fi.Mode().Perm()), fi.IsDir(), true)
	}
	return nil
}

// Root checks dir, an existing dir whose files the user reads and runs (the data dir):
// dir itself as Check (a symlink is refused, not followed), and each dir above it as
// ssh's StrictModes does, so no other user can swap dir or an entry of it for their own
// between a check and an open. Above dir, symlinks are resolved first (a home under
// /home -> /usr/home is fine: the dirs checked are the real ones), and each real dir must
// be owned by root or the user and not writable by others, unless sticky (/tmp: others
// cannot rename or remove what is the user's there), nor by a group other than the user's
// own primary group (with user private groups and umask 002, ~/.local/share is 0775).
func Root(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if err := Check(dir, fi); err != nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			err.(*Error).Fix = "set CLAUDE_MEM_DATA_DIR to the dir it points to, if that is yours (a data dir is never read through a symlink)"
		}
		return err
	}
	if !groupWritable {
		return nil // Windows: the ACLs of the profile dirs, not modes, keep others out
	}
	up, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return err
	}
	for {
		fi, err := os.Lstat(up)
		if err != nil {
			return err
		}
		uid, _ := owner(fi)
		if uid != 0 && uid != euid() {
			return &Error{Path: dir, Problem: fmt.Sprintf("%s above it is owned by uid %d, who can replace it", up, uid),
				Fix: "set CLAUDE_MEM_DATA_DIR to a dir under one of your own"}
		}
		gid, _ := group(fi)
		ownGroup := uid == euid() && gid == egid()
		if perm := fi.Mode().Perm(); fi.Mode()&fs.ModeSticky == 0 && (perm&0o002 != 0 || perm&0o020 != 0 && !ownGroup) {
			return &Error{Path: dir, Problem: fmt.Sprintf("%s above it is writable by group or others (mode %04o), who can replace it", up, perm),
				Fix: fmt.Sprintf("chmod go-w %s (or chmod +t), or set CLAUDE_MEM_DATA_DIR to a dir under one of your own", up)}
		}
		next := filepath.Dir(up)
		if next == up {
			return nil
		}
		up = next
	}
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
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, Check(path, fi) // ELOOP: said as what it is
		}
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
