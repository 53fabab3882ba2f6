//go:build linux

package tests

// Shared helpers for observer_spawn_spec_test.go and observe_test.go: one harness per test
// (its own HOME, data dir, project dir and fake claude under t.TempDir()), the built hook
// run as a black box, the fake claude of tests/fakeclaude, a "reaper" that reports every
// process a hook leaves behind, and the scan of every log line and doctor output for the
// fixture secrets (issue 6).

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// The fixture secrets. Each holds "MATRIX" and a tail no real output has, so a leak of the
// whole value or of any long part of it is found by scanSecrets; the redacted form the
// product prints ("sk-a…(108)") holds neither.
const secretTail = "x9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Qx9Q"

var (
	secretEnvToken     = "sk-ant-oat01-MATRIXTOKEN-" + secretTail
	secretAPIKey       = "sk-ant-api03-MATRIXSECRET-" + secretTail
	secretDotEnvToken  = "sk-ant-oat01-MATRIXDOTENV-" + secretTail
	secretHelperKey    = "sk-ant-api03-MATRIXHELPER-" + secretTail
	secretCredsToken   = "sk-ant-oat01-MATRIXCREDS-" + secretTail
	secretRefreshToken = "sk-ant-ort01-MATRIXREFRESH-" + secretTail
	secretExpiredToken = "sk-ant-oat01-MATRIXEXPIRED-" + secretTail
	secretOtherToken   = "sk-ant-oat01-MATRIXOTHER-" + secretTail
)

// secretNeedles are searched for in every output; "MATRIX" is upper case on purpose: test
// names (and so temp dir names) never spell it that way.
var secretNeedles = []string{"MATRIX", secretTail[:12]}

// ---------------------------------------------------------------------------------------
// Built helpers: the fake claude and the reaper, built once per test binary into binDir.

var (
	fakeOnce  sync.Once
	fakeBuilt string
	fakeErr   error

	reaperOnce  sync.Once
	reaperBuilt string
	reaperErr   error
)

// fakeClaude builds tests/fakeclaude once; every harness hard-links it where the product
// should find it (never a symlink: the fake finds its scenario beside os.Executable()).
func fakeClaude(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		fakeBuilt = filepath.Join(binDir, "fakeclaude")
		fakeErr = fakeproto.Build(fakeBuilt)
	})
	if fakeErr != nil {
		t.Fatalf("building the fake claude: %v", fakeErr)
	}
	return fakeBuilt
}

