package hookbin

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One set of flags: a test suite's build differs from make build's only in the version,
// and a coverage build only in -cover and its baked dir.
func TestArgs(t *testing.T) {
	plain := Args(ForTests("/r", "/o/hook", []string{"PATH=/bin"}))
	want := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid= -X main.version=dev", "-o", "/o/hook", "./cmd/hook"}
	if !slices.Equal(plain, want) {
		t.Errorf("a suite's build: %q, want %q", plain, want)
	}
	if got := Args(Options{Out: "/o/hook", Version: "1.2.3"}); !slices.Equal(got, append(append([]string{}, want[:4]...),
		"-s -w -buildid= -X main.version=1.2.3", "-o", "/o/hook", "./cmd/hook")) {
		t.Errorf("make build's: %q", got)
	}
	cover := Args(ForTests("/r", "/o/hook", []string{"PATH=/bin", "GOCOVERDIR=/c"}))
	if !slices.Contains(cover, "-cover") || !slices.Contains(cover, "-s -w -buildid= -X main.version=dev -X "+coverDirVar+"=/c") {
		t.Errorf("with GOCOVERDIR: %q, want -cover and the dir baked in", cover)
	}
	env := Environ(Options{Env: []string{"PATH=/bin"}, GOOS: "windows", GOARCH: "arm64"})
	if !slices.Equal(env, []string{"PATH=/bin", "CGO_ENABLED=0", "GOOS=windows", "GOARCH=arm64"}) {
		t.Errorf("environment: %q", env)
	}
}

// A coverage build run with an environment of its own (no GOCOVERDIR, as the suites run
// it) writes its coverage into the baked dir and says nothing about it; the control: the
// run's own GOCOVERDIR, when it has one, wins.
func TestCoverageBuildWritesWithoutGOCOVERDIR(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir, own := t.TempDir(), t.TempDir()
	bin := filepath.Join(t.TempDir(), "hook")
	if err := Build(context.Background(), ForTests(root, bin, append(os.Environ(), "GOCOVERDIR="+dir))); err != nil {
		t.Fatal(err)
	}
	run := func(env []string) string {
		var out, errb bytes.Buffer
		cmd := &exec.Cmd{Path: bin, Args: []string{bin, "version"}, Dir: t.TempDir(), Env: env, Stdout: &out, Stderr: &errb}
		if err := cmd.Run(); err != nil || out.String() != "claude-mem dev\n" {
			t.Fatalf("hook version: %v, stdout %q, stderr %q", err, out.String(), errb.String())
		}
		return errb.String()
	}
	files := func(d string) int {
		m, _ := filepath.Glob(filepath.Join(d, "cov*"))
		return len(m)
	}
	if errs := run([]string{"HOME=" + t.TempDir()}); errs != "" || files(dir) < 2 {
		t.Errorf("stderr %q, %d files in the baked dir; want nothing said, the meta and counter files", errs, files(dir))
	}
	before := files(dir)
	if errs := run([]string{"GOCOVERDIR=" + own}); errs != "" || files(own) < 2 || files(dir) != before {
		t.Errorf("control: stderr %q, %d files in the run's own dir, baked dir %d → %d", errs, files(own), before, files(dir))
	}
	if strings.Contains(strings.Join(Args(Options{Out: bin}), " "), "-cover") {
		t.Error("control: a build without a coverage dir is a coverage build")
	}
}
