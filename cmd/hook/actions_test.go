package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
)

// world is a user's machine for the actions, in process: a home, a data dir (made by the
// first writer), the environment, and a clock. Every run gets its stdio as values.
type world struct {
	t        *testing.T
	root     string
	env      settings.Env
	terminal bool
	cwd      string // the working directory; "": root
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	return &world{t: t, root: root, env: settings.Env{
		envname.DataDir: filepath.Join(root, "data"), "HOME": filepath.Join(root, "home"), "PATH": "",
		envname.MaxConcurrentAgents: "0",
	}}
}

func (w *world) dataDir() string { return w.env[envname.DataDir] }

// filled is w with memtest's memory stored in its data dir.
func (w *world) filled() *world {
	w.t.Helper()
	db, err := memory.Memory{DataDir: w.dataDir()}.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	memtest.Fill(w.t, db)
	db.Close()
	return w
}

func (w *world) proc(stdin io.Reader, stdout, stderr io.Writer, args ...string) *proc {
	cwd := w.cwd
	if cwd == "" {
		cwd = w.root
	}
	return &proc{
		name: "claude-mem", args: args, env: w.env, stdin: stdin, stdout: stdout, stderr: stderr,
		now: func() time.Time { return memtest.At(3600) }, loc: time.UTC, exe: filepath.Join(w.root, "plugin", "bin", "hook"),
		cwd: cwd, xdgDataHome: filepath.Join(w.root, "xdg"), tempDir: w.root, uid: "1000", goos: runtime.GOOS, pid: 4242, ppid: 1,
		isTerminal: func() bool { return w.terminal }, stderrTerminal: func() bool { return false }, columns: func() int { return 0 },
	}
}

// run runs args and returns the exit status, stdout and stderr.
func (w *world) run(stdin string, args ...string) (int, string, string) {
	w.t.Helper()
	var out, errb bytes.Buffer
	rc := run(w.proc(strings.NewReader(stdin), &out, &errb, args...))
	return rc, out.String(), errb.String()
}

// expect runs args and checks the exit status, that stdout holds each of outs and that
// stderr is wantErr (a prefix when it ends in "…").
func (w *world) expect(rc int, wantErr string, args []string, outs ...string) string {
	w.t.Helper()
	got, out, errs := w.run("", args...)
	if prefix, ok := strings.CutSuffix(wantErr, "…"); ok && !strings.HasPrefix(errs, prefix) || !ok && errs != wantErr {
		w.t.Errorf("%q: stderr %q, want %q", args, errs, wantErr)
	}
	if got != rc {
		w.t.Errorf("%q: rc %d, want %d (stdout %q)", args, got, rc, out)
	}
	for _, o := range outs {
		if !strings.Contains(out, o) {
			w.t.Errorf("%q: stdout lacks %q:\n%s", args, o, out)
		}
	}
	return out
}

// An unusable data dir: a file where the data dir's parent should be.
func (w *world) unusable() *world {
	w.t.Helper()
	file := filepath.Join(w.root, "afile")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		w.t.Fatal(err)
	}
	w.env[envname.DataDir] = filepath.Join(file, "data")
	return w
}

func TestSearchAction(t *testing.T) {
	w := newWorld(t)
	w.expect(0, "", []string{"search", "zebrafish"}, "No memory stored yet.\n")
	if out := w.expect(0, "", []string{"search", "--json", "zebrafish"}); out != "" {
		t.Errorf("no memory, --json: %q, want nothing", out)
	}
	if _, err := os.Stat(w.dataDir()); err == nil {
		t.Error("a search of no memory made the data dir")
	}
	w.filled()
	w.expect(0, "", []string{"search", "zebrafish"}, "#1 2026-11-30 [feature] web — Zebrafish validator checks login emails\n")
	out := w.expect(0, "", []string{"search", "--json", "--project", "web", "zebrafish"})
	var h struct{ Ref, Project, Time string }
	if err := json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &h); err != nil || h.Ref != "1" || h.Project != "web" || h.Time != "2026-11-30T10:00:04Z" {
		t.Errorf("--json: %+v, %v from %q", h, err, out)
	}
	w.expect(0, "", []string{"search", "nothingmatchesthis"}, `No results for "nothingmatchesthis".`)
	w.expect(2, "claude-mem search: --limit 0: at least 1\n…", []string{"search", "--limit", "0", "x"})
	w.unusable().expect(1, "claude-mem search: …", []string{"search", "zebrafish"})
}

