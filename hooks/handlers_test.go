package hooks_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/store"
)

var ctx = context.Background()

func sessionStartFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixturesDir(t), "SessionStart-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no SessionStart fixtures: %v", err)
	}
	return files
}

func TestSessionStartAnswersTheExactShapeForEveryFixture(t *testing.T) {
	for _, f := range sessionStartFixtures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t)
			res := decodeSessionStart(t, h.run(data))
			if res.HasSystemMessage {
				t.Errorf("systemMessage %q present with no notice", res.SystemMessage)
			}
			if want := "# claude-mem: project — no memory yet"; res.Context != want {
				t.Errorf("additionalContext = %q, want %q", res.Context, want)
			}
			if h.claudeChecks != 1 {
				t.Errorf("ClaudeCheck called %d times, want 1 live check", h.claudeChecks)
			}

			h.claudeErr = &claudebin.NotFoundError{}
			res = decodeSessionStart(t, h.run(data))
			line := notice.SetupNotFound(h.deps.Hook())
			if res.SystemMessage != line {
				t.Errorf("systemMessage = %q, want %q", res.SystemMessage, line)
			}
			if want := line + "\n# claude-mem: project — no memory yet"; res.Context != want {
				t.Errorf("additionalContext = %q, want %q", res.Context, want)
			}
		})
	}
}

func TestSessionStartHasASystemMessageExactlyWhenThereIsANotice(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		setup  func(h *harness)
		want   string // prefix of systemMessage; "" = no systemMessage at all
		checks int    // ClaudeCheck calls expected
	}{
		{name: "healthy", checks: 1},
		{name: "claude missing", setup: func(h *harness) { h.claudeErr = &claudebin.NotFoundError{} },
			want: "claude-mem: setup required — claude CLI not found", checks: 1},
		{name: "claude unspawnable", setup: func(h *harness) {
			h.claudeErr = &claudebin.UnspawnableError{Path: "/x/claude", Err: errors.New("permission denied")}
		}, want: "claude-mem: setup required — claude CLI at /x/claude cannot be started: permission denied", checks: 1},
		{name: "auth failed", setup: func(h *harness) {
			h.health.Auth = health.Auth{State: health.StateFailed, Source: "env", Reason: "401"}
		}, want: "claude-mem: auth failed — env: 401", checks: 1},
		{name: "settings error", env: []string{envname.ContextObservations, "lots"},
			want: "claude-mem: settings error — CLAUDE_MEM_CONTEXT_OBSERVATIONS=lots", checks: 1},
		{name: "observer disabled hides setup and auth", env: []string{envname.MaxConcurrentAgents, "0"}, setup: func(h *harness) {
			h.claudeErr = &claudebin.NotFoundError{}
			h.health.Auth = health.Auth{State: health.StateFailed, Source: "env", Reason: "401"}
		}, checks: 0},
		{name: "store unavailable", setup: func(h *harness) {
			h.openStore = func() (*store.DB, error) { return nil, errors.New("file is not a database") }
		}, want: "claude-mem: memory unavailable — file is not a database", checks: 1},
		{name: "data dir unavailable", setup: func(h *harness) {
			h.deps.DataDirErr = errors.New("mkdir /ro/claude-mem: read-only file system")
		}, want: "claude-mem: memory unavailable — mkdir /ro/claude-mem: read-only file system", checks: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.env...)
			if tc.setup != nil {
				tc.setup(h)
			}
			res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"source": "startup"})))
			if tc.want == "" {
				if res.HasSystemMessage {
					t.Errorf("systemMessage = %q, want none", res.SystemMessage)
				}
				if strings.Contains(res.Context, "claude-mem: setup") || strings.Contains(res.Context, "auth failed") {
					t.Errorf("additionalContext carries a notice: %q", res.Context)
				}
			} else {
				if !strings.HasPrefix(res.SystemMessage, tc.want) || strings.Contains(res.SystemMessage, "\n") {
					t.Errorf("systemMessage = %q, want one line starting %q", res.SystemMessage, tc.want)
				}
				if !strings.HasPrefix(res.Context, res.SystemMessage+"\n") {
					t.Errorf("additionalContext = %q, want the notice first", res.Context)
				}
			}
			if h.claudeChecks != tc.checks {
				t.Errorf("ClaudeCheck called %d times, want %d", h.claudeChecks, tc.checks)
			}
			if h.deps.DataDirErr != nil && h.openStoreCalls != 0 {
				t.Errorf("OpenStore called %d times with the data dir unavailable", h.openStoreCalls)
			}
		})
	}
}

