//go:build !linux && !darwin

package spawn

import "errors"

// StartTime cannot tell a process's identity here, so ReapOrphans never kills: an orphaned
// child keeps its slot until it exits by itself.
func (OSProcs) StartTime(pid int) (string, error) {
	return "", errors.New("process start times are not read on this platform")
}