// installFake puts the fake claude at path (a hard link, else a copy) and returns path.
func installFake(t *testing.T, path string) string {
	t.Helper()
	src := fakeClaude(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(path)
	if err := os.Link(src, path); err != nil {
		b, rerr := os.ReadFile(src)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if werr := os.WriteFile(path, b, 0o755); werr != nil {
			t.Fatalf("installing the fake at %s: link: %v; copy: %v", path, err, werr)
		}
	}
	return path
}

// reaperSource is a tiny program that makes itself a child subreaper (Linux), runs its
// arguments as a command, and then waits for every process that command left behind
// (detached or not: they are re-parented to the reaper when their parent exits), writing
// one JSON line per such process to $REAPER_OUT. So "Stop started nothing" is a fact read
// from the kernel, not a wait for something not to happen.
const reaperSource = `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type adopted struct {
	Pid     int      ` + "`json:\"pid\"`" + `
	Session int      ` + "`json:\"session\"`" + `
	Comm    string   ` + "`json:\"comm\"`" + `
	Cmdline []string ` + "`json:\"cmdline\"`" + `
}

func main() {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "reaper: prctl:", e)
		os.Exit(125)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			fmt.Fprintln(os.Stderr, "reaper:", err)
			os.Exit(125)
		}
		code = ee.ExitCode()
	}
	// The command's peak RSS (wait4 rusage, KiB), measured here: a child of the big test
	// process would inherit that process's peak at fork.
	if p := os.Getenv("REAPER_MAXRSS"); p != "" {
		os.WriteFile(p, []byte(strconv.FormatInt(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, 10)), 0o644)
	}
	wait := 60 * time.Second
	if s, err := time.ParseDuration(os.Getenv("REAPER_WAIT")); err == nil {
		wait = s
	}
	deadline := time.Now().Add(wait)
	seen := map[int]bool{}
	var found []adopted
	for {
		kids := children()
		if len(kids) == 0 {
			break
		}
		for _, pid := range kids {
			if !seen[pid] {
				seen[pid] = true
				found = append(found, adopted{Pid: pid, Session: session(pid), Comm: comm(pid), Cmdline: cmdline(pid)})
			}
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	f, err := os.Create(os.Getenv("REAPER_OUT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "reaper:", err)
		os.Exit(125)
	}
	enc := json.NewEncoder(f)
	for _, a := range found {
		enc.Encode(a)
	}
	f.Close()
	os.Exit(code)
}

func children() []int {
	me := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			if ppid, _ := strconv.Atoi(f[1]); ppid == me {
				out = append(out, pid)
			}
		}
	}
	return out
}

// session is the session id (field 6 of /proc/PID/stat).
func session(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return 0
	}
	n, _ := strconv.Atoi(f[3])
	return n
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

func cmdline(pid int) []string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	s := strings.TrimRight(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
`

// reaper builds the reaper once (a stdlib-only module of its own in binDir).
func reaper(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the reaper uses PR_SET_CHILD_SUBREAPER, Linux only")
	}
	reaperOnce.Do(func() {
		src := filepath.Join(binDir, "reaper-src")
		reaperBuilt = filepath.Join(binDir, "reaper")
		if reaperErr = os.MkdirAll(src, 0o755); reaperErr != nil {
			return
		}
		if reaperErr = os.WriteFile(filepath.Join(src, "go.mod"), []byte("module reaper\n\ngo 1.26\n"), 0o644); reaperErr != nil {
			return
		}
		if reaperErr = os.WriteFile(filepath.Join(src, "main.go"), []byte(reaperSource), 0o644); reaperErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", reaperBuilt, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
		if b, err := cmd.CombinedOutput(); err != nil {
			reaperErr = fmt.Errorf("go build reaper: %v\n%s", err, b)
		}
	})
	if reaperErr != nil {
		t.Fatal(reaperErr)
	}
	return reaperBuilt
}

// adoptedProc is one process a reaped command left behind.
type adoptedProc struct {
	Pid     int      `json:"pid"`
	Session int      `json:"session"` // its session id: its own pid when it called setsid
	Comm    string   `json:"comm"`
	Cmdline []string `json:"cmdline"`
}

// ---------------------------------------------------------------------------------------
// The harness.

// harness is one test's world: $WORK (t.TempDir()/work) holds home, project and data dir;
// the fake claude's default place (a terminal user's PATH dir) is t.TempDir()/bin, outside
// $WORK, so its records never count as files the product created.
type harness struct {
	t    *testing.T
	root string // t.TempDir()
	work string // $WORK
	home string
	data string
	proj string
	bin  string // the terminal user's PATH dir
	fake string // where the fake claude is installed for this test
	env  map[string]string
	seq  int

	mu      sync.Mutex
	outputs []string // every stdout and stderr of the product, for the secret scan

	finishOnce sync.Once
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	h := &harness{t: t, root: root, work: filepath.Join(root, "work"), bin: filepath.Join(root, "bin")}
	h.home = filepath.Join(h.work, "home")
	h.data = filepath.Join(h.work, "data")
	h.proj = filepath.Join(h.work, "proj")
	for _, d := range []string{h.home, h.proj, h.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.env = map[string]string{
		"HOME": h.home, "USER": "tester", "LOGNAME": "tester", "LANG": "C.UTF-8",
		"PATH":                h.bin + ":/usr/bin:/bin",
		"CLAUDE_MEM_DATA_DIR": h.data,
		// Every Stop with a pending event starts a run, as the tests written before
		// batching expect; cost_test.go sets the batch rule it tests.
		"CLAUDE_MEM_BATCH_EVENTS": "1",
		// systemMessage holds the notices alone, as the tests written before the line
		// saying memory loaded expect; capture_context_search.txtar and the hooks tests
		// cover that line.
		"CLAUDE_MEM_LOADED_MESSAGE": "false",
	}
	h.fake = installFake(t, filepath.Join(h.bin, "claude"))
	t.Cleanup(h.finish)
	return h
}

// useDataDir moves the data dir (before anything ran), e.g. to the XDG default.
func (h *harness) useDataDir(dir string) {
	h.data = dir
	h.env["CLAUDE_MEM_DATA_DIR"] = dir
}

// moveFake installs the fake at path instead of the terminal PATH dir.
func (h *harness) moveFake(path string) {
	h.t.Helper()
	if err := os.Remove(h.fake); err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.t.Fatal(err)
	}
	h.fake = installFake(h.t, path)
}