// seedMyproj stores two observations and a summary of session "old" in myproj, and an
// observation of another project.
func seedMyproj(t *testing.T, h *harness) {
	t.Helper()
	h.withDB(func(db *store.DB) {
		for id, p := range map[string]string{"old": "myproj", "else": "other"} {
			memtest.Start(t, db, store.Session{ID: id, Project: p, Cwd: "/x/" + p, StartedAt: t0.Add(-2 * time.Hour)})
		}
		obs := []store.Observation{
			{SessionID: "old", Project: "myproj", Type: "bugfix", Title: "Fixed the parser crash", At: t0.Add(-time.Hour)},
			{SessionID: "old", Project: "myproj", Type: "decision", Title: "Chose WAL mode", At: t0.Add(-30 * time.Minute)},
			{SessionID: "else", Project: "other", Type: "feature", Title: "OTHER-PROJECT-SECRET", At: t0.Add(-time.Minute)},
		}
		sum := &store.Summary{SessionID: "old", Project: "myproj", Request: "make the parser robust", Learned: "gjson validates first", At: t0.Add(-20 * time.Minute)}
		memtest.Complete(t, db, "run-seed", obs, sum)
	})
}

const myprojStory = `# claude-mem: myproj — memory of past sessions
## Mon 30 Nov 2026
### 08:00 make the parser robust (session old)
- 1 09:00 [bugfix] Fixed the parser crash
- 2 09:30 [decision] Chose WAL mode
Learned: gjson validates first
` + notice.SearchHint

func TestSessionStartInjectsOnlyThisProjectsMemory(t *testing.T) {
	h := newHarness(t)
	seedMyproj(t, h)
	res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "new", "source": "startup"})))
	if res.Context != myprojStory {
		t.Errorf("additionalContext:\n%s\nwant\n%s", res.Context, myprojStory)
	}
	if strings.Contains(res.Context, "OTHER-PROJECT-SECRET") {
		t.Errorf("another project's observation was injected:\n%s", res.Context)
	}
	if want := "claude-mem: 2 observations from 1 session of myproj loaded"; res.SystemMessage != want {
		t.Errorf("systemMessage %q, want %q", res.SystemMessage, want)
	}
	if n := h.count("sessions", "id = 'new' AND project = 'myproj' AND cwd = ?", h.projDir); n != 1 {
		t.Errorf("SessionStart recorded %d session rows for 'new', want 1", n)
	}
}

// TestSessionStartContextIsStable: hours later, in another session, an unchanged memory
// gives the same bytes (Claude Code's prompt cache keeps them); a new observation changes
// them.
func TestSessionStartContextIsStable(t *testing.T) {
	h := newHarness(t)
	seedMyproj(t, h)
	first := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "new", "source": "startup"}))).Context
	h.now = h.now.Add(7*time.Hour + 13*time.Minute)
	second := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "newer", "source": "startup"}))).Context
	if second != first || first != myprojStory {
		t.Fatalf("context changed with the clock alone:\n%s\n----\n%s", first, second)
	}
	h.withDB(func(db *store.DB) {
		obs := []store.Observation{{SessionID: "old", Project: "myproj", Type: "change", Title: "Added a flag", At: t0}}
		memtest.Complete(t, db, "run-more", obs, nil)
	})
	if third := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "newest", "source": "startup"}))).Context; third == first {
		t.Fatal("a new observation left the context unchanged")
	}
}

// TestSessionStartLoadedMessage: the line that says memory loaded follows the notices,
// is absent with no memory and when CLAUDE_MEM_LOADED_MESSAGE is off, and the context is
// the same either way.
func TestSessionStartLoadedMessage(t *testing.T) {
	loaded := "claude-mem: 2 observations from 1 session of myproj loaded"
	for _, tc := range []struct {
		name     string
		env      []string
		seed     bool
		claude   error
		want     string
		hasSysMs bool
	}{
		{name: "on, memory", seed: true, want: loaded, hasSysMs: true},
		{name: "off, memory", env: []string{envname.LoadedMessage, "false"}, seed: true},
		{name: "on, no memory", want: ""},
		{name: "on, memory and a notice", seed: true, claude: &claudebin.NotFoundError{}, want: "NOTICE\n" + loaded, hasSysMs: true},
		{name: "off, memory and a notice", env: []string{envname.LoadedMessage, "false"}, seed: true, claude: &claudebin.NotFoundError{}, want: "NOTICE", hasSysMs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.env...)
			if tc.seed {
				seedMyproj(t, h)
			}
			h.claudeErr = tc.claude
			res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "new", "source": "startup"})))
			line := notice.SetupNotFound(h.deps.Hook())
			want := strings.Replace(tc.want, "NOTICE", line, 1)
			if res.SystemMessage != want || res.HasSystemMessage != tc.hasSysMs {
				t.Errorf("systemMessage %q (present %v), want %q", res.SystemMessage, res.HasSystemMessage, want)
			}
			story := myprojStory
			if !tc.seed {
				story = "# claude-mem: myproj — no memory yet"
			}
			if tc.claude != nil {
				story = line + "\n" + story
			}
			if res.Context != story {
				t.Errorf("additionalContext:\n%s\nwant\n%s", res.Context, story)
			}
		})
	}
}

