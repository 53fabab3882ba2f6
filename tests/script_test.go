package tests

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// TestScripts runs tests/testdata/script/*.txtar against the built hook. Each script gets
// HOME=$WORK/home, CLAUDE_MEM_DATA_DIR=$WORK/data, a PATH holding only the hook, and
// $FIXTURES pointing at the real Claude Code 2.1.328 hook inputs. The condition
// [claude-on-host] holds when a claude sits at a fixed install location outside HOME
// (/usr/local/bin, /opt/homebrew/bin) that no script can hide: scripts that need "no claude
// anywhere" skip then.
func TestScripts(t *testing.T) {
	if _, err := os.Stat(fixtures); err != nil {
		t.Fatalf("fixtures not found at %s (set CLAUDE_MEM_FIXTURES): %v", fixtures, err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("HOME", home)
			e.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			e.Setenv("CLAUDE_MEM_DATA_DIR", filepath.Join(e.WorkDir, "data"))
			e.Setenv("PATH", binDir)
			e.Setenv("FIXTURES", fixtures)
			e.Setenv("HOOK", hookBin)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fixture":   cmdFixture,
			"dbcount":   cmdDBCount,
			"globcount": cmdGlobCount,
			"mkexec":    cmdMkexec,
			"genfile":   cmdGenfile,

			"fakeclaude":  cmdFakeClaude,
			"fakerecords": cmdFakeRecords,
			"jsonget":     cmdJSONGet,
			"jsonlines":   cmdJSONLines,
			"sqlite":      cmdSQLite,
			"grepall":     cmdGrepAll,
			"exitcode":    cmdExitCode,
			"cmpbody":     cmdCmpBody,
		},
		Condition: func(cond string) (bool, error) {
			if cond != "claude-on-host" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			for _, p := range []string{"/usr/local/bin/claude", "/opt/homebrew/bin/claude"} {
				if _, err := os.Stat(p); err == nil {
					return true, nil
				}
			}
			return false, nil
		},
		RequireExplicitExec: true,
	})
}

// fixture NAME OUT [key=value ...] writes the fixture NAME to OUT with top-level string
// fields replaced (cwd=$WORK/proj …), so scripts run real inputs against real dirs.
func cmdFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fixture NAME OUT [key=value ...]")
	}
	data, err := os.ReadFile(filepath.Join(fixtures, args[0]))
	ts.Check(err)
	var m map[string]any
	ts.Check(json.Unmarshal(data, &m))
	setFields(ts, m, args[2:])
	out, err := json.Marshal(m)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
}

