// Package tests drives the built bin/hook as a black box: testscript scripts for hook mode
// and the commands, and the plan's spawn-spec matrix with a fake claude.
package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	fixturedir "github.com/claude-mem/claude-mem-go/internal/fixtures"
	"github.com/claude-mem/claude-mem-go/internal/hookbin"
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
	// The one build of every suite (hookbin): with GOCOVERDIR set, a coverage build.
	if err := hookbin.Build(context.Background(), hookbin.ForTests(repoRoot, hookBin, os.Environ())); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