func TestUserPromptSubmitStoresThePromptWithoutPrivateSpans(t *testing.T) {
	h := newHarness(t)
	if out := h.run(readFixture(t, "UserPromptSubmit-prompt.json")); out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
	sid := "b1423f95-4b1a-43c5-b9b9-c914faaa4144"
	if n := h.count("prompts", "session_id = ? AND project = 'project' AND text = 'hello there' AND at = ?", sid, t0.UnixNano()); n != 1 {
		t.Errorf("fixture prompt rows = %d, want 1", n)
	}
	if n := h.count("sessions", "id = ? AND project = 'project' AND cwd = '/home/user/project' AND started_at = ?", sid, t0.UnixNano()); n != 1 {
		t.Errorf("fixture session rows = %d, want 1", n)
	}

	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "deploy with <private>TOKEN-123</private> please\n<PRIVATE>also\nhidden"}))
	if got := h.query("SELECT text FROM prompts WHERE session_id = 's1'"); got != "deploy with  please" {
		t.Errorf("stored prompt = %q, want the private spans removed", got)
	}
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"session_id": "s2", "prompt": "  <private>all of it</private> "}))
	if n := h.count("prompts", "session_id = 's2'"); n != 0 {
		t.Errorf("an all-private prompt stored %d rows, want 0", n)
	}
	if strings.Contains(h.log.String(), "TOKEN-123") || strings.Contains(h.log.String(), "all of it") {
		t.Errorf("private text reached the log:\n%s", h.log.String())
	}
}

func TestUserPromptSubmitSkipsOnlyAWholeTaskNotification(t *testing.T) {
	h := newHarness(t)
	h.run(readFixture(t, "UserPromptSubmit-task-notification.json"))
	if n := h.totalRows(); n != 0 {
		t.Errorf("the real task-notification fixture stored %d rows, want 0", n)
	}
	for i, tc := range []struct {
		prompt string
		stored bool
	}{
		{"what does a <task-notification> tag mean?", true},
		{"<task-notification>\n<status>completed</status>\n</task-notification>\nnow summarise it", true},
		{"look: <task-notification>x</task-notification>", true},
		{"\n  <task-notification>\n<status>completed</status>\n</task-notification>\n ", false},
	} {
		sid := fmt.Sprintf("tn%d", i)
		h.run(h.event(hooks.UserPromptSubmit, map[string]any{"session_id": sid, "prompt": tc.prompt}))
		if got := h.count("prompts", "session_id = ?", sid) == 1; got != tc.stored {
			t.Errorf("prompt %q: stored = %v, want %v", tc.prompt, got, tc.stored)
		}
	}
}

func TestPostToolUseStoresOnePendingEventPerToolUse(t *testing.T) {
	h := newHarness(t)
	for _, f := range []string{"PostToolUse-Bash.json", "PostToolUse-Read.json", "PostToolUse-Write.json",
		"PostToolUse-Agent-async-launch.json", "PostToolUseFailure-Bash-exit3.json"} {
		data := readFixture(t, f)
		for range 2 { // a retried delivery of the same tool use is not a second event
			if out := h.run(data); out != "" {
				t.Errorf("%s: stdout = %q, want nothing", f, out)
			}
		}
	}
	if n := h.count("events"); n != 5 {
		t.Errorf("events = %d, want 5 (one per fixture, retries deduplicated)", n)
	}
	if n := h.count("events", "state = 'pending' AND attempts = 0 AND at = ?", t0.UnixNano()); n != 5 {
		t.Errorf("pending events stamped with the clock = %d, want 5", n)
	}
	if n := h.count("events", `hook = 'PostToolUse' AND tool_name = 'Bash' AND tool_use_id = 'toolu_0000_2'
		AND is_error = 0 AND cwd = '/home/user/project' AND project = 'project'
		AND input LIKE '%echo bash-ran%' AND response LIKE '%"stdout": "bash-ran"%'`); n != 1 {
		t.Errorf("Bash fixture event not stored as captured")
	}
	if n := h.count("events", `hook = 'PostToolUseFailure' AND tool_use_id = 'toolu_0002_0' AND is_error = 1
		AND response = ?`, "Exit code 3\nfailing"); n != 1 {
		t.Errorf("PostToolUseFailure not stored with its error text as the response")
	}
}

