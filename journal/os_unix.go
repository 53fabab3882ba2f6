//go:build unix

package journal

import "golang.org/x/sys/unix"

// FreeBytes is the space an unprivileged user may still write on dir's filesystem.
func FreeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
