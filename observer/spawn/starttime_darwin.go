package spawn

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// StartTime is the kernel's p_starttime of pid.
func (OSProcs) StartTime(pid int) (string, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", err
	}
	if k.Proc.P_pid != int32(pid) {
		return "", fmt.Errorf("no process %d", pid)
	}
	t := k.Proc.P_starttime
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec), nil
}