func TestPostToolUseShortensFieldsOver16KiB(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("x", 40<<10)
	h.run(h.event(hooks.PostToolUse, map[string]any{
		"tool_name": "Read", "tool_use_id": "t1",
		"tool_input": map[string]any{"file_path": "/a"}, "tool_response": map[string]any{"content": long},
	}))
	resp, _ := h.query("SELECT response FROM events WHERE tool_use_id = 't1'").(string)
	wantResp := clip.HeadTail(`{"content":"`+long+`"}`, hooks.MaxField)
	if resp != wantResp {
		t.Errorf("stored response is %d bytes, want clip.HeadTail's %d", len(resp), len(wantResp))
	}
	if !strings.HasPrefix(resp, `{"content":"xxx`) || !strings.HasSuffix(resp, `xxx"}`) || !markerRE.MatchString(resp) {
		t.Errorf("stored response does not keep head and tail around the marker: %.60q…", resp)
	}
	if in := h.query("SELECT input FROM events WHERE tool_use_id = 't1'"); in != `{"file_path":"/a"}` {
		t.Errorf("short input = %q, want it whole", in)
	}
}

func TestPostToolUseSkipsConfiguredTools(t *testing.T) {
	run := func(h *harness, tool string) bool {
		sid := "skip-" + tool
		for _, ev := range []string{hooks.PostToolUse, hooks.PostToolUseFailure} {
			h.run(h.event(ev, map[string]any{"session_id": sid, "tool_name": tool, "tool_use_id": ev + tool, "error": "e"}))
		}
		n := h.count("events", "session_id = ?", sid)
		if n != 0 && n != 2 {
			t.Errorf("%s: %d events, want 0 or 2", tool, n)
		}
		if n == 0 && h.count("sessions", "id = ?", sid) != 0 {
			t.Errorf("%s: skipped tool recorded a session row", tool)
		}
		return n == 2
	}
	h := newHarness(t)
	for _, tool := range []string{"TodoWrite", "AskUserQuestion", "ListMcpResourcesTool", "Skill"} {
		if run(h, tool) {
			t.Errorf("default CLAUDE_MEM_SKIP_TOOLS: %s stored", tool)
		}
	}
	if !run(h, "Bash") {
		t.Errorf("default CLAUDE_MEM_SKIP_TOOLS: Bash not stored")
	}
	h = newHarness(t, envname.SkipTools, " Bash , Read ")
	for tool, stored := range map[string]bool{"Bash": false, "Read": false, "TodoWrite": true, "bash": true} {
		if got := run(h, tool); got != stored {
			t.Errorf("CLAUDE_MEM_SKIP_TOOLS=Bash,Read: %s stored = %v, want %v", tool, got, stored)
		}
	}
}

func TestStopStartsTheObserverOnlyWithPendingEvents(t *testing.T) {
	h := newHarness(t)
	stop := h.event(hooks.Stop, nil)
	if out := h.run(stop); out != "" || len(h.observed) != 0 {
		t.Fatalf("Stop with nothing captured: stdout %q, observers %v; want none", out, h.observed)
	}
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "hi"}))
	if h.run(stop); len(h.observed) != 0 {
		t.Fatalf("Stop with only a prompt started %v; prompts are not pending events", h.observed)
	}
	h.run(h.toolEvent("s2", "other-session"))
	if h.run(stop); len(h.observed) != 0 {
		t.Fatalf("Stop started %v for another session's pending event", h.observed)
	}
	h.run(h.toolEvent("s1", "t1"))
	if out := h.run(stop); out != "" {
		t.Errorf("Stop printed %q", out)
	}
	if want := []hooks.ObserveRequest{{SessionID: "s1"}}; !slices.Equal(h.observed, want) {
		t.Fatalf("observers = %v, want %v", h.observed, want)
	}
	h.withDB(func(db *store.DB) {
		if _, err := db.Claim(ctx, "s1", "run-1", 100, t0); err != nil {
			t.Fatal(err)
		}
		memtest.Complete(t, db, "run-1", nil, nil)
	})
	h.observed = nil
	if h.run(stop); len(h.observed) != 0 {
		t.Errorf("Stop after the events were observed started %v", h.observed)
	}
}

func TestObserverIsNeverStartedWhenMaxConcurrentAgentsIsZero(t *testing.T) {
	h := newHarness(t, envname.MaxConcurrentAgents, "0")
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "hi"}))
	h.run(h.toolEvent("s1", "t1"))
	h.run(h.toolEvent("old", "t2"))
	h.now = t0.Add(time.Hour)
	h.run(h.event(hooks.Stop, nil))
	h.run(h.event(hooks.SessionEnd, map[string]any{"reason": "other"}))
	decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "s3"})))
	if len(h.observed) != 0 {
		t.Errorf("observers started with CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0: %v", h.observed)
	}
	if n := h.count("events", "state = 'pending'"); n != 2 {
		t.Errorf("pending events = %d, want 2 (captured, waiting for search-only mode to end)", n)
	}
	if n := h.count("sessions", "id = 's1' AND ended_at = ?", t0.Add(time.Hour).UnixNano()); n != 1 {
		t.Errorf("SessionEnd did not record the end time with the observer disabled")
	}
}

