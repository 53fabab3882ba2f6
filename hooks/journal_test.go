package hooks_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/store"
)

// journalBytes is everything waiting in the harness's journal dirs.
func (h *harness) journalBytes() string {
	h.t.Helper()
	var b strings.Builder
	for _, d := range h.journal.Dirs() {
		m, _ := filepath.Glob(filepath.Join(d, "*"))
		for _, p := range m {
			data, err := os.ReadFile(p)
			if err != nil {
				h.t.Fatal(err)
			}
			b.Write(data)
		}
	}
	return b.String()
}

// The capturing hooks only append to the journal: no database is opened or created, and
// the next reader stores what they captured.
func TestCaptureNeverOpensTheStore(t *testing.T) {
	h := newHarness(t)
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "fix the login form"}))
	h.run(h.toolEvent("s1", "t1"))
	h.run(h.event(hooks.PostToolUseFailure, map[string]any{"tool_name": "Bash", "tool_use_id": "t2", "error": "exit 3"}))
	if h.openStoreCalls != 0 {
		t.Fatalf("capturing hooks opened the store %d times", h.openStoreCalls)
	}
	if _, err := os.Stat(h.dbPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a capturing hook created the database: %v", err)
	}
	if b, _ := h.journal.Pending(); b.Records != 3 {
		t.Fatalf("journal holds %d records, want 3", b.Records)
	}
	if n := h.count("events"); n != 2 {
		t.Errorf("events after ingestion = %d, want 2", n)
	}
	if n := h.count("prompts", "text = 'fix the login form'"); n != 1 {
		t.Errorf("prompts after ingestion = %d, want 1", n)
	}
	if b, _ := h.journal.Pending(); b.Records != 0 {
		t.Errorf("journal still holds %d records after ingestion", b.Records)
	}
}

// A database that will not take the journal (here: cannot be opened) costs nothing: Stop
// logs it, the records wait, and the next Stop that can open it stores them once.
func TestStopWithoutTheStoreKeepsTheJournal(t *testing.T) {
	h := newHarness(t)
	h.run(h.toolEvent("s1", "t1"))
	h.openStore = func() (*store.DB, error) { return nil, errors.New("database is locked") }
	h.run(h.event(hooks.Stop, nil))
	if b, _ := h.journal.Pending(); b.Records != 1 {
		t.Fatalf("journal holds %d records after a failed Stop, want 1", b.Records)
	}
	if !h.hasLog("error", "database unavailable") {
		t.Errorf("the failed Stop left no ERROR line:\n%s", h.log.String())
	}
	h.openStore = nil
	h.observed = nil
	h.run(h.event(hooks.Stop, nil))
	if len(h.observed) != 1 {
		t.Errorf("Stop after the store came back started %v, want one run", h.observed)
	}
	if n := h.count("events"); n != 1 {
		t.Errorf("events = %d, want 1", n)
	}
}

// Secrets in captured text are replaced before the journal line is written, and counted per
// kind once stored; with CLAUDE_MEM_REDACT_SECRETS=false (the control) they are kept.
func TestCaptureRedactsBeforeJournaling(t *testing.T) {
	cs := redacttest.Captured()
	var text strings.Builder
	for _, c := range cs {
		text.WriteString(c.Text + "\n")
	}
	for _, off := range []bool{false, true} {
		var env []string
		if off {
			env = []string{envname.RedactSecrets, "false"}
		}
		h := newHarness(t, env...)
		h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": "use " + cs[0].Text}))
		h.run(h.event(hooks.PostToolUse, map[string]any{
			"tool_name": "Bash", "tool_use_id": "t1",
			"tool_input": map[string]any{"command": "cat .env"}, "tool_response": map[string]any{"stdout": text.String()},
		}))
		leaks := redacttest.Leaks([]byte(h.journalBytes()), cs)
		if off {
			if len(leaks) != len(cs) {
				t.Errorf("redaction off: %d of %d canaries journaled, want all", len(leaks), len(cs))
			}
			continue
		}
		if len(leaks) != 0 {
			t.Errorf("journal holds canaries: %v", leaks)
		}
		kinds := map[string]bool{}
		for _, c := range cs {
			// The harness's json.Marshal writes & < > as \u0026…, which another rule then
			// names (Claude Code's JSON keeps them as they are): counted, not by this kind.
			if !strings.ContainsAny(c.Text, "&<>") {
				kinds[c.Kind] = true
			}
		}
		for k := range kinds {
			if n := h.count("redactions", "kind = ? AND project = 'myproj' AND day = '2026-11-30'", k); n != 1 {
				t.Errorf("kind %s: %d redactions rows, want 1", k, n)
			}
		}
		if got := h.query("SELECT sum(count) FROM redactions").(int64); got != int64(len(cs)+1) {
			t.Errorf("redactions counted %d, want %d (each canary, and the prompt's)", got, len(cs)+1)
		}
	}
}

