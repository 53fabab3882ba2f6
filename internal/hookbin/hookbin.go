// Package hookbin builds the hook binary, the one way: make build, make dist's binaries,
// the black-box suites (tests/, tests/e2e) and the recall bench all build it here, with the
// same flags (static, reproducible: no paths, no build id, no VCS stamp). With a coverage
// dir it is a `go build -cover` binary whose every run, detached observers included,
// writes its counters there, so black-box coverage adds to the unit tests' (make cover).
package hookbin

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Package is the hook's main package, relative to the module root.
const Package = "./cmd/hook"

// coverDirVar is the variable a cover build sets to its coverage dir (cmd/hook's coverdir).
const coverDirVar = "github.com/claude-mem/claude-mem-go/cmd/hook/internal/coverdir.dir"

// Options say what to build.
type Options struct {
	Root         string   // the module root, where go build runs
	Out          string   // the binary's path
	Version      string   // `hook version`'s; "" is dev
	GOOS, GOARCH string   // "": the host's
	CoverDir     string   // non-empty: a -cover build whose runs write coverage here
	Env          []string // the environment go build runs in (os.Environ(): PATH, the caches)
}

// ForTests is what a test suite builds: coverage into $GOCOVERDIR when environ sets it.
func ForTests(root, out string, environ []string) Options {
	o := Options{Root: root, Out: out, Env: environ}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GOCOVERDIR="); ok {
			o.CoverDir = v
		}
	}
	return o
}

// Args are go's arguments for o.
func Args(o Options) []string {
	version := o.Version
	if version == "" {
		version = "dev"
	}
	ldflags := "-s -w -buildid= -X main.version=" + version
	args := []string{"build", "-trimpath", "-buildvcs=false"}
	if o.CoverDir != "" {
		args = append(args, "-cover")
		ldflags += " -X " + coverDirVar + "=" + o.CoverDir
	}
	return append(args, "-ldflags", ldflags, "-o", o.Out, Package)
}

// Environ is go build's environment for o: o.Env with cgo off (a static binary) and the
// target platform.
func Environ(o Options) []string {
	env := append(append([]string{}, o.Env...), "CGO_ENABLED=0")
	if o.GOOS != "" {
		env = append(env, "GOOS="+o.GOOS)
	}
	if o.GOARCH != "" {
		env = append(env, "GOARCH="+o.GOARCH)
	}
	return env
}

// Build builds the hook as o says; a failure carries go's output.
func Build(ctx context.Context, o Options) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	var out strings.Builder
	cmd := &exec.Cmd{Path: gobin, Args: append([]string{"go"}, Args(o)...), Dir: o.Root, Env: Environ(o), Stdout: &out, Stderr: &out}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(Args(o), " "), err, out.String())
	}
	return nil
}