// dbcount TABLE N [WHERE] asserts the row count of a table in $CLAUDE_MEM_DATA_DIR's
// database; a missing database counts as zero rows.
func cmdDBCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: dbcount TABLE N [WHERE]")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	got := 0
	ingestJournal(ts)
	path := filepath.Join(ts.Getenv("CLAUDE_MEM_DATA_DIR"), "claude-mem.db")
	if _, err := os.Stat(path); err == nil {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		ts.Check(err)
		defer db.Close()
		q := "SELECT count(*) FROM " + args[0]
		if len(args) > 2 {
			q += " WHERE " + strings.Join(args[2:], " ")
		}
		ts.Check(db.QueryRow(q).Scan(&got))
	}
	if (got == want) == neg {
		ts.Fatalf("%s: %d rows, want %s%d", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// globcount PATTERN N asserts how many files match a glob (a journal's claims carry an id
// in their names).
func cmdGlobCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: globcount PATTERN N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	m, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if (len(m) == want) == neg {
		ts.Fatalf("%s: %d files %q, want %s%d", args[0], len(m), m, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// ingestJournal has the hook store what waits in the capture journal, as any reader does
// first (`hook search` ingests, then reads), with the script's environment.
func ingestJournal(ts *testscript.TestScript) {
	var env []string
	for _, k := range []string{"HOME", "PATH", "TMPDIR", "CLAUDE_MEM_DATA_DIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(hookBin, "search", "--limit", "1", "ingest")
	cmd.Env, cmd.Dir = env, ts.Getenv("WORK")
	if out, err := cmd.CombinedOutput(); err != nil {
		ts.Fatalf("hook search (to ingest the journal): %v\n%s", err, out)
	}
}

// mkexec PATH [CONTENT] creates an executable file (a stand-in claude that is never run by
// the commands under test unless the script says so).
func cmdMkexec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: mkexec PATH [CONTENT]")
	}
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	content := "#!/bin/sh\nexit 0\n"
	if len(args) > 1 {
		content = strings.Join(args[1:], " ") + "\n"
	}
	ts.Check(os.WriteFile(p, []byte(content), 0o755))
}

// genfile OUT KIND [key=value ...] writes inputs a txtar cannot hold: big17m (a 17 MiB
// event), badutf8 (a prompt with invalid UTF-8 bytes inside a JSON string) and bigtool (a
// PostToolUse Bash event whose stdout is 40 KiB: "HEAD-OF-OUTPUT", 40,960 'y', then
// "TAIL-OF-OUTPUT"; key=value replaces top-level string fields, as fixture does).
func cmdGenfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: genfile OUT big17m|badutf8|bigtool [key=value ...]")
	}
	var data []byte
	switch args[1] {
	case "big17m":
		head := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp/p","prompt":"`
		data = append([]byte(head), bytes.Repeat([]byte("x"), 17<<20-len(head)-2)...)
		data = append(data, '"', '}')
	case "badutf8":
		data = []byte("{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"s1\",\"cwd\":\"/tmp/p\",\"prompt\":\"bad \xff\xfe bytes\"}")
	case "bigtool":
		m := map[string]any{
			"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": "/tmp/p",
			"tool_name": "Bash", "tool_use_id": "toolu_big",
			"tool_input":    map[string]any{"command": "cat big.log"},
			"tool_response": map[string]any{"stdout": "HEAD-OF-OUTPUT " + strings.Repeat("y", 40<<10) + " TAIL-OF-OUTPUT", "stderr": ""},
		}
		setFields(ts, m, args[2:])
		var err error
		data, err = json.Marshal(m)
		ts.Check(err)
	default:
		ts.Fatalf("unknown kind %q", args[1])
	}
	if args[1] != "bigtool" && len(args) > 2 {
		ts.Fatalf("genfile %s takes no key=value", args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// setFields applies key=value arguments to a decoded event: the value replaces the
// top-level field as a string; the value <delete> removes the field.
func setFields(ts *testscript.TestScript, m map[string]any, kvs []string) {
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("bad key=value %q", kv)
		}
		if v == "<delete>" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
}

// The fake claude (tests/fakeclaude) is built once per test binary, outside PATH, and
// hard-linked (or copied) to where a script wants it: it reads its scenario beside
// os.Executable, so it must never be a symlink.
var (
	scriptFakeOnce sync.Once
	scriptFakeBin  string
	scriptFakeErr  error
)

func scriptFake() (string, error) {
	scriptFakeOnce.Do(func() {
		dir := filepath.Join(binDir, "fakeclaude-build")
		if scriptFakeErr = os.MkdirAll(dir, 0o755); scriptFakeErr != nil {
			return
		}
		scriptFakeBin = filepath.Join(dir, "claude-fake")
		scriptFakeErr = fakeproto.Build(scriptFakeBin)
	})
	return scriptFakeBin, scriptFakeErr
}

// fakeclaude PATH [SCENARIO] puts the fake claude at PATH (hard link, else a copy) and, when
// SCENARIO is given, writes it as the fake's scenario: inline JSON ('{"status":401}') or the
// name of a file holding it. Unknown scenario fields fail here, not in the fake. Run again
// on the same PATH to change the scenario: the binary (and so its size and mtime) stays.
func cmdFakeClaude(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: fakeclaude PATH [SCENARIO-JSON|SCENARIO-FILE]")
	}
	src, err := scriptFake()
	if err != nil {
		ts.Fatalf("building the fake claude: %v", err)
	}
	dst := ts.MkAbs(args[0])
	if _, err := os.Stat(dst); errors.Is(err, fs.ErrNotExist) {
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		if err := os.Link(src, dst); err != nil {
			ts.Check(testkit.CopyFile(src, dst, 0o755))
		}
	} else {
		ts.Check(err)
	}
	if len(args) == 1 {
		return
	}
	raw := args[1]
	if !strings.HasPrefix(strings.TrimSpace(raw), "{") {
		raw = ts.ReadFile(raw)
	}
	var sc fakeproto.Scenario
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		ts.Fatalf("bad scenario: %v", err)
	}
	ts.Check(fakeproto.WriteScenario(dst, sc))
	if _, err := fakeproto.LoadScenario(dst); err != nil {
		ts.Fatalf("scenario the fake would reject: %v", err)
	}
}

// fakerecords PATH N asserts that the fake at PATH was run exactly N times, and prints one
// line per run, oldest first: "outcome=<o> credential=<source> exit=<code>". Credential
// values are never printed.
func cmdFakeRecords(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: fakerecords PATH N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	recs, err := fakeproto.ReadRecords(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, r := range recs {
		fmt.Fprintf(ts.Stdout(), "outcome=%s credential=%s exit=%d\n", r.Outcome, r.Credential.Source, r.ExitCode)
	}
	if (len(recs) == want) == neg {
		ts.Fatalf("fake claude at %s ran %d times, want %s%d", args[0], len(recs), map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// jsonget PATH [FILE] prints the value at PATH in the JSON document FILE (default: the last
// command's stdout), which becomes stdout: a string as its text, anything else as compact
// JSON, then a newline. PATH is dot-separated; a segment is an object key, an array index,
// or key=value (the first array element whose field key is the string value). `! jsonget`
// asserts that PATH does not exist.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: jsonget PATH [FILE]")
	}
	file := "stdout"
	if len(args) == 2 {
		file = args[1]
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &doc); err != nil {
		ts.Fatalf("%s is not one JSON document: %v", file, err)
	}
	v, err := jsonPath(doc, args[0])
	if neg {
		if err == nil {
			ts.Fatalf("%s: %s exists (%v), want it absent", file, args[0], v)
		}
		return
	}
	if err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	if s, ok := v.(string); ok {
		fmt.Fprintln(ts.Stdout(), s)
		return
	}
	b, err := json.Marshal(v)
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), string(b))
}

func jsonPath(v any, path string) (any, error) {
	for _, seg := range strings.Split(path, ".") {
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[seg]
			if !ok {
				return nil, fmt.Errorf("no key %q (path %s)", seg, path)
			}
			v = next
		case []any:
			if k, want, ok := strings.Cut(seg, "="); ok {
				found := false
				for _, el := range cur {
					if m, ok := el.(map[string]any); ok && m[k] == want {
						v, found = el, true
						break
					}
				}
				if !found {
					return nil, fmt.Errorf("no element with %s (path %s)", seg, path)
				}
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, fmt.Errorf("no index %q in an array of %d (path %s)", seg, len(cur), path)
			}
			v = cur[i]
		default:
			return nil, fmt.Errorf("%q: not an object or array (path %s)", seg, path)
		}
	}
	return v, nil
}

// jsonlines N [FIELD=REGEXP ...] asserts that the last command's stdout is exactly N lines,
// each one JSON object, and that in every line each FIELD is a string matching REGEXP.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: jsonlines N [FIELD=REGEXP ...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	out := ts.ReadFile("stdout")
	var lines []string
	if out != "" {
		if !strings.HasSuffix(out, "\n") {
			ts.Fatalf("stdout does not end with a newline")
		}
		lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	if len(lines) != want {
		ts.Fatalf("stdout has %d lines, want %d", len(lines), want)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			ts.Fatalf("line %d is not a JSON object: %v: %s", i+1, err, l)
		}
		for _, fr := range args[1:] {
			f, pat, ok := strings.Cut(fr, "=")
			if !ok {
				ts.Fatalf("bad FIELD=REGEXP %q", fr)
			}
			s, ok := m[f].(string)
			if !ok || !regexp.MustCompile(pat).MatchString(s) {
				ts.Fatalf("line %d: %s = %v, want a string matching %q", i+1, f, m[f], pat)
			}
		}
	}
}

// sqlite QUERY... runs one read-only query on $CLAUDE_MEM_DATA_DIR's database and prints
// its rows, one per line, columns joined by "|" (NULL prints as NULL).
func cmdSQLite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: sqlite QUERY...")
	}
	path := filepath.Join(ts.Getenv("CLAUDE_MEM_DATA_DIR"), "claude-mem.db")
	if _, err := os.Stat(path); err != nil {
		ts.Fatalf("no database: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query(strings.Join(args, " "))
	ts.Check(err)
	defer rows.Close()
	cols, err := rows.Columns()
	ts.Check(err)
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		ts.Check(rows.Scan(ptrs...))
		parts := make([]string, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				parts[i] = "NULL"
			case []byte:
				parts[i] = string(v)
			default:
				parts[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(ts.Stdout(), strings.Join(parts, "|"))
	}
	ts.Check(rows.Err())
}

// grepall STRING PATH... asserts that STRING (literal, case-sensitive) occurs in some file
// at or under the PATHs; `! grepall` asserts it occurs in none of them. A missing PATH is
// an error, so a typo cannot make the negative form pass.
func cmdGrepAll(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: grepall STRING PATH...")
	}
	needle := []byte(args[0])
	var hits []string
	files := 0
	for _, root := range args[1:] {
		err := filepath.WalkDir(ts.MkAbs(root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			files++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(b, needle) {
				hits = append(hits, p)
			}
			return nil
		})
		ts.Check(err)
	}
	if files == 0 {
		ts.Fatalf("no files under %s", strings.Join(args[1:], " "))
	}
	switch {
	case neg && len(hits) > 0:
		ts.Fatalf("%q found in %s", args[0], strings.Join(hits, ", "))
	case !neg && len(hits) == 0:
		ts.Fatalf("%q found in none of %d files", args[0], files)
	}
}

// exitcode N PROGRAM [ARGS...] runs PROGRAM as exec does (stdin, stdout and stderr work the
// same) and asserts that its exit status is exactly N; exec alone cannot tell 1 from 2.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("running %s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmpbody A B compares two files from their second line on: two exports, whose header
// lines differ in their time.
func cmdCmpBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpbody A B")
	}
	body := func(name string) string {
		_, rest, _ := strings.Cut(ts.ReadFile(name), "\n")
		return rest
	}
	if a, b := body(args[0]), body(args[1]); a != b {
		ts.Fatalf("%s and %s differ after their first line:\n%s\n---\n%s", args[0], args[1], a, b)
	}
}
