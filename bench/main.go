//go:build unix

// Command bench times bin/hook as whole processes, the way Claude Code runs it, against a
// floor measured in the same run (a static Go binary that reads stdin and prints {}), and
// reports the median and p95 of each case as a ratio to the floor, plus peak memory.
//
//	go run ./bench [-hook bin/hook] [-n 200] [-observations 100000] [-check]
//
// With -check it exits 1 when a ratio or the memory bound is exceeded: PostToolUse within
// 6× the floor, SessionStart over 100,000 observations within 10×, peak RSS under 30 MB.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

func main() { os.Exit(run()) }

type sample struct {
	wall  time.Duration
	rssKB int64
}

type result struct {
	name    string
	samples []sample
}

func (r result) quantile(q float64) time.Duration {
	d := make([]time.Duration, len(r.samples))
	for i, s := range r.samples {
		d[i] = s.wall
	}
	slices.Sort(d)
	return d[int(q*float64(len(d)-1))]
}

func (r result) peakRSS() int64 {
	var m int64
	for _, s := range r.samples {
		m = max(m, s.rssKB)
	}
	return m
}

func run() int {
	hook := flag.String("hook", "bin/hook", "the hook binary to measure")
	n := flag.Int("n", 200, "runs per case")
	nobs := flag.Int("observations", 100000, "observations stored for the SessionStart case")
	fixtures := flag.String("fixtures", "testdata/claude-code-2.1.328", "Claude Code hook fixtures")
	check := flag.Bool("check", false, "exit 1 when a target is missed")
	seedInto := flag.String("seed-into", "", "internal: seed a data dir and exit")
	flag.Parse()
	if *seedInto != "" {
		if err := seed(*seedInto, *nobs); err != nil {
			return fail(err)
		}
		return 0
	}

	work, err := os.MkdirTemp("", "claude-mem-bench-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	floor := filepath.Join(work, "floor")
	build := exec.Command("go", "build", "-trimpath", "-o", floor, "./bench/floor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("building the floor: %v\n%s", err, out))
	}
	hookPath, err := filepath.Abs(*hook)
	if err != nil {
		return fail(err)
	}
	post, err := os.ReadFile(filepath.Join(*fixtures, "PostToolUse-Bash.json"))
	if err != nil {
		return fail(err)
	}
	start, err := os.ReadFile(filepath.Join(*fixtures, "SessionStart-startup.json"))
	if err != nil {
		return fail(err)
	}

	// One data dir for PostToolUse (it grows as the run goes, as a user's does) and one
	// holding nobs observations of the fixture's project for SessionStart.
	postDir, startDir := filepath.Join(work, "post"), filepath.Join(work, "start")
	// Seeding runs in a child process: a child's peak RSS as the kernel reports it includes
	// the parent's at fork time, so the parent must stay small for the numbers to be the hook's.
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	if out, err := exec.Command(self, "-seed-into", startDir, "-observations", fmt.Sprint(*nobs)).CombinedOutput(); err != nil {
		return fail(fmt.Errorf("seeding: %v\n%s", err, out))
	}
	home := filepath.Join(work, "home")
	_ = os.MkdirAll(home, 0o700)
	env := func(data string) []string {
		return []string{"HOME=" + home, "PATH=/usr/bin:/bin", "CLAUDE_MEM_DATA_DIR=" + data}
	}

	cases := []struct {
		name  string
		bin   string
		stdin []byte
		env   []string
	}{
		{"floor", floor, post, env(postDir)},
		{"PostToolUse", hookPath, post, env(postDir)},
		{fmt.Sprintf("SessionStart (%d observations)", *nobs), hookPath, start, env(startDir)},
	}
	results := make([]result, len(cases))
	for i := range cases {
		results[i].name = cases[i].name
	}
	// Interleave the cases so machine noise hits all of them alike.
	for range *n {
		for i, c := range cases {
			s, err := once(c.bin, c.stdin, c.env)
			if err != nil {
				return fail(fmt.Errorf("%s: %v", c.name, err))
			}
			results[i].samples = append(results[i].samples, s)
		}
	}

	fl := results[0]
	fmt.Printf("claude-mem hook benchmark: %d runs per case, %s/%s, %d CPUs\n\n", *n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("%-36s %10s %10s %9s %9s %9s\n", "case", "median", "p95", "×floor", "p95×floor", "peak RSS")
	targets := map[int]float64{1: 6, 2: 10}
	ok := true
	for i, r := range results {
		med, p95 := r.quantile(0.5), r.quantile(0.95)
		ratio := float64(med) / float64(fl.quantile(0.5))
		ratio95 := float64(p95) / float64(fl.quantile(0.95))
		verdict := ""
		if t, has := targets[i]; has {
			verdict = fmt.Sprintf("  target ≤%.0f×", t)
			if ratio > t {
				verdict += " MISSED"
				ok = false
			}
		}
		if r.peakRSS() > 30*1024 {
			verdict += "  RSS over 30 MB"
			ok = false
		}
		fmt.Printf("%-36s %10s %10s %8.2f× %8.2f× %7.1fMB%s\n", r.name, med.Round(time.Microsecond), p95.Round(time.Microsecond), ratio, ratio95, float64(r.peakRSS())/1024, verdict)
	}
	if *check && !ok {
		fmt.Println("\nFAIL: a target was missed")
		return 1
	}
	return 0
}

func once(bin string, stdin []byte, env []string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, errb.String())
	}
	wall := time.Since(t0)
	if errb.Len() > 0 {
		return sample{}, fmt.Errorf("wrote to stderr: %s", strings.TrimSpace(errb.String()))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) // kilobytes on Linux
	}
	return sample{wall: wall, rssKB: rss}, nil
}

func seed(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	db, err := store.Open(filepath.Join(dir, "claude-mem.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	// The fixtures' cwd is /home/user/project: its project is "project".
	return store.SeedObservations(context.Background(), db, "project", n, time.Now().Add(-time.Hour))
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "bench:", err)
	return 1
}
