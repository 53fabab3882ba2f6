package spawn

import (
	"os"
	"os/exec"
)

// StartDetached starts path with args (the arguments after argv[0]) in env and dir, detached
// from the caller: a new session on unix, its own process group on windows, stdin, stdout
// and stderr on the null device. It does not wait: Stop and SessionEnd use it to start
// `hook observe` and return at once, and the observer outlives the hook.
func StartDetached(path string, args []string, env []string, dir string) error {
	proc, err := StartDetachedProcess(path, args, env, dir)
	if err != nil {
		return err
	}
	return proc.Release()
}

// StartDetachedProcess is StartDetached for a caller that may wait for the run to end
// (doctor --retry reports the state after it): the process is detached the same way, and
// still outlives a caller that stops waiting.
func StartDetachedProcess(path string, args []string, env []string, dir string) (*os.Process, error) {
	cmd, err := startDetached(func() *exec.Cmd {
		// Nil Stdin/Stdout/Stderr are the null device; a non-nil empty Env is an empty
		// environment, never the caller's.
		return &exec.Cmd{Path: path, Args: append([]string{path}, args...), Env: append([]string{}, env...), Dir: dir}
	})
	if err != nil {
		return nil, err
	}
	return cmd.Process, nil
}
