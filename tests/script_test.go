package tests

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"
)

// TestScripts runs tests/testdata/script/*.txtar against the built hook. Each script gets
// HOME=$WORK/home, CLAUDE_MEM_DATA_DIR=$WORK/data, a PATH holding only the hook, and
// $FIXTURES pointing at the real Claude Code 2.1.328 hook inputs.
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
			"fixture": cmdFixture,
			"dbcount": cmdDBCount,
			"mkexec":  cmdMkexec,
			"genfile": cmdGenfile,
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
	for _, kv := range args[2:] {
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

// genfile OUT KIND writes inputs a txtar cannot hold: big17m (a 17 MiB event) and badutf8
// (a prompt with invalid UTF-8 bytes inside a JSON string).
func cmdGenfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genfile OUT big17m|badutf8")
	}
	var data []byte
	switch args[1] {
	case "big17m":
		head := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp/p","prompt":"`
		data = append([]byte(head), bytes.Repeat([]byte("x"), 17<<20-len(head)-2)...)
		data = append(data, '"', '}')
	case "badutf8":
		data = []byte("{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"s1\",\"cwd\":\"/tmp/p\",\"prompt\":\"bad \xff\xfe bytes\"}")
	default:
		ts.Fatalf("unknown kind %q", args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}
