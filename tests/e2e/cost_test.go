//go:build unix

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// TestObserverSystemPrompt pins, against the real CLI, that the observer's request carries
// our instructions as its system text and not Claude Code's default system prompt; the
// control (no --system-prompt) shows the default one and how much larger it is.
func TestObserverSystemPrompt(t *testing.T) {
	t.Parallel()
	system := func(argv []string) string {
		s := newSandbox(t)
		s.Mock.Handle(mockapi.Any, mockapi.Text("observed"))
		if r := s.run(argv, userLine("the events"), s.env()); r.exit != 0 {
			t.Fatalf("exit %d; stderr:\n%s", r.exit, r.stderr)
		}
		msgs := s.Mock.Messages()
		if len(msgs) != 1 {
			t.Fatalf("%d Messages requests, want 1", len(msgs))
		}
		return msgs[0].System()
	}
	// A sentence of Claude Code 2.1.328's default system prompt.
	const defaultMarker = "You are an agent working with the user toward their goals"
	def := system(observerArgv())
	ours := system(append(observerArgv(), "--system-prompt", prompt.System()))
	if !strings.Contains(def, defaultMarker) || strings.Contains(def, prompt.System()) {
		t.Fatalf("control: the default system text (%d characters) does not look like Claude Code's", len(def))
	}
	// The CLI puts its billing header and one SDK line (about 140 characters) before ours;
	// everything else is our text, character for character.
	if !strings.HasSuffix(ours, prompt.System()) || strings.Contains(ours, defaultMarker) || len(ours)-len(prompt.System()) > 200 {
		t.Fatalf("system text with --system-prompt (%d characters) is not our instructions:\n%.600s", len(ours), ours)
	}
	t.Logf("system text: %d characters with --system-prompt (ours %d), %d with Claude Code's default", len(ours), len(prompt.System()), len(def))
}

// costTurns is the scripted session's length: one Bash tool use per turn.
const costTurns = 30

// costRun is what one scripted session's observer sent the API.
type costRun struct {
	requests       int
	chars          int // system text and user message, every request
	fixedOverhead  int // the same minus the observed data (<observed_session>…</observed_session>)
	eventsObserved int
}

// TestObserverCostComparison measures, with the real CLI and the mock API, the observer's
// requests and characters for one scripted 30-turn session (one tool use per turn),
// before issue 14 (a run per Stop, instructions in the user message under Claude Code's
// default system prompt) and after (batches of 10, --system-prompt). Each turn waits for
// the observers it started, as a person's pace would allow them to finish. It takes a few
// minutes, so it runs on demand: CLAUDE_MEM_E2E_COST=1.
func TestObserverCostComparison(t *testing.T) {
	if os.Getenv("CLAUDE_MEM_E2E_COST") != "1" {
		t.Skip("a measurement of a few minutes; run with CLAUDE_MEM_E2E_COST=1")
	}
	t.Parallel()
	before := costSession(t, map[string]string{"CLAUDE_MEM_BATCH_EVENTS": "1", "CLAUDE_MEM_OBSERVER_SYSTEM_PROMPT": "false"})
	after := costSession(t, nil)
	t.Logf("before: %d observer requests, %d characters, %d of fixed overhead (%d a request), %d events observed",
		before.requests, before.chars, before.fixedOverhead, before.fixedOverhead/before.requests, before.eventsObserved)
	t.Logf("after:  %d observer requests, %d characters, %d of fixed overhead (%d a request), %d events observed",
		after.requests, after.chars, after.fixedOverhead, after.fixedOverhead/after.requests, after.eventsObserved)
	if before.eventsObserved != costTurns || after.eventsObserved != costTurns {
		t.Fatalf("events observed: before %d, after %d; want %d each", before.eventsObserved, after.eventsObserved, costTurns)
	}
	if after.requests*5 > before.requests {
		t.Errorf("requests %d → %d: less than 5× fewer", before.requests, after.requests)
	}
	if 2*(after.fixedOverhead/after.requests) > before.fixedOverhead/before.requests {
		t.Errorf("fixed overhead a request %d → %d: less than 50%% fewer", before.fixedOverhead/before.requests, after.fixedOverhead/after.requests)
	}
}

// streamSession runs one stream-json `claude -p` session of one turn per prompt in the
// project, each turn waiting for the observers its Stop started (as a person's pace would
// allow them to finish), then for SessionEnd's final run.
func (p *product) streamSession(env settings.Env, prompts []string) {
	t := p.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.cli, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--allowedTools", "Bash", "--model", "haiku")
	cmd.Dir, cmd.Env, cmd.Stderr = p.Cwd, env.List(), io.Discard
	cmd.WaitDelay = 5 * time.Second
	stdin, stdout := testkit.StartPiped(t, cmd)
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	for _, prompt := range prompts {
		if _, err := io.WriteString(stdin, userLine(prompt)); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() { // the turn's result line: its Stop hook has run
			if strings.Contains(lines.Text(), `"type":"result"`) {
				break
			}
		}
		p.quiesce()
	}
	stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the scripted session: %v", err)
	}
	p.quiesce() // SessionEnd's final run
}

// costSession installs the product, runs the scripted session with extra settings in the
// user's environment, and measures the observer's requests.
func costSession(t *testing.T, extra map[string]string) costRun {
	t.Helper()
	p := newProduct(t)
	p.Mock.Handle(isObserver, mockapi.Text("<observation><type>change</type><title>t</title><narrative>n</narrative></observation>"))
	p.Mock.Handle(mockapi.ToolResult, mockapi.Text("turn done"))
	p.Mock.Handle(mockapi.Any, mockapi.ToolUse("Bash", map[string]string{"command": "echo step", "description": "one step"}))
	p.install()
	env := p.userEnv(true)
	delete(env, "CLAUDE_MEM_BATCH_EVENTS") // the product's defaults unless extra says otherwise
	maps.Copy(env, extra)
	prompts := make([]string, costTurns)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("turn %d: run the next step", i+1)
	}
	p.streamSession(env, prompts)

	var r costRun
	for _, req := range p.observerRequests() {
		user := req.MessageText("user")
		r.requests++
		r.chars += len(req.System()) + len(user)
		data := 0
		if i, j := strings.Index(user, "<observed_session"), strings.LastIndex(user, "</observed_session>"); i >= 0 && j > i {
			data = j + len("</observed_session>") - i
		}
		r.fixedOverhead += len(req.System()) + len(user) - data
		r.eventsObserved += strings.Count(user, "<event id=")
	}
	return r
}
