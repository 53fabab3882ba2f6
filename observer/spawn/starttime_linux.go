package spawn

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// StartTime is field 22 of /proc/<pid>/stat: clock ticks since boot. A zombie counts as gone.
func (OSProcs) StartTime(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	} else if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces and parentheses: fields count from its end.
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	if s := string(f[0]); s == "Z" || s == "X" {
		return "", fmt.Errorf("process %d has exited: %w", pid, ErrNoProcess)
	}
	return string(f[19]), nil
}
