// Package lockfile takes advisory file locks that the OS releases when the process dies.
package lockfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
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
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err)
	}
	// os.OpenFile opens close-on-exec, so a child we spawn never inherits the lock.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err)
	}
	ok, err = tryLockFile(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lockfile: lock %s: %w", path, err)
		}
		return nil, false, nil
	}
	var once sync.Once
	var rerr error
	release = func() error {
		// Idempotent so that a deferred release after an explicit one is harmless.
		once.Do(func() {
			uerr := unlockFile(f)
			cerr := f.Close()
			if uerr != nil {
				rerr = fmt.Errorf("lockfile: unlock %s: %w", path, uerr)
			} else if cerr != nil {
				rerr = fmt.Errorf("lockfile: %w", cerr)
			}
		})
		return rerr
	}
	return release, true, nil
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
func TrySlot(dir string, n int) (release func() error, slot int, ok bool, err error) {
	for i := range max(n, 0) {
		release, ok, err := TryLock(slotPath(dir, i))
		if err != nil {
			return nil, 0, false, err
		}
		if ok {
			return release, i, true, nil
		}
	}
	return nil, 0, false, nil
}

func slotPath(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("slot-%d", i))
}