// A refused or excluded cwd withholds memory, never notices (DESIGN.md §11): SessionStart
// shows the settings error and stores nothing of its own.
func TestRefusedCwdKeepsItsNotices(t *testing.T) {
	h := newHarness(t, envname.ExcludedProjects, "myproj", envname.ContextObservations, "lots")
	res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, nil)))
	if !strings.HasPrefix(res.Context, "claude-mem: settings error — CLAUDE_MEM_CONTEXT_OBSERVATIONS=lots") {
		t.Errorf("context = %q, want the settings error", res.Context)
	}
	if strings.Contains(res.Context, "# claude-mem") {
		t.Errorf("an excluded project got memory: %q", res.Context)
	}
	if n := h.totalRows(); n != 0 {
		t.Errorf("%d rows stored for an excluded project", n)
	}
}

// SessionStart says when the data dir is nearly full and when records have waited 10
// minutes; neither line shows for a roomy disk and a fresh record (the control).
func TestSessionStartJournalNotices(t *testing.T) {
	for _, tc := range []struct {
		name        string
		age         time.Duration
		free        uint64
		stuck, full bool
	}{
		{"fresh, room", time.Minute, 1 << 30, false, false},
		{"stuck", journal.StuckAfter + time.Minute, 1 << 30, true, false},
		{"full", time.Minute, 3 << 20, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.run(h.toolEvent("old", "t1"))
			h.openStore = func() (*store.DB, error) { return nil, errors.New("database is locked") }
			h.deps.FreeBytes = func(string) (uint64, error) { return tc.free, nil }
			h.now = t0.Add(tc.age)
			res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "new"})))
			if got := strings.Contains(res.Context, "claude-mem: events not stored — 2 waiting in the journal since "); got != tc.stuck {
				t.Errorf("events-not-stored line %v, want %v:\n%s", got, tc.stuck, res.Context)
			}
			if got := strings.Contains(res.Context, "claude-mem: disk full — "+h.dataDir+" has 3 MiB free; new events cannot be kept"); got != tc.full {
				t.Errorf("disk-full line %v, want %v:\n%s", got, tc.full, res.Context)
			}
			if got := h.health.LowSpace != nil; got != tc.full {
				t.Errorf("health low_space flag %v, want %v", got, tc.full)
			}
			// Room again: the flag clears itself at the next SessionStart.
			h.deps.FreeBytes = func(string) (uint64, error) { return 1 << 30, nil }
			h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "new"}))
			if h.health.LowSpace != nil {
				t.Errorf("low_space flag kept with 1 GiB free: %+v", h.health.LowSpace)
			}
		})
	}
}

