// Package tests drives the built bin/hook as a black box: testscript scripts for hook mode
// and the commands, and the plan's spawn-spec matrix with a fake claude.
package tests

import (
	"fmt"
	fixturedir "github.com/claude-mem/claude-mem-go/internal/fixtures"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// binDir holds the freshly built hook (and fake claude) for this test run.
var binDir string

// hookBin is the built bin/hook under test.
var hookBin string

// repoRoot and fixtures are found relative to this package.
var repoRoot, fixtures string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	wd, _ := os.Getwd()
	repoRoot = filepath.Dir(wd)
	var err error
	if fixtures, err = fixturedir.Dir(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "claude-mem-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	hookBin = filepath.Join(dir, "hook")
	if runtime.GOOS == "windows" {
		hookBin += ".exe"
	}
	if err := goBuild(hookBin, "./cmd/hook"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// goBuild builds a static binary the way `make build` does.
func goBuild(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
