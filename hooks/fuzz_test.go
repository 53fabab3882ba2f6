package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// fuzzBadInputs are issue 2's bad inputs (and a few neighbours) as fuzz seeds.
var fuzzBadInputs = []string{
	"", " \t\r\n", "not json", "{", `{"hook_event_name":"SessionStart"`, "[]", `["SessionStart"]`,
	`"SessionStart"`, "42", "null", "{}", `{"session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":42,"session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":null}`,
	`{"hook_event_name":"SomethingNew","session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":"SessionStart","session_id":"s"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"rel/dir"}`,
	`{"hook_event_name":"SessionStart","cwd":"/p"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"C:\\Users\\me\\proj"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"\\\\srv\\share"}`,
	`{"hook_event_name":"SessionStart","hook_event_name":"Stop","session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":"Stop","hook_event_name":"SessionStart","session_id":"s","cwd":"/p"}`,
	`{"hook\u005fevent_name":"SessionStart","session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":"Session\u0053tart","session_id":"s","cwd":"/p"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/tmp/13.12.4"}`,
	"{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"s\",\"cwd\":\"/tmp/p\",\"prompt\":\"a\xffb\xc3\"}",
	"{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\xff\",\"cwd\":\"/tmp/p\xfe\"}",
	`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/tmp/p","prompt":"\ud800 <private>x"}`,
	`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/tmp/p","prompt":"<task-notification>x</task-notification>"}`,
	`{"hook_event_name":"PostToolUse","session_id":"s","cwd":"/tmp/p","tool_name":"Bash","tool_use_id":"t","tool_input":{"a":[1,2,{"b":null}]},"tool_response":"r"}`,
	`{"hook_event_name":"PostToolUseFailure","session_id":"s","cwd":"/tmp/p","tool_name":"Bash","error":7}`,
	`{"hook_event_name":"SessionEnd","session_id":"s","cwd":"/tmp/p","reason":"other"}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/tmp/p\u0000x"}`,
	"\ufeff{\"hook_event_name\":\"SessionStart\",\"session_id\":\"s\",\"cwd\":\"/p\"}",
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"} {}`,
	`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"}` + "\n",
}

// FuzzHookMode feeds arbitrary stdin to hooks.Run with a real store. It asserts that no
// panic happens (not even a recovered one), that stdout is empty or exactly one JSON
// object, that only a SessionStart event gets output, and that a SessionStart event (as an
// independent encoding/json reading of the input sees it) always gets the SessionStart
// object.
func FuzzHookMode(f *testing.F) {
	files, err := os.ReadDir(fixturesDir(f))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range files {
		if e.IsDir() {
			continue
		}
		f.Add(readFixture(f, e.Name()))
	}
	for _, s := range fuzzBadInputs {
		f.Add([]byte(s))
	}

	// One data dir and store per fuzz worker process; the store accumulates rows.
	root := f.TempDir()
	dataDir := filepath.Join(root, "data")
	env := settings.Env{envname.DataDir: dataDir, "HOME": filepath.Join(root, "home")}
	s, err := settings.Load(env, "", runtime.GOOS)
	if err != nil {
		f.Fatal(err)
	}
	if err := settings.EnsureDataDir(dataDir); err != nil {
		f.Fatal(err)
	}
	clock := t0
	j := journal.New(dataDir, "", "", "", "", func() time.Time { return clock })
	base := hooks.Deps{
		Settings: s, Journal: j,
		Ingest: func(ctx context.Context, db *store.DB) error { return j.IngestNoted(ctx, db, zerolog.Nop()) },
		Env:    env, Home: env["HOME"], GOOS: runtime.GOOS,
		Hook: func() string { return filepath.Join(root, "bin", "hook") }, ExecutableDir: filepath.Join(root, "bin"),
		Now:           func() time.Time { return clock },
		OpenStore:     memory.Memory{DataDir: dataDir}.OpenWrite,
		ClaudeCheck:   func(health.Health) error { return nil },
		LoadHealth:    func() (health.Health, error) { return health.Health{}, nil },
		StartObserver: func(string, bool) error { return nil },
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		clock = clock.Add(time.Minute) // so stale pending sessions come up too
		var logBuf, out bytes.Buffer
		d := base
		d.Log = zerolog.New(&logBuf)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("hooks.Run let a panic escape: %v", r)
				}
			}()
			hooks.Run(context.Background(), &d, bytes.NewReader(data), &out)
		}()
		if strings.Contains(logBuf.String(), "hook panicked") {
			t.Fatalf("a handler panicked (recovered):\n%s", logBuf.String())
		}
		got := out.String()
		names, obj := eventNames(data)
		isStart := obj && len(names) == 1 && names[0] == hooks.SessionStart
		switch {
		case got == "":
			if isStart {
				t.Fatalf("SessionStart input got no output")
			}
		default:
			var v map[string]json.RawMessage
			if !json.Valid(out.Bytes()) || json.Unmarshal(out.Bytes(), &v) != nil {
				t.Fatalf("stdout is not exactly one JSON object: %q", got)
			}
			for k := range v {
				if k != "hookSpecificOutput" && k != "systemMessage" {
					t.Fatalf("unexpected key %q in %q", k, got)
				}
			}
			var hso map[string]json.RawMessage
			if json.Unmarshal(v["hookSpecificOutput"], &hso) != nil || len(hso) != 2 ||
				string(hso["hookEventName"]) != `"SessionStart"` || hso["additionalContext"] == nil {
				t.Fatalf("output is not the SessionStart object: %q", got)
			}
			if !isStart && !(obj && containsStr(names, hooks.SessionStart)) {
				t.Fatalf("input that is not a SessionStart event (names %q) got output %q", names, got)
			}
		}
	})
}

// eventNames reads the input with encoding/json, independently of the product's gjson
// parser: obj reports a single valid top-level JSON object, and names holds every value of
// its top-level "hook_event_name" keys (a non-string value as "\x00non-string").
func eventNames(data []byte) (names []string, obj bool) {
	if !json.Valid(data) {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		if tok != "hook_event_name" {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = "\x00non-string"
		}
		names = append(names, s)
	}
	return names, true
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
