// Package lockfile takes advisory file locks that the OS releases when the process dies.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-mem/claude-mem-go/private"
)

// Polling bounds for Lock: short enough that a freed lock is taken within a blink, long
// enough that a waiter costs nothing on a shared machine. Polling (rather than a blocking
// lock call in a goroutine) keeps Lock cancellable without leaking a thread stuck in the
// kernel.
const (
	minBackoff = 2 * time.Millisecond
	maxBackoff = 100 * time.Millisecond
)

// TryLock takes an exclusive lock on path without waiting, creating the file (0600) and its
// parent directories (0700) when missing. ok is false, with a nil error, when another holder
// (in this or any process) has it. The lock file is never removed: removing it would let a
// later opener lock a fresh inode while an older holder still locks the unlinked one.
func TryLock(path string) (release func() error, ok bool, err error) {
	h, ok, err := TryHold(path)
	if !ok {
		return nil, ok, err
	}
	return h.Release, true, nil
}

// Held is a lock being held. File is the locked file, open for reading and writing: a
// holder may record who it is in it, and a child process given File (exec.Cmd.ExtraFiles)
// shares the lock, which then lasts until the last of them exits or Release is called.
type Held struct {
	File *os.File
	Slot int // TrySlot: which slot
	path string
	once sync.Once
	err  error
}

// TryHold is TryLock returning the held lock itself.
func TryHold(path string) (*Held, bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err)
	}
	if err := private.Lstat(filepath.Dir(path)); err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err) // a planted locks/: its owner could remove a held lock
	}
	// os.OpenFile opens close-on-exec, so a child never inherits the lock unless it is
	// handed File on purpose. A lock file another user planted (or a symlink) is refused:
	// held by them, it would stop every observer run.
	f, err := private.Open(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err)
	}
	ok, err := tryLockFile(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lockfile: lock %s: %w", path, err)
		}
		return nil, false, nil
	}
	return &Held{File: f, path: path}, true, nil
}

// Release unlocks and closes. It is idempotent, so a deferred release after an explicit
// one is harmless. The unlock holds for every process sharing the lock.
func (h *Held) Release() error {
	h.once.Do(func() {
		uerr := unlockFile(h.File)
		cerr := h.File.Close()
		if uerr != nil {
			h.err = fmt.Errorf("lockfile: unlock %s: %w", h.path, uerr)
		} else if cerr != nil {
			h.err = fmt.Errorf("lockfile: %w", cerr)
		}
	})
	return h.err
}

// Busy reports whether someone holds the lock on path, without creating anything: a
// missing file is not busy.
func Busy(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lockfile: %w", err)
	}
	defer f.Close()
	ok, err := tryLockFile(f)
	if err != nil {
		return false, fmt.Errorf("lockfile: lock %s: %w", path, err)
	}
	if ok {
		_ = unlockFile(f)
	}
	return !ok, nil
}

// Lock waits until it holds the lock on path or ctx is done, in which case it returns
// ctx.Err().
func Lock(ctx context.Context, path string) (release func() error, err error) {
	backoff := minBackoff
	for {
		release, ok, err := TryLock(path)
		if err != nil {
			return nil, err
		}
		if ok {
			return release, nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// TrySlot takes the first free one of n slot locks dir/slot-0 … dir/slot-(n-1) without
// waiting. ok is false when all n are held, and always when n <= 0.
func TrySlot(dir string, n int) (held *Held, ok bool, err error) {
	for i := range max(n, 0) {
		h, ok, err := TryHold(slotPath(dir, i))
		if err != nil {
			return nil, false, err
		}
		if ok {
			h.Slot = i
			return h, true, nil
		}
	}
	return nil, false, nil
}

// SlotFiles lists the slot lock files in dir, whatever the current number of slots (a
// lowered setting leaves higher slots that a child may still hold).
func SlotFiles(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "slot-*")) // the pattern is valid
	return m
}

func slotPath(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("slot-%d", i))
}

// LockOpen waits until it holds the exclusive lock of an already open file f, or until
// ctx is done; gone is asked between tries, and a true answer stops the wait with ok false
// (the caller's file was renamed away: the capture journal's appenders then reopen the
// path). Release with UnlockOpen.
func LockOpen(ctx context.Context, f *os.File, gone func() bool) (ok bool, err error) {
	backoff := time.Millisecond / 4
	for {
		ok, err := tryLockFile(f)
		if err != nil || ok {
			return ok, err
		}
		if gone != nil && gone() {
			return false, nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff/4)
	}
}

// TryLockOpen takes the exclusive lock of an open file without waiting.
func TryLockOpen(f *os.File) (bool, error) { return tryLockFile(f) }

// UnlockOpen releases a lock LockOpen or TryLockOpen took.
func UnlockOpen(f *os.File) error { return unlockFile(f) }
