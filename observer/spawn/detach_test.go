//go:build linux

package spawn

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

const (
	detachParentVar = "OBSERVER_TEST_DETACH_PARENT" // a hook: starts the child detached, then waits to be killed
	detachChildVar  = "OBSERVER_TEST_DETACH_CHILD"  // `hook observe`: reports itself, waits for release
)

type childInfo struct {
	Pid, Sid   int
	Cwd        string
	NullStdio  bool
	ParentArgs []string
}

func init() {
	helperModes[detachParentVar] = detachParent
	helperModes[detachChildVar] = detachChild
}

func detachParent() int {
	dir := os.Getenv(detachParentVar)
	exe, _ := os.Executable()
	env := []string{detachChildVar + "=" + dir} // and nothing else: the child must not think it is the parent
	if err := StartDetached(exe, []string{"observe", "--session", "s1"}, env, dir); err != nil {
		os.WriteFile(filepath.Join(dir, "error"), []byte(err.Error()), 0o600)
		return 1
	}
	time.Sleep(time.Hour) // until the test SIGTERMs this process group, as Claude Code does
	return 0
}

func detachChild() int {
	dir := os.Getenv(detachChildVar)
	sid, _ := unix.Getsid(0)
	cwd, _ := os.Getwd()
	null, _ := os.Stat(os.DevNull)
	nullStdio := true
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		fi, err := f.Stat()
		nullStdio = nullStdio && err == nil && os.SameFile(fi, null)
	}
	b, _ := json.Marshal(childInfo{Pid: os.Getpid(), Sid: sid, Cwd: cwd, NullStdio: nullStdio, ParentArgs: os.Args[1:]})
	if err := os.WriteFile(filepath.Join(dir, "child.json.tmp"), b, 0o600); err != nil {
		return 1
	}
	os.Rename(filepath.Join(dir, "child.json.tmp"), filepath.Join(dir, "child.json"))
	if !testkit.Within(30*time.Second, func() bool { return testkit.Exists(filepath.Join(dir, "release")) }) {
		return 1
	}
	os.WriteFile(filepath.Join(dir, "alive"), nil, 0o600)
	return 0
}

func TestStartDetachedSurvivesTheHookGroup(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hook := exec.Command(testBinary(t))
	hook.Env = append(os.Environ(), detachParentVar+"="+dir)
	hook.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the hook's own group, like Claude Code's hook
	if err := hook.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-hook.Process.Pid, syscall.SIGKILL) })

	if !testkit.Within(30*time.Second, func() bool { return testkit.Exists(filepath.Join(dir, "child.json")) }) {
		e, _ := os.ReadFile(filepath.Join(dir, "error"))
		t.Fatalf("child.json did not appear within 30 s: %s", e)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "child.json"))
	var c childInfo
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(filepath.Join(dir, "release"), nil, 0o600) })
	hookSid, _ := unix.Getsid(hook.Process.Pid)
	if c.Sid != c.Pid || c.Sid == hookSid {
		t.Errorf("child sid %d, pid %d, hook's sid %d: not a new session", c.Sid, c.Pid, hookSid)
	}
	if !c.NullStdio || c.Cwd != dir || len(c.ParentArgs) != 3 || c.ParentArgs[0] != "observe" {
		t.Errorf("child %+v", c)
	}

	// Claude Code ends a hook by signalling its group: the detached child must not notice.
	if err := syscall.Kill(-hook.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var exitErr *exec.ExitError
	if err := hook.Wait(); !errors.As(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("the hook was not ended by SIGTERM: %v", err)
	}
	if gone(c.Pid) {
		t.Fatal("the detached child died with the hook's group")
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the detached child to carry on after the SIGTERM (its alive file)", func() bool {
		return testkit.Exists(filepath.Join(dir, "alive"))
	})
}
