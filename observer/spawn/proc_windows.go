//go:build windows

package spawn

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// ownGroup starts the child in a new process group (it can be sent CTRL_BREAK alone) and
// without a window of its own.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// procGroup is a started child and, through a job object, what it starts: windows has no
// signal for a process group, only a job can be terminated as a whole.
type procGroup struct {
	proc *os.Process
	job  windows.Handle // 0 when the child could not be put into a job
}

func newProcGroup(cmd *exec.Cmd) *procGroup {
	g := &procGroup{proc: cmd.Process}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return g
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		if windows.AssignProcessToJobObject(job, h) == nil {
			g.job = job
		}
		windows.CloseHandle(h)
	}
	if g.job == 0 {
		windows.CloseHandle(job)
	}
	return g
}

// terminate sends CTRL_BREAK to the child's group; it shares our (hidden) console.
func (g *procGroup) terminate() {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.proc.Pid))
}

func (g *procGroup) kill() {
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
	_ = g.proc.Kill()
}

func (g *procGroup) close() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
	}
}

const detachFlags = windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW

// startDetached starts the command in its own process group with a hidden console (its own
// children inherit that console instead of opening windows), breaking away from the hook's
// job object when the job allows it, so that closing the job does not end the observer.
func startDetached(mk func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := mk()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachFlags | windows.CREATE_BREAKAWAY_FROM_JOB, HideWindow: true}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// The job forbids breakaway: start inside it rather than not at all.
		cmd = mk()
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachFlags, HideWindow: true}
		err = cmd.Start()
	}
	return cmd, err
}

// inherit does nothing on windows: a handle is not passed as an extra fd, so a killed
// `hook observe` frees its slot at once.
func inherit(cmd *exec.Cmd, files []*os.File) {}

// KillGroup is not used on windows (StartTime never succeeds there).
func (OSProcs) KillGroup(pgid int) error { return errors.New("no process groups on windows") }