func (h *harness) setScenario(sc fakeproto.Scenario) {
	h.t.Helper()
	if err := fakeproto.WriteScenario(h.fake, sc); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) records() []fakeproto.Record {
	h.t.Helper()
	return recordsOf(h.t, h.fake)
}

func recordsOf(t *testing.T, fake string) []fakeproto.Record {
	t.Helper()
	recs, err := fakeproto.ReadRecords(fake)
	if err != nil {
		t.Fatalf("reading the fake's records: %v", err)
	}
	return recs
}

// environ is h.env with extra applied ("" deletes a variable), as KEY=VALUE lines.
func (h *harness) environ(extra map[string]string) []string {
	env := maps.Clone(h.env)
	for k, v := range extra {
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// result is one finished run of the hook.
type result struct {
	code           int
	stdout, stderr string
}

// runIn runs the built hook with args in dir, stdin and environment h.env+extra.
func (h *harness) runIn(dir string, stdin []byte, extra map[string]string, args ...string) result {
	h.t.Helper()
	return h.runEnv(dir, stdin, h.environ(extra), args...)
}

func (h *harness) runEnv(dir string, stdin []byte, env []string, args ...string) result {
	h.t.Helper()
	r, err := h.exec(dir, stdin, env, args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// exec runs the hook and never fails the test itself, so goroutines may call it.
func (h *harness) exec(dir string, stdin []byte, env []string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookBin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// A detached observer holding our stdout would keep Wait here: that is a bug to report.
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	h.mu.Lock()
	h.outputs = append(h.outputs, r.stdout, r.stderr)
	h.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("hook %v did not finish within 2 minutes", args)
	case errors.Is(err, exec.ErrWaitDelay):
		return r, fmt.Errorf("hook %v: a child kept its stdout/stderr open after the hook exited", args)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		return r, fmt.Errorf("running hook %v: %v", args, err)
	}
	return r, nil
}

// hookMode feeds one event to hook mode from the project dir and checks the hook-mode
// contract (exit 0, stderr empty); it returns stdout.
func (h *harness) hookMode(event []byte, extra map[string]string) string {
	h.t.Helper()
	r := h.runIn(h.proj, event, extra)
	if r.code != 0 || r.stderr != "" {
		h.t.Fatalf("hook mode: exit %d, stderr %q (hook mode must exit 0 with stderr empty)", r.code, r.stderr)
	}
	return r.stdout
}

// fixtureEvent is the real Claude Code 2.1.328 fixture name with top-level fields replaced.
func fixtureEvent(t *testing.T, name string, fields map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	maps.Copy(m, fields)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// userTranscript is where Claude Code keeps the user's session transcript.
func (h *harness) userTranscript(sid string) string {
	return filepath.Join(h.home, ".claude", "projects", fakeproto.EncodeCwd(h.proj), sid+".jsonl")
}

func (h *harness) base(sid string) map[string]any {
	return map[string]any{"session_id": sid, "cwd": h.proj, "transcript_path": h.userTranscript(sid)}
}

// toolUse stores one PostToolUse(Bash) event with a unique tool_use_id.
func (h *harness) toolUse(sid, command string) {
	h.t.Helper()
	h.seq++
	f := h.base(sid)
	f["tool_use_id"] = fmt.Sprintf("toolu_test_%s_%d", sid, h.seq)
	f["tool_input"] = map[string]any{"command": command, "description": "run it"}
	f["tool_response"] = map[string]any{"stdout": "ran: " + command, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
	if out := h.hookMode(fixtureEvent(h.t, "PostToolUse-Bash.json", f), nil); out != "" {
		h.t.Fatalf("PostToolUse printed %q", out)
	}
}

func (h *harness) prompt(sid, text string) {
	h.t.Helper()
	f := h.base(sid)
	f["prompt"] = text
	if out := h.hookMode(fixtureEvent(h.t, "UserPromptSubmit-prompt.json", f), nil); out != "" {
		h.t.Fatalf("UserPromptSubmit printed %q", out)
	}
}

// stop feeds the Stop event, which starts `hook observe` detached when events are pending.
func (h *harness) stop(sid string) {
	h.t.Helper()
	if out := h.hookMode(fixtureEvent(h.t, "Stop-basic.json", h.base(sid)), nil); out != "" {
		h.t.Fatalf("Stop printed %q", out)
	}
}

// sessionStartOut is hook mode's SessionStart answer.
type sessionStartOut struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage"`
}

func (h *harness) sessionStart(sid string) sessionStartOut {
	h.t.Helper()
	out := h.hookMode(fixtureEvent(h.t, "SessionStart-startup.json", h.base(sid)), nil)
	var o sessionStartOut
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.HookSpecificOutput.HookEventName != "SessionStart" {
		h.t.Fatalf("SessionStart answered %q: %v", out, err)
	}
	return o
}

// observe runs `hook observe --session sid` synchronously.
func (h *harness) observe(sid string, extra map[string]string) result {
	h.t.Helper()
	return h.runIn(h.work, nil, extra, "observe", "--session", sid)
}

// doctorOut is the part of `hook doctor --json` the tests read.
type doctorOut struct {
	OK       bool     `json:"ok"`
	Findings []string `json:"findings"`
	Claude   struct {
		Found bool   `json:"found"`
		Path  string `json:"path"`
		Via   string `json:"via"`
		Error string `json:"error"`
	} `json:"claude"`
	Auth struct {
		Usable     bool   `json:"usable"`
		Source     string `json:"source"`
		From       string `json:"from"`
		Value      string `json:"value"`
		Error      string `json:"error"`
		Candidates []struct {
			Kind    string `json:"kind"`
			From    string `json:"from"`
			Usable  bool   `json:"usable"`
			Present bool   `json:"present"`
			Reason  string `json:"reason"`
		} `json:"candidates"`
	} `json:"auth"`
	Health health.Health `json:"health"`
	Queue  *struct {
		Pending, Processing, Done, Failed int
	} `json:"queue"`
	Journal *struct {
		Records int `json:"records"`
	} `json:"journal"`
	Spawn *struct {
		Binary string   `json:"binary"`
		Argv   []string `json:"argv"`
		Env    []string `json:"env"`
	} `json:"spawn_spec"`
}

func (h *harness) doctor(extra map[string]string) (doctorOut, result) {
	h.t.Helper()
	r := h.runIn(h.work, nil, extra, "doctor", "--json")
	var d doctorOut
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		h.t.Fatalf("hook doctor --json (exit %d) printed no JSON: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	return d, r
}

// searchHit is one line of `hook search --json`.
type searchHit struct {
	Kind    string `json:"kind"`
	Project string `json:"project"`
	Session string `json:"session"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
}

func (h *harness) search(query string, extra map[string]string) []searchHit {
	h.t.Helper()
	r := h.runIn(h.work, nil, extra, "search", "--json", query)
	if r.code != 0 {
		h.t.Fatalf("hook search exit %d: %s", r.code, r.stderr)
	}
	var hits []searchHit
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for {
		var hit searchHit
		if err := dec.Decode(&hit); err == io.EOF {
			break
		} else if err != nil {
			h.t.Fatalf("hook search --json printed %q: %v", r.stdout, err)
		}
		hits = append(hits, hit)
	}
	return hits
}

// mcpSession is one `hook mcp` server, initialized, asked a request at a time over its
// stdio (it stops when its stdin closes).
type mcpSession struct {
	h      *harness
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr bytes.Buffer
	out    strings.Builder // every answer, for the secret scan
	id     int
}

// startMCP starts `hook mcp` in dir (its project) with h.env+extra and initializes it.
func (h *harness) startMCP(dir string, extra map[string]string) *mcpSession {
	h.t.Helper()
	s := &mcpSession{h: h, cmd: exec.Command(hookBin, "mcp")}
	s.cmd.Dir, s.cmd.Env, s.cmd.Stderr = dir, h.environ(extra), &s.stderr
	stdin, stdout := testkit.StartPiped(h.t, s.cmd)
	s.stdin, s.lines = stdin, bufio.NewScanner(stdout)
	s.lines.Buffer(nil, 1<<20)
	s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "tests", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return s
}

func (s *mcpSession) send(msg map[string]any) {
	s.h.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		s.h.t.Fatal(err)
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.h.t.Fatalf("hook mcp: %v (stderr %q)", err, s.stderr.String())
	}
}

// request sends one request and returns the line that answers it.
func (s *mcpSession) request(method string, params any) string {
	s.h.t.Helper()
	s.id++
	s.send(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if !s.lines.Scan() {
		s.h.t.Fatalf("hook mcp stopped answering (stderr %q)", s.stderr.String())
	}
	s.out.WriteString(s.lines.Text() + "\n")
	return s.lines.Text()
}

// call calls a tool and returns the answer's line.
func (s *mcpSession) call(tool string, args map[string]any) string {
	s.h.t.Helper()
	return s.request("tools/call", map[string]any{"name": tool, "arguments": args})
}

// close ends the session and waits for the server; what it printed joins the scanned outputs.
func (s *mcpSession) close() error {
	s.stdin.Close()
	err := s.cmd.Wait()
	s.h.mu.Lock()
	s.h.outputs = append(s.h.outputs, s.out.String(), s.stderr.String())
	s.h.mu.Unlock()
	return err
}

// viewerRun is a `hook viewer` on a free port and a client holding its cookie.
type viewerRun struct {
	h      *harness
	cmd    *exec.Cmd
	base   string
	client *http.Client
	stderr bytes.Buffer
	exited chan error
}

// startViewer starts `hook viewer` (no browser) and opens the address it prints, as a
// browser does: the token becomes the cookie every later request carries.
func (h *harness) startViewer() *viewerRun {
	h.t.Helper()
	v, url := h.launchViewer()
	v.fetch(url)
	return v
}

// launchViewer starts `hook viewer` (no browser): the viewer and the address it printed,
// not opened yet.
func (h *harness) launchViewer() (*viewerRun, string) {
	h.t.Helper()
	v := &viewerRun{h: h, cmd: exec.Command(hookBin, "viewer", "--port", "0", "--no-open"), exited: make(chan error, 1)}
	v.cmd.Dir, v.cmd.Env, v.cmd.Stderr = h.work, h.environ(nil), &v.stderr
	out, err := v.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := v.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { v.cmd.Process.Kill() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		h.t.Fatalf("hook viewer printed nothing (stderr %q)", v.stderr.String())
	}
	_, url, _ := strings.Cut(lines.Text(), "viewer: ")
	if !viewerURL.MatchString(url) {
		h.t.Fatalf("no address in %q", lines.Text())
	}
	go func() {
		for lines.Scan() {
		}
		v.exited <- v.cmd.Wait()
	}()
	v.base, _, _ = strings.Cut(url, "/?")
	jar, err := cookiejar.New(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	v.client = &http.Client{Jar: jar, Timeout: time.Minute, Transport: localhostTransport()}
	return v, url
}

// get fetches path (HTTP 200 or the test fails) and returns the page.
func (v *viewerRun) get(path string) string {
	v.h.t.Helper()
	return v.fetch(v.base + path)
}

func (v *viewerRun) fetch(url string) string {
	v.h.t.Helper()
	code, page := v.fetchStatus(url)
	if code != http.StatusOK {
		v.h.t.Fatalf("GET %s: HTTP %d:\n%.2000s", url, code, page)
	}
	return page
}

// fetchStatus fetches url whatever its status: the status and the page.
func (v *viewerRun) fetchStatus(url string) (int, string) {
	v.h.t.Helper()
	resp, err := v.client.Get(url)
	if err != nil {
		v.h.t.Fatalf("GET %s: %v (stderr %q)", url, err, v.stderr.String())
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	v.h.mu.Lock()
	v.h.outputs = append(v.h.outputs, string(b))
	v.h.mu.Unlock()
	if err != nil {
		v.h.t.Fatalf("GET %s: %s (%v):\n%.2000s", url, resp.Status, err, b)
	}
	return resp.StatusCode, string(b)
}

// stop ends the viewer as Ctrl-C does; it must exit 0.
func (v *viewerRun) stop() {
	v.h.t.Helper()
	v.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-v.exited:
		if err != nil {
			v.h.t.Errorf("hook viewer: %v (stderr %q)", err, v.stderr.String())
		}
	case <-time.After(30 * time.Second):
		v.h.t.Errorf("hook viewer still ran 30 s after SIGINT")
	}
	v.h.mu.Lock()
	v.h.outputs = append(v.h.outputs, v.stderr.String())
	v.h.mu.Unlock()
}

// ingest has the hook store what waits in the capture journal, as any reader does first
// (`hook search` ingests, then reads); it creates no database when nothing waits.
func (h *harness) ingest() {
	h.t.Helper()
	if r := h.runIn(h.work, nil, nil, "search", "--limit", "1", "ingest"); r.code != 0 {
		h.t.Fatalf("hook search (to ingest the journal) exit %d: %s", r.code, r.stderr)
	}
}

// db opens the store read-only, once the journal is ingested; nil when it does not exist yet.
func (h *harness) db() *sql.DB {
	h.t.Helper()
	h.ingest()
	path := filepath.Join(h.data, "claude-mem.db")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		h.t.Fatal(err)
	}
	return db
}

// count runs a SELECT count(*)-like query returning one integer; 0 without a database.
func (h *harness) count(query string, args ...any) int {
	h.t.Helper()
	db := h.db()
	if db == nil {
		return 0
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		h.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// states counts a session's events by state ("" session: all sessions).
func (h *harness) states(sid string) map[string]int {
	h.t.Helper()
	out := map[string]int{}
	db := h.db()
	if db == nil {
		return out
	}
	defer db.Close()
	rows, err := db.Query(`SELECT state, count(*) FROM events WHERE ?1 = '' OR session_id = ?1 GROUP BY state`, sid)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			h.t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// eachRow calls scan for each row of query; nothing without a database.
func (h *harness) eachRow(query string, scan func(*sql.Rows) error, args ...any) {
	h.t.Helper()
	db := h.db()
	if db == nil {
		return
	}
	defer db.Close()
	rows, err := db.Query(query, args...)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		h.t.Fatal(err)
	}
}

// texts is the one text column query returns, in order.
func (h *harness) texts(query string, args ...any) []string {
	h.t.Helper()
	var out []string
	h.eachRow(query, func(rows *sql.Rows) error {
		var s string
		err := rows.Scan(&s)
		out = append(out, s)
		return err
	}, args...)
	return out
}

func (h *harness) observations(sid string) []string {
	h.t.Helper()
	return h.texts(`SELECT title || ' | ' || narrative FROM observations WHERE ?1 = '' OR session_id = ?1 ORDER BY id`, sid)
}

func (h *harness) health() health.Health {
	h.t.Helper()
	hl, err := health.Load(h.data)
	if err != nil {
		h.t.Fatalf("health.json: %v", err)
	}
	return hl
}

// logLine is one zerolog line of data/logs/hook.log.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

func (h *harness) logLines() []logLine {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.data, "logs", "hook.log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.t.Fatal(err)
	}
	var out []logLine
	for _, ln := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		var l logLine
		if err := json.Unmarshal(ln, &l); err != nil {
			h.t.Fatalf("hook.log line is not JSON: %q", ln)
		}
		out = append(out, l)
	}
	return out
}

// logsAt returns the lines of a level whose message contains msg.
func (h *harness) logsAt(level, msg string) []logLine {
	var out []logLine
	for _, l := range h.logLines() {
		if l.str("level") == level && strings.Contains(l.str("message"), msg) {
			out = append(out, l)
		}
	}
	return out
}

// runDirs lists data/observer-sessions/*.
func (h *harness) runDirs() []string {
	h.t.Helper()
	return testkit.Entries(h.t, filepath.Join(h.data, "observer-sessions"))
}

// ---------------------------------------------------------------------------------------
// Processes.

// procsIn lists the live processes whose cwd is inside dir (zombies have none).
func procsIn(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil {
			continue
		}
		if cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			out = append(out, pid)
		}
	}
	return out
}

// procGone reports whether pid no longer runs: no /proc entry, or a zombie (killed and
// waiting for a parent to reap it).
func procGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// reaped runs the hook in hook mode under the reaper and returns its stdout and every
// process it left behind (once they all ended).
func (h *harness) reaped(event []byte, extra map[string]string) (string, []adoptedProc) {
	h.t.Helper()
	out, procs, err := h.startReaped(event, extra)()
	if err != nil {
		h.t.Fatal(err)
	}
	return out, procs
}

// startReaped starts hook mode under the reaper and returns a function that waits for the
// reaper: the hook and everything it left behind have ended when it returns. Neither
// function fails the test itself, so goroutines may call them.
func (h *harness) startReaped(event []byte, extra map[string]string) func() (string, []adoptedProc, error) {
	h.t.Helper()
	rp := reaper(h.t)
	h.mu.Lock()
	h.seq++
	outFile := filepath.Join(h.root, fmt.Sprintf("reaper-%d.jsonl", h.seq))
	h.mu.Unlock()
	env := append(h.environ(extra), "REAPER_OUT="+outFile, "REAPER_WAIT=60s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, rp, hookBin)
	cmd.Env, cmd.Dir, cmd.Stdin = env, h.proj, bytes.NewReader(event)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	startErr := cmd.Start()
	return func() (string, []adoptedProc, error) {
		defer cancel()
		if startErr != nil {
			return "", nil, startErr
		}
		if err := cmd.Wait(); err != nil || errb.Len() > 0 {
			return "", nil, fmt.Errorf("hook mode under the reaper: %v, stderr %q (hook mode exits 0 with stderr empty)", err, errb.String())
		}
		h.mu.Lock()
		h.outputs = append(h.outputs, out.String())
		h.mu.Unlock()
		b, err := os.ReadFile(outFile)
		if err != nil {
			return "", nil, err
		}
		var procs []adoptedProc
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			if len(ln) == 0 {
				continue
			}
			var p adoptedProc
			if err := json.Unmarshal(ln, &p); err != nil {
				return "", nil, err
			}
			procs = append(procs, p)
		}
		return out.String(), procs, nil
	}
}

// isObserveFor reports whether an adopted process is `hook observe --session sid …`. A
// process first seen as a zombie has no cmdline left; its comm still says hook.
func isObserveFor(p adoptedProc, sid string) bool {
	if len(p.Cmdline) == 0 {
		return p.Comm == "hook"
	}
	return len(p.Cmdline) >= 4 && filepath.Base(p.Cmdline[0]) == "hook" &&
		slices.Equal(p.Cmdline[1:4], []string{"observe", "--session", sid})
}

// ---------------------------------------------------------------------------------------
// The end of every harness: no process of the test left, and the secret scan.

func (h *harness) finish() { h.finishOnce.Do(h.finishNow) }

func (h *harness) finishNow() {
	if !testkit.Within(30*time.Second, func() bool { return len(procsIn(h.root)) == 0 }) {
		left := procsIn(h.root)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		h.t.Errorf("processes %v still ran inside %s 30 s after the test; killed", left, h.root)
	}
	h.scanSecrets()
}

// leakScan totals what every harness scanned, for TestNoFixtureSecretInLogsOrDoctorOutput.
var leakScan struct {
	sync.Mutex
	harnesses, logLines, outputs, doctorOutputs int
	leaks                                       []string
}

// scanSecrets greps every log line of the data dir (hook.log and its rotation) and every
// output the product printed in this test for the fixture secrets.
func (h *harness) scanSecrets() {
	var leaks []string
	lines, doctors := 0, 0
	check := func(where, text string) {
		for _, l := range secretsIn(text) {
			leaks = append(leaks, where+": "+l)
		}
	}
	for _, name := range []string{"hook.log", "hook.log.1"} {
		b, err := os.ReadFile(filepath.Join(h.data, "logs", name))
		if err != nil {
			continue
		}
		for i, ln := range strings.Split(string(b), "\n") {
			if ln != "" {
				lines++
				check(fmt.Sprintf("%s line %d", name, i+1), ln)
			}
		}
	}
	h.mu.Lock()
	outs := slices.Clone(h.outputs)
	h.mu.Unlock()
	for i, o := range outs {
		if strings.Contains(o, `"spawn_spec"`) {
			doctors++
		}
		check(fmt.Sprintf("output %d", i), o)
	}
	for _, l := range leaks {
		h.t.Errorf("secret leaked: %s", l)
	}
	leakScan.Lock()
	leakScan.harnesses++
	leakScan.logLines += lines
	leakScan.outputs += len(outs)
	leakScan.doctorOutputs += doctors
	leakScan.leaks = append(leakScan.leaks, leaks...)
	leakScan.Unlock()
}

// secretsIn reports each fixture-secret needle found in text, with its surroundings.
func secretsIn(text string) []string {
	var out []string
	for _, n := range secretNeedles {
		if strings.Contains(text, n) {
			out = append(out, fmt.Sprintf("%q found in %q", n, clip(text, n)))
		}
	}
	return out
}

// clip shows the text around needle.
func clip(text, needle string) string {
	i := strings.Index(text, needle)
	lo, hi := max(i-80, 0), min(i+len(needle)+80, len(text))
	return text[lo:hi]
}

// trackedTests counts the top-level tests of these files still running, so the secret
// scan test can wait for all of them.
var trackedTests sync.WaitGroup

// track registers a top-level test; call it first, before t.Parallel.
// mountTmpfs mounts a tmpfs of size (mount's size=, as "1m") at dir, made if missing, and
// unmounts it when the test ends. Where it cannot mount (not root: root ignores file
// modes, so a full or read-only disk has to be a real filesystem) the test is skipped, or
// fails under CI=true: CI runs as root, and a full or read-only disk is what it tests.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		testkit.Missing(t, fmt.Sprintf("needs root to mount a %s tmpfs at %s (running as uid %d)", size, dir, os.Geteuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		testkit.Missing(t, fmt.Sprintf("cannot mount a tmpfs at %s (%v: %s): this test needs a Linux root with mount rights", dir, err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

func track(t *testing.T) {
	trackedTests.Add(1)
	t.Cleanup(trackedTests.Done)
}

// testParallelism is the -test.parallel value.
func testParallelism() int {
	if f := flag.Lookup("test.parallel"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok {
				return n
			}
		}
	}
	return 1
}

// ---------------------------------------------------------------------------------------
// Files.

// snapshot lists every path under dir (relative), skipping the subtrees in skip.
func snapshot(t *testing.T, dir string, skip ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// credentialsJSON is Claude Code's .credentials.json with an access token expiring at exp.
func credentialsJSON(access string, exp time.Time) string {
	b, _ := json.Marshal(map[string]any{"claudeAiOauth": map[string]any{
		"accessToken": access, "refreshToken": secretRefreshToken,
		"expiresAt": exp.UnixMilli(), "scopes": []string{"user:inference"},
	}})
	return string(b)
}

// fakeCredentialVars lists the credential variables in a record's environment.
func credentialVarsIn(env map[string]string, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := env[n]; ok {
			out = append(out, n)
		}
	}
	return out
}
