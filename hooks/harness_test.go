package hooks_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// t0 is the harness clock's start.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// harness is one hook-mode environment: a real data dir and store in t.TempDir(), settings
// loaded from CLAUDE_MEM_DATA_DIR and the given env, and fakes for the process-touching
// dependencies that record every call.
type harness struct {
	t                       *testing.T
	dataDir, home, exeDir   string
	projDir                 string // a real project directory (basename "myproj")
	env                     settings.Env
	deps                    *hooks.Deps
	now                     time.Time
	log                     bytes.Buffer
	claudeErr               error // what ClaudeCheck answers
	claudeChecks            int
	health                  health.Health
	observed                []hooks.ObserveRequest
	synced                  []memsync.Direction // StartSync calls
	observeErr              error
	openStoreCalls          int
	openStore               func() (*store.DB, error) // nil: the real store in dataDir
	startObserver, loadHlth func()                    // optional hooks run inside the fakes (e.g. to panic)
	reaps                   int                       // ReapOrphans calls
	journal                 *journal.Journal
}

func newHarness(t *testing.T, kv ...string) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{
		t:       t,
		dataDir: filepath.Join(root, "data"),
		home:    filepath.Join(root, "home"),
		exeDir:  filepath.Join(root, "plugin", "bin"),
		projDir: filepath.Join(root, "work", "myproj"),
		now:     t0,
	}
	for _, d := range []string{h.home, h.exeDir, h.projDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A batch of 1: every Stop with a pending event starts a run, as the tests written
	// before batching expect; cost_test.go covers the batch rule itself.
	h.env = settings.Env{envname.DataDir: h.dataDir, "HOME": h.home, "PATH": "/usr/bin:/bin", envname.BatchEvents: "1"}
	for i := 0; i+1 < len(kv); i += 2 {
		h.env[kv[i]] = kv[i+1]
	}
	s, err := settings.Load(h.env, "", runtime.GOOS)
	if err != nil {
		t.Fatalf("settings.Load: %v", err)
	}
	if err := settings.EnsureDataDir(s.DataDir); err != nil {
		t.Fatal(err)
	}
	h.journal = journal.New(s.DataDir, "", filepath.Join(root, "cache"), filepath.Join(root, "tmp"), "", func() time.Time { return h.now })
	h.deps = &hooks.Deps{
		Settings: s, Journal: h.journal, Env: h.env, Home: h.home, GOOS: runtime.GOOS,
		Hook: func() string { return filepath.Join(h.exeDir, "hook") }, ExecutableDir: h.exeDir,
		Now: func() time.Time { return h.now },
		Log: zerolog.New(&h.log),
		Ingest: func(ctx context.Context, db *store.DB) error {
			return h.journal.IngestNoted(ctx, db, zerolog.New(&h.log))
		},
		OpenStore: func() (*store.DB, error) {
			h.openStoreCalls++
			if h.openStore != nil {
				return h.openStore()
			}
			return memory.Memory{DataDir: h.dataDir}.OpenWrite()
		},
		ClaudeCheck: func(health.Health) error { h.claudeChecks++; return h.claudeErr },
		LoadHealth: func() (health.Health, error) {
			if h.loadHlth != nil {
				h.loadHlth()
			}
			return h.health, nil
		},
		UpdateHealth: func(fn func(*health.Health)) error { fn(&h.health); return nil },
		StartObserver: func(id string, final bool) error {
			if h.startObserver != nil {
				h.startObserver()
			}
			h.observed = append(h.observed, hooks.ObserveRequest{SessionID: id, Final: final})
			return h.observeErr
		},
		ReapOrphans: func() { h.reaps++ },
		StartSync:   func(d memsync.Direction) error { h.synced = append(h.synced, d); return nil },
	}
	return h
}

func (h *harness) dbPath() string { return filepath.Join(h.dataDir, settings.DBFile) }

// run feeds one event to hooks.Run and returns stdout.
func (h *harness) run(input []byte) string {
	h.t.Helper()
	var out bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				h.t.Fatalf("hooks.Run let a panic escape: %v", r)
			}
		}()
		hooks.Run(context.Background(), h.deps, bytes.NewReader(input), &out)
	}()
	return out.String()
}

