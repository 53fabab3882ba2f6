package spawn

import (
	"encoding/json"
	"fmt"
	"github.com/claude-mem/claude-mem-go/internal/fixtures"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a fake `claude` and as the helper processes the tests need:
// a spec built by the tests passes these variables through CLAUDE_MEM_PASS_ENV, and
// TestMain switches on them before any test runs.
const (
	fakeModeVar    = "FAKE_CLAUDE_MODE"    // ok, auth, crash, hang, sleep
	fakeRecordVar  = "FAKE_CLAUDE_RECORD"  // where the fake writes what it got
	fakeFixtureVar = "FAKE_CLAUDE_FIXTURE" // stream-json the auth mode prints
	fakePidsVar    = "FAKE_CLAUDE_PIDS"    // where hang writes its own and its grandchild's pid
)

// fakeAnswer is what the ok mode answers: two observations.
const fakeAnswer = `<observation><type>bugfix</type><title>Fixed the flaky upload test</title>
<facts><fact>upload_test.go waited on a timer</fact></facts><narrative>It now waits on the done channel.</narrative>
<files_modified><file>upload_test.go</file></files_modified></observation>
<observation><type>discovery</type><title>The CLI needs --verbose with stream-json</title></observation>`

// record is what the fake claude saw.
type record struct {
	Args         []string    `json:"args"`
	Env          []string    `json:"env"`
	Cwd          string      `json:"cwd"`
	Stdin        string      `json:"stdin"`
	Settings     string      `json:"settings"` // the --settings file's content, read during the run
	SettingsMode os.FileMode `json:"settings_mode"`
}

// helperModes are extra helper processes registered by platform-specific test files.
var helperModes = map[string]func() int{}

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeVar); mode != "" {
		os.Exit(fakeClaude(mode))
	}
	for name, fn := range helperModes {
		if os.Getenv(name) != "" {
			os.Exit(fn())
		}
	}
	os.Exit(m.Run())
}

func fakeClaude(mode string) int {
	if mode == "sleep" { // the grandchild of hang: outlives nothing if the group is killed
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return 0
	}
	stdin, _ := io.ReadAll(os.Stdin)
	if path := os.Getenv(fakeRecordVar); path != "" {
		cwd, _ := os.Getwd()
		r := record{Args: os.Args, Env: os.Environ(), Cwd: cwd, Stdin: string(stdin)}
		if i := slices.Index(os.Args, "--settings"); i > 0 && i+1 < len(os.Args) {
			b, _ := os.ReadFile(os.Args[i+1])
			r.Settings = string(b)
			if fi, err := os.Stat(os.Args[i+1]); err == nil {
				r.SettingsMode = fi.Mode().Perm()
			}
		}
		b, _ := json.Marshal(r)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	switch mode {
	case "ok":
		line := func(v any) { b, _ := json.Marshal(v); fmt.Printf("%s\n", b) }
		line(map[string]any{"type": "system", "subtype": "init", "tools": []string{}})
		line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
			"content": []map[string]string{{"type": "text", "text": fakeAnswer}}}})
		line(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": fakeAnswer})
		return 0
	case "auth":
		b, err := os.ReadFile(os.Getenv(fakeFixtureVar))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		os.Stdout.Write(b)
		return 1
	case "flood": // prints canaries, then output until it is stopped
		fmt.Println(`{"type":"system","subtype":"init"}`)
		for _, c := range redacttest.Diagnostic() {
			b, _ := json.Marshal(map[string]string{"type": "assistant", "text": c.Text})
			fmt.Printf("%s\n", b)
			fmt.Fprintln(os.Stderr, c.Text)
		}
		go func() {
			for {
				fmt.Fprintln(os.Stderr, strings.Repeat("e", 1000))
			}
		}()
		line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", 4000) + `"}]}}` + "\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 1
			}
		}
	case "crash":
		fmt.Println("not json at all")
		for i := range 500 {
			fmt.Fprintf(os.Stderr, "stack frame %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "fatal: the last words")
		return 1
	case "hang":
		signal.Ignore(syscall.SIGTERM) // so only the group SIGKILL after the grace period ends it
		exe, _ := os.Executable()
		gc := exec.Command(exe)
		gc.Env = append(os.Environ(), fakeModeVar+"=sleep")
		gc.Stdout = os.Stdout // holds the run's stdout open: Run's drain depends on the group kill
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		pids := strconv.Itoa(os.Getpid()) + " " + strconv.Itoa(gc.Process.Pid)
		if err := os.WriteFile(os.Getenv(fakePidsVar), []byte(pids), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		fmt.Println(`{"type":"system","subtype":"init"}`)
		time.Sleep(time.Hour)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown fake mode", mode)
	return 3
}

// fixture is the path of a Claude Code 2.1.328 fixture.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := fixtures.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture missing: %v", err)
	}
	return p
}
