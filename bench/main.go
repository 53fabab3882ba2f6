//go:build unix

// Command bench times bin/hook as whole processes, the way Claude Code runs it, against a
// floor measured in the same run (a static Go binary that reads stdin and prints {}), and
// reports the median and p95 of each case as a ratio to the floor, plus peak memory.
//
//	go run ./bench [-hook bin/hook] [-n 200] [-observations 100000] [-check]
//
// With -check it exits 1 when a ratio or the memory bound is exceeded: PostToolUse within
// 6× the floor, SessionStart over 100,000 observations within 10×, peak RSS under 30 MB;
// `hook mcp` from process start to its tools/list answer within 10× the floor, and after
// 1,000 tool calls over 100,000 observations a peak RSS under 25 MB.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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

	// The MCP server's cwd: a directory named like the fixtures' project, so its default
	// project is the seeded one.
	mcpCwd := filepath.Join(work, "project")
	_ = os.MkdirAll(mcpCwd, 0o700)
	cases := []struct {
		name  string
		bin   string
		stdin []byte
		env   []string
		mcp   bool // start `hook mcp` and time it to its tools/list answer
	}{
		{"floor", floor, post, env(postDir), false},
		{"PostToolUse", hookPath, post, env(postDir), false},
		{fmt.Sprintf("SessionStart (%d observations)", *nobs), hookPath, start, env(startDir), false},
		{"mcp: start to tools/list answered", hookPath, nil, env(startDir), true},
	}
	results := make([]result, len(cases))
	for i := range cases {
		results[i].name = cases[i].name
	}
	// Interleave the cases so machine noise hits all of them alike.
	for range *n {
		for i, c := range cases {
			once := once
			if c.mcp {
				once = func(bin string, _ []byte, env []string) (sample, error) { return mcpStart(bin, env, mcpCwd) }
			}
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
	targets := map[int]float64{1: 6, 2: 10, 3: 10}
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
	calls, err := mcpCalls(hookPath, env(startDir), mcpCwd, 1000)
	if err != nil {
		return fail(fmt.Errorf("mcp calls: %v", err))
	}
	verdict := ""
	if calls.hwmKB > 25*1024 {
		verdict = "  RSS over 25 MB"
		ok = false
	}
	fmt.Printf("\nmcp: %d tool calls over stdio (search, timeline, get_observations; %d observations): median %s, p95 %s per call; peak RSS %.1f MB, RSS at the end %.1f MB%s\n",
		calls.n, *nobs, calls.median.Round(time.Microsecond), calls.p95.Round(time.Microsecond), float64(calls.hwmKB)/1024, float64(calls.rssKB)/1024, verdict)
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

// mcpHandshake is what Claude Code sends a new MCP server before it lists the tools.
const mcpHandshake = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// mcpProc is a running `hook mcp` with its pipes.
type mcpProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startMCP starts `hook mcp` and returns once it has answered the handshake's tools/list.
func startMCP(bin string, env []string, dir string) (*mcpProc, error) {
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = env, dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	m := &mcpProc{cmd: cmd, in: in, out: sc}
	if _, err := io.WriteString(m.in, mcpHandshake); err != nil {
		return nil, err
	}
	if err := m.await(2); err != nil {
		return nil, err
	}
	return m, nil
}

// await reads answers until the one with id; an answer that is a JSON-RPC error fails.
func (m *mcpProc) await(id int) error {
	for m.out.Scan() {
		var msg struct {
			ID    *int            `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(m.out.Bytes(), &msg); err != nil {
			return fmt.Errorf("not JSON-RPC on stdout: %q", m.out.Text())
		}
		if msg.ID != nil && *msg.ID == id {
			if msg.Error != nil {
				return fmt.Errorf("request %d: %s", id, msg.Error)
			}
			return nil
		}
	}
	return fmt.Errorf("stdout ended before answer %d: %v", id, m.out.Err())
}

// stop closes stdin (the server exits on its own) and returns its rusage peak RSS.
func (m *mcpProc) stop() (int64, error) {
	m.in.Close()
	for m.out.Scan() {
	}
	if err := m.cmd.Wait(); err != nil {
		return 0, err
	}
	if ru, ok := m.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss), nil
	}
	return 0, nil
}

// mcpStart times `hook mcp` from process start to its tools/list answer.
func mcpStart(bin string, env []string, dir string) (sample, error) {
	t0 := time.Now()
	m, err := startMCP(bin, env, dir)
	if err != nil {
		return sample{}, err
	}
	wall := time.Since(t0)
	rss, err := m.stop()
	return sample{wall: wall, rssKB: rss}, err
}

type callStats struct {
	n            int
	median, p95  time.Duration
	hwmKB, rssKB int64
}

// mcpCalls drives one `hook mcp` through n tool calls, one at a time as a model makes
// them, and reads its peak and current RSS (/proc/<pid>/status) before it exits.
func mcpCalls(bin string, env []string, dir string, n int) (callStats, error) {
	m, err := startMCP(bin, env, dir)
	if err != nil {
		return callStats{}, err
	}
	syl := []string{"ka", "lo", "mi", "ren", "sto", "vex", "dar", "qui", "zen", "port", "cache", "sync", "lock", "parse", "route", "hook", "store", "auth", "db", "log"}
	lat := make([]time.Duration, 0, n)
	for i := range n {
		var call any
		switch i % 3 {
		case 0:
			call = map[string]any{"name": "search", "arguments": map[string]any{"query": syl[i%20] + syl[(i/20)%20]}}
		case 1:
			call = map[string]any{"name": "timeline", "arguments": map[string]any{"id": 1 + (i*7919)%100000}}
		default:
			call = map[string]any{"name": "get_observations", "arguments": map[string]any{"ids": []int{1 + (i*104729)%100000, 2 + (i*1299709)%99999, 3}}}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3 + i, "method": "tools/call", "params": call})
		t0 := time.Now()
		if _, err := m.in.Write(append(b, '\n')); err != nil {
			return callStats{}, err
		}
		if err := m.await(3 + i); err != nil {
			return callStats{}, err
		}
		lat = append(lat, time.Since(t0))
	}
	st := callStats{n: n}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", m.cmd.Process.Pid))
	if err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			var kb int64
			if _, err := fmt.Sscanf(l, "VmHWM: %d kB", &kb); err == nil {
				st.hwmKB = kb
			}
			if _, err := fmt.Sscanf(l, "VmRSS: %d kB", &kb); err == nil {
				st.rssKB = kb
			}
		}
	}
	maxrss, err := m.stop()
	if err != nil {
		return callStats{}, err
	}
	if st.hwmKB == 0 { // no /proc: the rusage peak
		st.hwmKB, st.rssKB = maxrss, maxrss
	}
	slices.Sort(lat)
	st.median, st.p95 = lat[len(lat)/2], lat[int(0.95*float64(len(lat)-1))]
	return st, nil
}
