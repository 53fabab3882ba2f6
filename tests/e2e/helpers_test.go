//go:build unix

// Package e2e runs the real Claude Code CLI against a mock Messages API on 127.0.0.1 and
// pins every fact about the CLI the product relies on. Run it with `go test ./tests/e2e/...`
// (CLAUDE_MEM_E2E_CLAUDE=<path> to test another claude binary; -update re-records the
// testdata goldens; failures leave requests and outputs under tests/e2e/artifacts/).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

var update = flag.Bool("update", false, "rewrite testdata/streamjson-*.jsonl from the live CLI")

// cliRel is where `make cli` installs the pinned CLI (npm @anthropic-ai/claude-code@2.1.328),
// relative to the user cache dir ($XDG_CACHE_HOME, else ~/.cache): outside the repository,
// which Claude Code would otherwise copy into its plugin cache.
const cliRel = "claude-mem-go/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

// runTimeout bounds one CLI run; a normal run takes seconds, the margin is for a loaded
// CI machine.
const runTimeout = 90 * time.Second

// dummyKey is the API key every run gets unless a test chooses its credential.
const dummyKey = "sk-ant-api03-e2e-dummy-key-000000000000"

// cliPath returns the real claude executable: $CLAUDE_MEM_E2E_CLAUDE, else the pinned npm
// install in the user cache dir, as the Makefile finds it. Missing, it skips the test, or
// fails it when CI=true.
func cliPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CLAUDE_MEM_E2E_CLAUDE")
	if p == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		p = filepath.Join(cache, cliRel)
	}
	fi, err := os.Stat(p)
	if err == nil && (fi.IsDir() || fi.Mode()&0o111 == 0) {
		err = fmt.Errorf("%s is not an executable file", p)
	}
	if err != nil {
		msg := fmt.Sprintf("real Claude Code CLI unavailable (%v): set CLAUDE_MEM_E2E_CLAUDE or install npm @anthropic-ai/claude-code@2.1.328 with `make cli`", err)
		testkit.Missing(t, msg)
	}
	return p
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// observerArgv is the product's own observer argv (spawn.BuildSpec, after argv[0]) for a
// credential passed in the environment, so every fact pinned here is pinned for the argv
// the product really runs.
func observerArgv() []string {
	return observerSpec(auth.Source{Kind: auth.KindAPIKey, From: "environment", EnvVar: "ANTHROPIC_API_KEY", Value: dummyKey}, "/nonexistent-data").Args[1:]
}

// observerSpec is the product's spawn spec for src with its data dir at dataDir.
func observerSpec(src auth.Source, dataDir string) spawn.Spec {
	return spawn.BuildSpec(spawn.SpecInput{
		Settings: &settings.Settings{DataDir: dataDir, Model: "haiku", ObserverTimeout: time.Minute},
		Env:      settings.Env{}, GOOS: "linux", RunID: "e2e-run",
		Binary: claudebin.Result{Path: "claude"}, Auth: src,
	})
}

// without drops flag from argv, and its value when that is the next token (a flag written
// `--x=` carries its own value).
func without(argv []string, flag string) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		if argv[i] != flag {
			out = append(out, argv[i])
			continue
		}
		if !strings.HasSuffix(flag, "=") && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
			i++
		}
	}
	return out
}

// userLine is one stream-json user message, as the observer writes it on stdin.
func userLine(content string) string {
	b, err := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// sandbox is one throwaway world for the CLI: HOME, a config dir, a project cwd and a mock
// API. On failure its recorded requests and every run's output are saved under
// artifacts/<test name>/ for CI.
type sandbox struct {
	t      *testing.T
	cli    string
	Root   string
	Home   string
	Config string // CLAUDE_CONFIG_DIR; empty leaves it unset
	Cwd    string
	Tmp    string
	Mock   *mockapi.Server
	runs   []*result
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	cli := cliPath(t)
	root, err := filepath.EvalSymlinks(t.TempDir()) // the CLI reports resolved paths
	if err != nil {
		t.Fatal(err)
	}
	s := &sandbox{
		t: t, cli: cli, Root: root,
		Home:   filepath.Join(root, "home"),
		Config: filepath.Join(root, "config"),
		Cwd:    filepath.Join(root, "project"),
		Tmp:    filepath.Join(root, "tmp"),
	}
	for _, d := range []string{s.Home, s.Config, s.Cwd, s.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if s.Mock, err = mockapi.New(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			s.saveArtifacts()
		}
		s.Mock.Close()
	})
	return s
}

func (s *sandbox) saveArtifacts() {
	root, err := repoRoot()
	if err != nil {
		s.t.Log(err)
		return
	}
	dir := filepath.Join(root, "tests", "e2e", "artifacts", regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(s.t.Name(), "_"))
	if err := s.Mock.SaveArtifacts(filepath.Join(dir, "requests")); err != nil {
		s.t.Log(err)
	}
	for i, r := range s.runs {
		base := filepath.Join(dir, fmt.Sprintf("run-%02d", i+1))
		_ = os.WriteFile(base+".args.txt", []byte(strings.Join(r.args, "\n")), 0o644)
		_ = os.WriteFile(base+".stdout", r.stdout, 0o644)
		_ = os.WriteFile(base+".stderr", r.stderr, 0o644)
	}
	s.t.Logf("artifacts saved in %s", dir)
}

// env is the base environment of a run: the sandbox's HOME (and config dir when set), the
// mock as the API, no nonessential traffic, no autoupdater, and the dummy API key.
func (s *sandbox) env() settings.Env {
	e := settings.Env{
		"PATH":               "/usr/bin:/bin",
		"HOME":               s.Home,
		"TMPDIR":             s.Tmp,
		"ANTHROPIC_BASE_URL": s.Mock.URL(),
		"ANTHROPIC_API_KEY":  dummyKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
	}
	if s.Config != "" {
		e["CLAUDE_CONFIG_DIR"] = s.Config
	}
	return e
}

// result is one finished CLI run.
type result struct {
	args   []string
	exit   int
	stdout []byte
	stderr []byte
}

// run starts the CLI in the sandbox's project dir with args, stdin and env, and waits for
// it to exit.
func (s *sandbox) run(args []string, stdin string, env settings.Env) *result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.cli, args...)
	cmd.Dir = s.Cwd
	cmd.Env = env.List()
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := &result{args: args, stdout: out.Bytes(), stderr: errb.Bytes()}
	s.runs = append(s.runs, r)
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		s.t.Fatalf("claude %v did not finish within %v; stderr:\n%s", args, runTimeout, r.stderr)
	case errors.As(err, &exitErr):
		r.exit = exitErr.ExitCode()
	case err != nil:
		s.t.Fatalf("claude %v: %v", args, err)
	}
	return r
}

// lines parses stdout as stream-json, one object a line.
func (r *result) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// of returns the lines of type typ (and subtype, when not empty).
func of(lines []map[string]any, typ, subtype string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["type"] == typ && (subtype == "" || l["subtype"] == subtype) {
			out = append(out, l)
		}
	}
	return out
}

// filesUnder lists the regular files below dir, relative to it; a missing dir has none.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