func TestSessionEndStartsAFinalRunWhenTheSessionNeedsASummary(t *testing.T) {
	h := newHarness(t)
	end := func(sid string) []hooks.ObserveRequest {
		h.observed = nil
		if out := h.run(h.event(hooks.SessionEnd, map[string]any{"session_id": sid, "reason": "other"})); out != "" {
			t.Errorf("SessionEnd printed %q", out)
		}
		return h.observed
	}
	if got := end("nothing"); len(got) != 0 {
		t.Errorf("SessionEnd of a session that captured nothing started %v", got)
	}
	if n := h.count("sessions", "id = 'nothing'"); n != 0 {
		t.Errorf("SessionEnd created a row for a session never seen")
	}

	// A trivial session (no tool event, under store.TrivialChars of text) owes nothing.
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"session_id": "hello", "prompt": "hello"}))
	h.run(h.event(hooks.Stop, map[string]any{"session_id": "hello", "last_assistant_message": "Hello! How can I help?"}))
	if got := end("hello"); len(got) != 0 {
		t.Errorf("SessionEnd of a trivial session started %v", got)
	}
	if n := h.count("sessions", "id = 'hello' AND final_pending = 0 AND ended_at IS NOT NULL"); n != 1 {
		t.Errorf("the trivial session's end was not recorded, or it owes a summary")
	}

	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "explain the store"}))
	h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": strings.Repeat("The store keeps memory in SQLite. ", 30)}))
	h.now = t0.Add(time.Minute)
	if got, want := end("s1"), []hooks.ObserveRequest{{SessionID: "s1", Final: true}}; !slices.Equal(got, want) {
		t.Errorf("SessionEnd with a prompt and a long answer: observers = %v, want %v", got, want)
	}
	if n := h.count("sessions", "id = 's1' AND ended_at = ?", t0.Add(time.Minute).UnixNano()); n != 1 {
		t.Errorf("SessionEnd did not record the end time")
	}

	h.withDB(func(db *store.DB) {
		sum := &store.Summary{SessionID: "s1", Project: "myproj", Request: "explain the store", At: t0.Add(2 * time.Minute)}
		memtest.Complete(t, db, "run-final", nil, sum)
	})
	h.now = t0.Add(3 * time.Minute)
	if got := end("s1"); len(got) != 0 {
		t.Errorf("SessionEnd with everything already summarised started %v", got)
	}
	h.run(h.toolEvent("s1", "t-late"))
	h.now = t0.Add(4 * time.Minute)
	if got, want := end("s1"), []hooks.ObserveRequest{{SessionID: "s1", Final: true}}; !slices.Equal(got, want) {
		t.Errorf("SessionEnd with a pending event after the summary: observers = %v, want %v", got, want)
	}
}

// TestSessionStartReapsOrphans: SessionStart looks for observer children a killed
// `hook observe` left running (DESIGN.md §18); the other events do not.
func TestSessionStartReapsOrphans(t *testing.T) {
	h := newHarness(t)
	h.run(h.toolEvent("s1", "t1"))
	if h.reaps != 0 {
		t.Fatalf("PostToolUse looked for orphans")
	}
	decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"source": "startup"})))
	if h.reaps != 1 {
		t.Errorf("SessionStart looked for orphans %d times, want 1", h.reaps)
	}
}

func TestSessionStartStartsAtMostFourObserversForStalePendingSessions(t *testing.T) {
	h := newHarness(t)
	sessions := []string{"s6", "s2", "s5", "s1", "s4", "s3"}
	for _, sid := range sessions {
		h.run(h.toolEvent(sid, "t-"+sid))
	}
	start := h.event(hooks.SessionStart, map[string]any{"session_id": "fresh", "source": "startup"})

	h.now = t0.Add(hooks.StaleAfter - time.Second)
	decodeSessionStart(t, h.run(start))
	if len(h.observed) != 0 {
		t.Fatalf("SessionStart %v before the events were %v old started %v", h.now.Sub(t0), hooks.StaleAfter, h.observed)
	}

	h.now = t0.Add(hooks.StaleAfter + time.Second)
	res := decodeSessionStart(t, h.run(start))
	if res.Context == "" {
		t.Errorf("SessionStart lost its context while starting observers")
	}
	want := []hooks.ObserveRequest{{SessionID: "s1"}, {SessionID: "s2"}, {SessionID: "s3"}, {SessionID: "s4"}}
	if !slices.Equal(h.observed, want) {
		t.Errorf("observers = %v, want the first four stale sessions, non-final: %v", h.observed, want)
	}

	// A failed start is logged; the answer is unchanged and events stay pending.
	h.observed, h.observeErr = nil, errors.New("setsid: no such file")
	res2 := decodeSessionStart(t, h.run(start))
	if res2 != res || len(h.observed) != 4 || !h.hasLog("error", "starting the observer failed") {
		t.Errorf("a failing StartObserver changed the answer or was not logged: %+v, %v", res2, h.observed)
	}
	if n := h.count("events", "state = 'pending'"); n != 6 {
		t.Errorf("pending events = %d, want 6", n)
	}
}

