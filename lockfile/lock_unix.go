//go:build unix && !aix

package lockfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock(2) locks belong to the open file description, so two opens in one process exclude
// each other just as two processes do, and the kernel drops the lock when the last
// descriptor closes, including at process death.
func tryLockFile(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		default:
			return false, err
		}
	}
}

func unlockFile(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_UN)
}