func TestStatsAction(t *testing.T) {
	w := newWorld(t)
	w.expect(0, "", []string{"stats"}, "2026-11-30")
	w.filled()
	out := w.expect(0, "", []string{"stats", "--json", "--days", "2", "--project", "web"})
	var r struct {
		Days    int
		Project string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Days != 2 || r.Project != "web" {
		t.Errorf("--json: %+v, %v from %q", r, err, out)
	}
	w.expect(2, "claude-mem stats: --days 0: at least 1\n…", []string{"stats", "--days", "0"})
	w.expect(2, "claude-mem stats: unexpected \"x\"\n…", []string{"stats", "x"})
	w.unusable().expect(1, "claude-mem stats: …", []string{"stats"})
}

// export writes what import adds, into another memory; the same file twice adds nothing.
func TestExportImportActions(t *testing.T) {
	w := newWorld(t)
	if out := w.expect(0, "", []string{"export"}); strings.Count(out, "\n") != 1 {
		t.Errorf("no memory: %q, want the header alone", out)
	}
	if _, err := os.Stat(filepath.Join(w.dataDir(), "claude-mem.db")); err == nil {
		t.Error("an export of no memory made a database")
	}
	w.filled()
	file := filepath.Join(w.root, "backup.jsonl")
	w.expect(0, "", []string{"export", "-o", file}, "Exported 4 sessions, 2 prompts, 4 observations, 1 summary to "+file)
	w.expect(0, "", []string{"export", "--since", "2026-11-30", "--project", "api"}, `"kind"`)
	w.expect(2, "claude-mem export: --since: …", []string{"export", "--since", "yesterday"})
	w.expect(2, "claude-mem export: unexpected \"x\"\n…", []string{"export", "x"})
	w.expect(1, "claude-mem export: …", []string{"export", "-o", filepath.Join(w.root, "no", "such", "dir", "f")})

	other := newWorld(t)
	other.expect(0, "", []string{"import", file}, "Imported "+file+":\n", "  observations  4 added, 0 skipped\n")
	out := other.expect(0, "", []string{"import", "--json", file})
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil || fmt.Sprint(r["observations"]) != "map[added:0 skipped:4]" {
		t.Errorf("again, --json: %v, %v from %q", r, err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rc, out, errs := other.run(string(b), "import", "-"); rc != 0 || !strings.Contains(out, "Imported -:") || errs != "" {
		t.Errorf("import -: rc %d stdout %q stderr %q", rc, out, errs)
	}
	other.expect(1, "claude-mem import: …", []string{"import", filepath.Join(w.root, "missing.jsonl")})
	other.expect(2, "claude-mem import: one FILE (- for stdin)\n…", []string{"import"})
	if rc, _, errs := other.run("not json\n", "import", "-"); rc != 1 || !strings.Contains(errs, "nothing imported") {
		t.Errorf("a bad line: rc %d stderr %q", rc, errs)
	}
	w.unusable().expect(1, "claude-mem export: …", []string{"export"})
	other.unusable().expect(1, "claude-mem import: …", []string{"import", file})
}

// forget as the table parses it: ids among the flags, and --yes off a terminal.
func TestForgetAction(t *testing.T) {
	w := newWorld(t).filled()
	w.expect(0, "", []string{"forget", "--dry-run", "1", "--session", "s1"}, "Would forget: 1 observation\n", "Dry run: nothing removed.\n")
	w.expect(2, "claude-mem forget: stdin is not a terminal, so nothing was removed: run again with --yes to forget these\n", []string{"forget", "1"})
	w.expect(0, "", []string{"forget", "1", "--yes", "4"}, "Forgot 2 observations.\n")
	w.expect(0, "claude-mem forget: no observation #1\n", []string{"forget", "1", "--yes"}, "Nothing to forget.\n")
	w.expect(2, "claude-mem forget: --json asks nothing: add --dry-run to see what would go, or --yes to forget it\n…", []string{"forget", "--json", "2"})
	w.unusable().expect(1, "claude-mem forget: …", []string{"forget", "--yes", "2"})
}

// doctor's exit status: 0 in search-only mode with no credential, 1 when the observer
// would run and has neither claude nor a credential (the control).
func TestDoctorAction(t *testing.T) {
	w := newWorld(t)
	out := w.expect(0, "", []string{"doctor"}, "claude-mem dev — ok\n")
	if _, err := os.Stat(w.dataDir()); err == nil {
		t.Error("doctor's report made the data dir")
	}
	var r struct{ OK bool }
	if err := json.Unmarshal([]byte(w.expect(0, "", []string{"doctor", "--json"})), &r); err != nil || !r.OK {
		t.Errorf("--json: %+v, %v", r, err)
	}
	if verbose := w.expect(0, "", []string{"doctor", "--verbose"}, "CLAUDE_MEM_MAX_CONCURRENT_AGENTS"); len(verbose) <= len(out) {
		t.Errorf("--verbose says no more than the report (%d ≤ %d bytes)", len(verbose), len(out))
	}
	w.filled()
	if rc, _, errs := w.run("", "doctor", "--retry"); rc != 0 || errs != "observer pause cleared; nothing started for what waits\n" {
		t.Errorf("--retry in search-only mode: rc %d stderr %q", rc, errs)
	}
	w.env[envname.MaxConcurrentAgents] = "1"
	w.expect(1, "", []string{"doctor"}, "auth         no usable source")
	if err := json.Unmarshal([]byte(w.expect(1, "", []string{"doctor", "--json"})), &r); err != nil || r.OK {
		t.Errorf("control: --json: %+v, %v", r, err)
	}
	// Sessions wait and the observer may run: --retry starts `hook observe`, which here is no
	// executable, and says so.
	if rc, _, errs := w.run("", "doctor", "--retry"); rc != 1 || !strings.HasPrefix(errs, "claude-mem doctor: observer pause cleared, but starting what waits failed: ") {
		t.Errorf("--retry with no hook to start: rc %d stderr %q", rc, errs)
	}
	w.expect(2, "claude-mem doctor: unexpected \"x\"\n…", []string{"doctor", "x"})
}

func TestAllowToolsAction(t *testing.T) {
	w := newWorld(t)
	w.expect(1, "", []string{"allow-tools", "--check"}, "claude-mem: the memory tools are ")
	w.expect(0, "", []string{"allow-tools", "--backup-only"}, "claude-mem: ")
	w.expect(0, "", []string{"allow-tools"}, "claude-mem: ")
	w.expect(0, "", []string{"allow-tools", "--check"}, "claude-mem: the memory tools are allowed")
	var r struct{ State string }
	if err := json.Unmarshal([]byte(w.expect(0, "", []string{"allow-tools", "--remove", "--json"})), &r); err != nil || r.State == "allowed" {
		t.Errorf("--remove --json: %+v, %v", r, err)
	}
	w.expect(1, "", []string{"allow-tools", "--check"})
	w.expect(2, "claude-mem allow-tools: --check, --remove and --backup-only: one at a time\nusage: claude-mem allow-tools [--check | --remove | --backup-only] [--json]\n",
		[]string{"allow-tools", "--check", "--remove"})
	w.expect(2, "claude-mem allow-tools: unexpected \"x\"\n…", []string{"allow-tools", "x"})
	w.unusable().expect(1, "claude-mem allow-tools: …", []string{"allow-tools"})
}

// mcp answers on stdout until stdin closes, then exits 0.
func TestMCPAction(t *testing.T) {
	w := newWorld(t).filled()
	w.env[envname.RedactSecrets] = "true"
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	rc, out, errs := w.run(in, "mcp")
	if rc != 0 || errs != "" || !strings.Contains(out, `"id":1`) || !strings.Contains(out, `"id":2`) || !strings.Contains(out, `"tools"`) {
		t.Errorf("rc %d stderr %q stdout %q", rc, errs, out)
	}
	w.expect(2, "claude-mem mcp: unexpected \"x\"\n…", []string{"mcp", "x"})
	if redactNote(&settings.Settings{RedactSecrets: false}) != nil {
		t.Error("redaction off: the note is redacted anyway")
	}
	key := "sk-ant-api03-" + strings.Repeat("a", 40)
	if got := redactNote(&settings.Settings{RedactSecrets: true})("the key " + key); strings.Contains(got, key) {
		t.Errorf("redaction on: %q keeps the key", got)
	}
}

// observe and upgrade, started by hook mode: with nothing pending both end at once, 0;
// with an unusable data dir, 1, saying it in the log only.
func TestObserveAndUpgradeActions(t *testing.T) {
	w := newWorld(t)
	w.expect(0, "", []string{"upgrade"})
	if _, err := os.Stat(filepath.Join(w.dataDir(), "claude-mem.db")); err != nil {
		t.Errorf("upgrade opened no database: %v", err)
	}
	w.expect(0, "", []string{"observe", "--session", "nothing-pending", "--parent-pid", "1"})
	w.expect(2, "claude-mem observe: --session is required\n…", []string{"observe"})
	w.expect(2, "claude-mem observe: unexpected \"x\"\n…", []string{"observe", "--session", "s", "x"})
	w.expect(2, "claude-mem upgrade: unexpected \"x\"\n…", []string{"upgrade", "x"})
	w.unusable()
	w.expect(1, "", []string{"upgrade"})
	w.expect(1, "", []string{"observe", "--session", "s"})
	if got := observeArgs(w.proc(nil, nil, nil), "s9", true); strings.Join(got, " ") != "observe --session s9 --parent-pid 1 --final" {
		t.Errorf("observeArgs: %q", got)
	}
}

// The viewer serves until SIGTERM: its address comes first on stdout, and a signal ends it
// with 0. A port already taken is an error, 1.
func TestVersionJSON(t *testing.T) {
	w := newWorld(t)
	w.expect(0, "", []string{"version", "--json"}, `{"name":"claude-mem","version":"`+version+`"}`)
	w.expect(2, "claude-mem version: unexpected \"x\"\n…", []string{"version", "x"})
	w.expect(2, "claude-mem help: one command at a time\n…", []string{"help", "a", "b"})
}

func TestTerminalWidthOffATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w := terminalWidth(f); w != 0 {
		t.Errorf("a file is %d columns wide, want 0", w)
	}
}