func TestSessionStartRestartsSessionsWhoseClaimedEventsWereStranded(t *testing.T) {
	h := newHarness(t)
	h.run(h.toolEvent("lost", "t1"))
	h.run(h.toolEvent("lost", "t2"))
	h.withDB(func(db *store.DB) { // an observer claimed the events, then was killed
		if _, err := db.Claim(ctx, "lost", "run-killed", 100, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	})
	start := h.event(hooks.SessionStart, map[string]any{"session_id": "fresh"})
	h.now = t0.Add(time.Minute + hooks.StaleAfter - time.Second)
	decodeSessionStart(t, h.run(start))
	if len(h.observed) != 0 {
		t.Fatalf("a claim younger than %v was restarted: %v", hooks.StaleAfter, h.observed)
	}
	h.now = t0.Add(time.Minute + hooks.StaleAfter + time.Second)
	decodeSessionStart(t, h.run(start))
	if want := []hooks.ObserveRequest{{SessionID: "lost"}}; !slices.Equal(h.observed, want) {
		t.Errorf("observers = %v, want one restart of the stranded session: %v", h.observed, want)
	}
}

func TestDroppedAndRefusedEventsStoreNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		setup func(h *harness) map[string]any // the fields that make the event ours or refused
	}{
		{name: "marker env", env: []string{envname.Internal, "1"}},
		{name: "cwd inside data dir", setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": mkdir(t, h.dataDir, "observer-sessions", "run-1")}
		}},
		{name: "transcript inside data dir", setup: func(h *harness) map[string]any {
			return map[string]any{"transcript_path": filepath.Join(h.dataDir, "observer-sessions", "run-1", "t.jsonl")}
		}},
		{name: "cwd inside executable dir", setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": mkdir(t, h.exeDir, "sub")}
		}},
		{name: "cwd inside plugin root", env: []string{"CLAUDE_PLUGIN_ROOT", "/opt/plugins/claude-mem"}, setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": "/opt/plugins/claude-mem/hooks"}
		}},
		{name: "cwd inside ~/.claude/plugins", setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": mkdir(t, h.home, ".claude", "plugins", "cache", "x")}
		}},
		{name: "version-named dir", setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": mkdir(t, filepath.Dir(h.projDir), "13.12.4")}
		}},
		{name: "v-prefixed version dir", setup: func(h *harness) map[string]any {
			return map[string]any{"cwd": mkdir(t, filepath.Dir(h.projDir), "v2.1.0")}
		}},
		{name: "filesystem root", setup: func(h *harness) map[string]any { return map[string]any{"cwd": "/"} }},
		{name: "excluded project", env: []string{envname.ExcludedProjects, "other,myp*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.env...)
			var f map[string]any
			if tc.setup != nil {
				f = tc.setup(h)
			}
			with := func(extra map[string]any) map[string]any {
				m := map[string]any{}
				for k, v := range f {
					m[k] = v
				}
				for k, v := range extra {
					m[k] = v
				}
				return m
			}
			if out := h.run(h.event(hooks.SessionStart, with(map[string]any{"source": "startup"}))); out != emptySessionStart {
				t.Errorf("SessionStart = %q, want %q", out, emptySessionStart)
			}
			for _, ev := range []map[string]any{
				{"hook_event_name": hooks.UserPromptSubmit, "prompt": "hello"},
				{"hook_event_name": hooks.PostToolUse, "tool_name": "Bash", "tool_use_id": "a", "tool_input": map[string]any{}},
				{"hook_event_name": hooks.PostToolUseFailure, "tool_name": "Bash", "tool_use_id": "b", "error": "x"},
				{"hook_event_name": hooks.Stop},
				{"hook_event_name": hooks.SessionEnd, "reason": "other"},
			} {
				if out := h.run(h.event(ev["hook_event_name"].(string), with(ev))); out != "" {
					t.Errorf("%s printed %q", ev["hook_event_name"], out)
				}
			}
			if n := h.totalRows(); n != 0 {
				t.Errorf("%d rows stored, want nothing", n)
			}
			// SessionStart opens the store for its notices (memory unavailable, budget);
			// no other event of a refused cwd does.
			if h.openStoreCalls > 1 || len(h.observed) != 0 {
				t.Errorf("OpenStore calls %d, observers %v; want SessionStart's at most, and no observer", h.openStoreCalls, h.observed)
			}
		})
	}
}

