package spawn

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// StartTime is the kernel's p_starttime of pid.
func (OSProcs) StartTime(pid int) (string, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.ESRCH) {
		return "", fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	} else if err != nil {
		return "", err
	}
	if k.Proc.P_pid != int32(pid) {
		return "", fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	}
	t := k.Proc.P_starttime
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec), nil
}
