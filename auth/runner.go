package auth

import (
	"context"
	"os/exec"
	"time"
)

// Runner runs one program with an argv and an environment, never through a shell, and
// returns its stdout. Tests hand Resolve and ParentChain a fake one.
type Runner interface {
	Output(ctx context.Context, path string, args []string, env []string) ([]byte, error)
}

// ExecRunner is the real Runner.
type ExecRunner struct {
	// Dir is the child's working directory; empty means "/", which always exists and is
	// nobody's project.
	Dir string
}

// Output runs path with args and exactly env (nil or empty: an empty environment, never
// this process's), stdin from the null device. A non-zero exit is an *exec.ExitError
// carrying the exit code and stderr.
func (r ExecRunner) Output(ctx context.Context, path string, args []string, env []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path)
	cmd.Args = append([]string{path}, args...)
	cmd.Env = append([]string{}, env...) // non-nil: a nil Env would inherit ours
	cmd.Dir = r.Dir
	if cmd.Dir == "" {
		cmd.Dir = "/"
	}
	cmd.Stdin = nil
	// A grandchild holding stdout open must not keep us past the kill.
	cmd.WaitDelay = time.Second
	return cmd.Output()
}