func TestDroppedStopAndSessionEndDoNotStartObserversForPendingEvents(t *testing.T) {
	h := newHarness(t)
	h.run(h.toolEvent("s1", "t1"))
	h.env[envname.Internal] = "1" // the same session seen from our own observer's environment
	h.run(h.event(hooks.Stop, nil))
	h.run(h.event(hooks.SessionEnd, map[string]any{"reason": "other"}))
	if len(h.observed) != 0 {
		t.Errorf("observers started for dropped events: %v", h.observed)
	}
	if n := h.count("sessions", "ended_at IS NOT NULL"); n != 0 {
		t.Errorf("a dropped SessionEnd recorded an end time")
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAPanicInsideAHandlerIsRecovered(t *testing.T) {
	boom := func() (*store.DB, error) { panic("BOOM-open-store") }
	for _, tc := range []struct {
		name  string
		event string
		setup func(h *harness)
	}{
		{"SessionStart OpenStore", hooks.SessionStart, func(h *harness) { h.openStore = boom }},
		{"SessionStart ClaudeCheck", hooks.SessionStart, func(h *harness) {
			h.deps.ClaudeCheck = func(health.Health) error { panic("BOOM-claude-check") }
		}},
		{"SessionStart LoadHealth", hooks.SessionStart, func(h *harness) { h.loadHlth = panicWith("BOOM-health") }},
		{"SessionStart StartObserver", hooks.SessionStart, func(h *harness) {
			h.run(h.toolEvent("stale", "t1"))
			h.now = t0.Add(time.Hour)
			h.startObserver = panicWith("BOOM-start")
		}},
		// The capturing hooks never open the store: their clock is what they call.
		{"UserPromptSubmit Now", hooks.UserPromptSubmit, func(h *harness) { h.deps.Now = func() time.Time { panic("BOOM-now") } }},
		{"PostToolUse Now", hooks.PostToolUse, func(h *harness) { h.deps.Now = func() time.Time { panic("BOOM-now") } }},
		{"PostToolUseFailure Now", hooks.PostToolUseFailure, func(h *harness) { h.deps.Now = func() time.Time { panic("BOOM-now") } }},
		{"Stop OpenStore", hooks.Stop, func(h *harness) { h.openStore = boom }},
		{"Stop StartObserver", hooks.Stop, func(h *harness) {
			h.run(h.toolEvent("s1", "t1"))
			h.startObserver = panicWith("BOOM-start")
		}},
		{"SessionEnd OpenStore", hooks.SessionEnd, func(h *harness) { h.openStore = boom }},
		{"SessionEnd StartObserver", hooks.SessionEnd, func(h *harness) {
			h.run(h.toolEvent("s1", "t1"))
			h.startObserver = panicWith("BOOM-start")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			out := h.run(h.event(tc.event, map[string]any{"prompt": "p", "tool_name": "Bash", "tool_use_id": "x", "error": "e"}))
			want := ""
			if tc.event == hooks.SessionStart {
				want = emptySessionStart
			}
			if out != want {
				t.Errorf("stdout = %q, want %q", out, want)
			}
			if !h.hasLog("error", "hook panicked", `"event":"`+tc.event+`"`, "BOOM-") {
				t.Errorf("no ERROR log line for the recovered panic:\n%s", h.log.String())
			}
		})
	}
}

func TestBadInputIsAnsweredQuietlyAndLoggedWithoutThePayload(t *testing.T) {
	for _, tc := range []struct {
		name, in, problem string
		sessionStart      bool
	}{
		{"empty", "", "empty input", false},
		{"whitespace", " \n\t ", "empty input", false},
		{"not JSON", "PAYLOAD-SECRET here", "not valid JSON", false},
		{"truncated", `{"hook_event_name":"SessionStart","cwd":"/p","prompt":"PAYLOAD-SECRET`, "not valid JSON", false},
		{"array", `["PAYLOAD-SECRET"]`, "not a JSON object", false},
		{"string", `"PAYLOAD-SECRET"`, "not a JSON object", false},
		{"event missing", `{"session_id":"s","cwd":"/p","prompt":"PAYLOAD-SECRET"}`, "hook_event_name missing", false},
		{"event not a string", `{"hook_event_name":1,"prompt":"PAYLOAD-SECRET"}`, "hook_event_name is not a string", false},
		{"cwd missing", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"PAYLOAD-SECRET"}`, "cwd missing", false},
		{"cwd relative", `{"hook_event_name":"PostToolUse","session_id":"s","cwd":"rel","tool_input":"PAYLOAD-SECRET"}`, "cwd is not an absolute path", false},
		{"SessionStart cwd missing", `{"hook_event_name":"SessionStart","session_id":"s","x":"PAYLOAD-SECRET"}`, "cwd missing", true},
		{"SessionStart cwd relative", `{"hook_event_name":"SessionStart","session_id":"s","cwd":"a/b","x":"PAYLOAD-SECRET"}`, "cwd is not an absolute path", true},
		{"SessionStart session_id missing", `{"hook_event_name":"SessionStart","cwd":"/p","x":"PAYLOAD-SECRET"}`, "session_id missing", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			out := h.run([]byte(tc.in))
			want := ""
			if tc.sessionStart {
				want = emptySessionStart
			}
			if out != want {
				t.Errorf("stdout = %q, want %q", out, want)
			}
			if !h.hasLog("warn", "bad hook input", tc.problem) {
				t.Errorf("no WARN naming %q:\n%s", tc.problem, h.log.String())
			}
			if strings.Contains(h.log.String(), "PAYLOAD-SECRET") {
				t.Errorf("the payload reached the log:\n%s", h.log.String())
			}
			if h.openStoreCalls != 0 || h.totalRows() != 0 || len(h.observed) != 0 {
				t.Errorf("bad input touched the store or started an observer")
			}
		})
	}
}

func TestUnknownEventsAreAnsweredWithNothing(t *testing.T) {
	for _, name := range []string{"PreToolUse", "SubagentStop", "Notification", "SomethingNew", "sessionstart", ""} {
		h := newHarness(t)
		if out := h.run(h.event(name, map[string]any{"prompt": "p", "tool_name": "Bash"})); out != "" {
			t.Errorf("%q: stdout = %q, want nothing", name, out)
		}
		if h.openStoreCalls != 0 || len(h.observed) != 0 {
			t.Errorf("%q: touched the store or started an observer", name)
		}
	}
	// Every fixture of an event hook mode does not handle is answered with nothing.
	files, _ := filepath.Glob(filepath.Join(fixturesDir(t), "*.json"))
	h := newHarness(t)
	for _, f := range files {
		base := filepath.Base(f)
		ev, _, _ := strings.Cut(base, "-")
		if slices.Contains([]string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PostToolUse, hooks.PostToolUseFailure, hooks.Stop, hooks.SessionEnd}, ev) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if out := h.run(data); out != "" {
			t.Errorf("%s: stdout = %q, want nothing", base, out)
		}
	}
	if h.openStoreCalls != 0 {
		t.Errorf("unhandled fixtures opened the store %d times", h.openStoreCalls)
	}
}

func TestInputOver16MiBIsDiscardedWithItsSize(t *testing.T) {
	h := newHarness(t)
	prefix := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/p","prompt":"`
	data := make([]byte, 0, hooks.MaxInput+100)
	data = append(data, prefix...)
	for len(data) < hooks.MaxInput+1 {
		data = append(data, 'x')
	}
	data = append(data, `"}`...)
	if out := h.run(data); out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
	if !h.hasLog("warn", fmt.Sprintf(`"bytes":%d`, len(data)), "larger than 16 MiB") {
		t.Errorf("no WARN naming the size %d:\n%.500s", len(data), h.log.String())
	}
	if h.openStoreCalls != 0 {
		t.Errorf("oversized input reached the store")
	}
	// Exactly 16 MiB is still read and handled.
	data = append(data[:0], prefix...)
	for len(data) < hooks.MaxInput-2 {
		data = append(data, 'y')
	}
	data = append(data, `"}`...)
	h.run(data)
	if n := h.count("prompts"); n != 1 {
		t.Errorf("a 16 MiB event stored %d prompts, want 1", n)
	}
}

func TestDataDirUnavailableStoresNothingAndNeverFails(t *testing.T) {
	h := newHarness(t)
	h.deps.DataDirErr = errors.New("mkdir /ro/claude-mem: read-only file system")
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "hi"}))
	h.run(h.toolEvent("s1", "t1"))
	h.run(h.event(hooks.Stop, nil))
	h.run(h.event(hooks.SessionEnd, nil))
	if h.openStoreCalls != 0 || len(h.observed) != 0 {
		t.Errorf("OpenStore calls %d, observers %v with the data dir unavailable", h.openStoreCalls, h.observed)
	}
	if !h.hasLog("error", "data dir unavailable") {
		t.Errorf("no ERROR log for the unavailable data dir:\n%s", h.log.String())
	}
}