// event builds a hook event for the harness's project dir; fields override the defaults
// (session_id "s1", cwd projDir, a transcript under ~/.claude/projects).
func (h *harness) event(name string, fields map[string]any) []byte {
	h.t.Helper()
	m := map[string]any{
		"hook_event_name": name,
		"session_id":      "s1",
		"cwd":             h.projDir,
		"transcript_path": filepath.Join(h.home, ".claude", "projects", "-work-myproj", "s1.jsonl"),
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// toolEvent is a PostToolUse event with a distinct tool_use_id.
func (h *harness) toolEvent(session, toolUseID string) []byte {
	return h.event(hooks.PostToolUse, map[string]any{
		"session_id": session, "tool_name": "Bash", "tool_use_id": toolUseID,
		"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a b"},
	})
}

// ingest stores what the hooks journaled, as the next reader would; with nothing journaled
// it creates no database.
func (h *harness) ingest() {
	h.t.Helper()
	if b, err := h.journal.Pending(); err != nil || b.Records == 0 {
		return
	}
	db, err := memory.Memory{DataDir: h.dataDir}.OpenWrite()
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	if _, err := h.journal.Ingest(context.Background(), db); err != nil {
		h.t.Fatalf("ingest: %v", err)
	}
}

// count is the number of rows of table (optionally filtered) in the data dir's database,
// once what was journaled is ingested; a database never created counts as empty.
func (h *harness) count(table string, where ...any) int {
	h.t.Helper()
	h.ingest()
	if _, err := os.Stat(h.dbPath()); errors.Is(err, os.ErrNotExist) {
		return 0
	}
	db, err := sql.Open("sqlite", "file:"+h.dbPath()+"?mode=ro")
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	q := "SELECT count(*) FROM " + table
	var args []any
	if len(where) > 0 {
		q += " WHERE " + where[0].(string)
		args = where[1:]
	}
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// query returns the single value of a one-row, one-column query.
func (h *harness) query(q string, args ...any) any {
	h.t.Helper()
	h.ingest()
	db, err := sql.Open("sqlite", "file:"+h.dbPath()+"?mode=ro")
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	var v any
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return v
}

// withDB opens the real store for test setup, once what was journaled is ingested.
func (h *harness) withDB(fn func(*store.DB)) {
	h.t.Helper()
	h.ingest()
	db, err := memory.Memory{DataDir: h.dataDir}.OpenWrite()
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	fn(db)
}

// totalRows counts every captured row: nothing at all was stored when it is 0.
func (h *harness) totalRows() int {
	n := 0
	for _, tb := range []string{"sessions", "prompts", "events", "observations", "summaries"} {
		n += h.count(tb)
	}
	return n
}

// hasLog reports a log line at level whose JSON text contains every part.
func (h *harness) hasLog(level string, parts ...string) bool {
	for _, line := range strings.Split(h.log.String(), "\n") {
		if !strings.Contains(line, `"level":"`+level+`"`) {
			continue
		}
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
			return true
		}
	}
	return false
}

// sessionStartJSON decodes SessionStart's stdout, failing unless it is exactly one JSON
// object with exactly the keys of DESIGN.md §4.
type sessionStartOut struct {
	Context, SystemMessage string
	HasSystemMessage       bool
}

func decodeSessionStart(t *testing.T, out string) sessionStartOut {
	t.Helper()
	if !json.Valid([]byte(out)) {
		t.Fatalf("SessionStart stdout is not one valid JSON value: %q", out)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("SessionStart stdout is not a JSON object: %v: %q", err, out)
	}
	var res sessionStartOut
	for k := range top {
		switch k {
		case "hookSpecificOutput":
		case "systemMessage":
			res.HasSystemMessage = true
			if err := json.Unmarshal(top[k], &res.SystemMessage); err != nil {
				t.Fatalf("systemMessage is not a string: %s", top[k])
			}
		default:
			t.Errorf("unexpected top-level key %q in %s", k, out)
		}
	}
	var hso map[string]json.RawMessage
	if err := json.Unmarshal(top["hookSpecificOutput"], &hso); err != nil || hso == nil {
		t.Fatalf("hookSpecificOutput missing or not an object in %s", out)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range hso {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(keys, []string{"additionalContext", "hookEventName"}) {
		t.Errorf("hookSpecificOutput keys = %v, want exactly [additionalContext hookEventName]", keys)
	}
	var name string
	if err := json.Unmarshal(hso["hookEventName"], &name); err != nil || name != hooks.SessionStart {
		t.Errorf("hookEventName = %s, want \"SessionStart\"", hso["hookEventName"])
	}
	if err := json.Unmarshal(hso["additionalContext"], &res.Context); err != nil {
		t.Errorf("additionalContext is not a string: %s", hso["additionalContext"])
	}
	return res
}

// emptySessionStart is the exact answer when there is nothing to say (dropped event, bad
// input, recovered panic).
const emptySessionStart = `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}`

// panicWith makes a func that panics with msg.
func panicWith(msg string) func() { return func() { panic(msg) } }