// Stop journals the turn's answer (last_assistant_message) as every captured text is:
// redacted, then clipped to MaxAnswer keeping head and tail; an empty one is not stored.
// The control (CLAUDE_MEM_REDACT_SECRETS=false) keeps the secrets.
func TestStopJournalsTheTurnsAnswer(t *testing.T) {
	cs := redacttest.Captured()
	var secrets strings.Builder
	for _, c := range cs {
		secrets.WriteString(c.Text + "\n")
	}
	answer := "HEAD-OF-ANSWER " + secrets.String() + strings.Repeat("filler ", 4000) + " the fix: retry once. TAIL-OF-ANSWER"
	for _, off := range []bool{false, true} {
		var env []string
		if off {
			env = []string{envname.RedactSecrets, "false"}
		}
		h := newHarness(t, env...)
		h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": "  \n"}))
		h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": answer}))
		h.ingest()
		if n := h.count("answers"); n != 1 {
			t.Fatalf("off=%v: %d answers stored, want 1 (the blank one is not)", off, n)
		}
		stored := h.query("SELECT text FROM answers").(string)
		if !strings.HasPrefix(stored, "HEAD-OF-ANSWER ") || !strings.HasSuffix(stored, "TAIL-OF-ANSWER") ||
			len(stored) > hooks.MaxAnswer+64 || !markerRE.MatchString(stored) {
			t.Errorf("off=%v: stored answer of %d bytes, want head and tail around a cut within %d", off, len(stored), hooks.MaxAnswer)
		}
		leaks := redacttest.Leaks([]byte(h.journalBytes()+stored), cs)
		switch {
		case off && len(leaks) == 0:
			t.Error("redaction off: no canary kept; the control shows nothing")
		case !off && len(leaks) != 0:
			t.Errorf("answer holds canaries: %v", leaks)
		}
	}
}

// The answer's private spans go as the prompt's do (StripPrivate): an answer that quotes a
// prompt's <private> span keeps nothing of it, and an answer that is only one is not
// stored. The control: the prompt and answer without tags keep the word.
func TestStopAnswerDropsPrivateSpans(t *testing.T) {
	h := newHarness(t)
	h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": "I used < private >hunter2</private > as asked. Done."}))
	h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": "<private>hunter2</private>"}))
	h.run(h.event(hooks.Stop, map[string]any{"last_assistant_message": "control: the word otter stays."}))
	all := h.journalBytes()
	if n := h.count("answers"); n != 2 {
		t.Fatalf("%d answers stored, want 2 (the one that is only a private span is not)", n)
	}
	all += h.query("SELECT group_concat(text, ' | ') FROM answers").(string)
	if strings.Contains(all, "hunter2") {
		t.Errorf("a private span of an answer was kept:\n%s", all)
	}
	if !strings.Contains(all, "otter") || !strings.Contains(all, "as asked. Done.") {
		t.Errorf("control: the answers' other words were not kept:\n%s", all)
	}
}

// Issue 21: a token that starts a line (after \n, \r\n or \t, which JSON spells \n…) is
// redacted in the tool input, the tool response, a failure's error text and the prompt; a
// response over MaxField is redacted before it is cut, and the cut keeps no piece of a
// token. The control (redaction off) journals every token.
func TestCaptureRedactsATokenThatStartsALine(t *testing.T) {
	const token = "ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2o"
	seps := []string{"\n", "\r\n", "\t"}
	var lines strings.Builder
	for i, sep := range seps {
		fmt.Fprintf(&lines, "line%s%s%d", sep, token, i)
	}
	long := strings.Repeat("a ", hooks.MaxField/4-len(token)/4) + token + " " + strings.Repeat("b", 40<<10)
	for _, off := range []bool{false, true} {
		var env []string
		if off {
			env = []string{envname.RedactSecrets, "false"}
		}
		h := newHarness(t, env...)
		h.run(h.event(hooks.UserPromptSubmit, map[string]any{"prompt": lines.String()}))
		h.run(h.event(hooks.PostToolUse, map[string]any{
			"tool_name": "Bash", "tool_use_id": "t1",
			"tool_input": map[string]any{"command": lines.String()}, "tool_response": map[string]any{"stdout": lines.String()},
		}))
		h.run(h.event(hooks.PostToolUseFailure, map[string]any{"tool_name": "Bash", "tool_use_id": "t2",
			"tool_input": map[string]any{"command": "x"}, "error": lines.String()}))
		h.run(h.event(hooks.PostToolUse, map[string]any{"tool_name": "Read", "tool_use_id": "t3",
			"tool_input": map[string]any{"file_path": "/a"}, "tool_response": map[string]any{"content": long}}))
		j := h.journalBytes()
		for i := range seps {
			if n := strings.Count(j, token+strconv.Itoa(i)); off && n != 4 || !off && n != 0 {
				t.Errorf("redaction off %v: the token after separator %d journaled %d times", off, i, n)
			}
		}
		if !off && strings.Contains(j, token[:8]) {
			t.Errorf("a piece of the token cut at 16 KiB is journaled")
		}
	}
}
