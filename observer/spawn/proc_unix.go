//go:build unix

package spawn

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the child as the leader of a new process group, so a timeout can stop it
// and everything it started with one signal.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// procGroup is a started child's process group.
type procGroup struct{ pgid int }

func newProcGroup(cmd *exec.Cmd) *procGroup { return &procGroup{pgid: cmd.Process.Pid} }

// terminate asks the whole group to stop. An error means the group is already gone.
func (g *procGroup) terminate() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }

// kill stops whatever is left of the group.
func (g *procGroup) kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

func (g *procGroup) close() {}

// startDetached starts the command in a new session: no controlling terminal, and outside
// the process group that Claude Code signals when it ends a hook.
func startDetached(mk func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := mk()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}

// inherit hands files to the child as fds 3, 4, …: they stay open (and locked) as long as it
// lives.
func inherit(cmd *exec.Cmd, files []*os.File) { cmd.ExtraFiles = files }

// KillGroup sends SIGKILL to the process group pgid.
func (OSProcs) KillGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }
