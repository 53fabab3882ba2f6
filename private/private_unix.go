//go:build unix

package private

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// NoFollow makes an open fail on a symlink: a planted link never receives a record.
const NoFollow = unix.O_NOFOLLOW

const groupWritable = true

func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

func euid() int { return os.Geteuid() }

func group(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Gid), true
}

func egid() int { return os.Getegid() }
