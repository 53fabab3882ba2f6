//go:build unix

package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// turnsCount is the scripted session's length: one Bash tool use per turn, so the default
// batch rule (10 pending events) runs the observer after turns 10, 20 and 30.
const turnsCount = 30

// TestObserverSeesTheTurns pins, with the real CLI and the mock API (issue 23), what the
// observer's requests carry: each batch the prompt and the answer (Stop's
// last_assistant_message) of exactly the turns it covers, each later batch the titles the
// earlier ones recorded, and the summary run the last answer. A "hello" session without
// tool use then sends the mock no observer request; the 30-turn session's requests are
// the control that the observer does run here.
func TestObserverSeesTheTurns(t *testing.T) {
	t.Parallel()
	p := newProduct(t)
	title := func(batch int) string { return fmt.Sprintf("Batch %d finding about the step runner", batch) }
	obs := func(batch int) mockapi.Reply {
		return mockapi.Text("<observation><type>discovery</type><title>" + title(batch) + "</title><narrative>n</narrative></observation>")
	}
	p.Mock.Handle(all(isObserver, isFinal), mockapi.Text("<summary><request>steps</request><learned>l</learned></summary>"))
	p.Mock.Handle(isObserver, obs(1), obs(2), obs(3))
	p.Mock.Handle(mockapi.BodyContains("MARK-HELLO"), mockapi.Text("Hello! What shall we work on?"))
	answers := make([]mockapi.Reply, turnsCount)
	for i := range answers {
		answers[i] = mockapi.Text(fmt.Sprintf("Step %d ran. MARK-A%02d: the runner echoes its step.", i+1, i+1))
	}
	p.Mock.Handle(mockapi.ToolResult, answers...)
	p.Mock.Handle(mockapi.Any, mockapi.ToolUse("Bash", map[string]string{"command": "echo step", "description": "one step"}))
	p.install()
	env := p.userEnv(true)
	delete(env, "CLAUDE_MEM_BATCH_EVENTS") // the product's default batch rule
	prompts := make([]string, turnsCount)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("turn %d: MARK-P%02d run the next step", i+1, i+1)
	}
	p.streamSession(env, prompts)

	var batches []string
	var final string
	for _, r := range p.observerRequests() {
		switch user := r.MessageText("user"); {
		case isFinal(&r):
			final = user
		case hasEvents(&r):
			batches = append(batches, user)
		}
	}
	if len(batches) != 3 || final == "" {
		t.Fatalf("%d batch requests and a final one: %v; want 3 and one", len(batches), final != "")
	}
	marks := regexp.MustCompile(`MARK-[PA]\d\d`)
	for b, user := range batches {
		var want []string
		for turn := 10*b + 1; turn <= 10*b+10; turn++ {
			want = append(want, fmt.Sprintf("MARK-P%02d", turn), fmt.Sprintf("MARK-A%02d", turn))
		}
		got := slices.Compact(slices.Sorted(slices.Values(marks.FindAllString(user, -1))))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("batch %d carries the markers %v; want those of turns %d-%d: %v", b+1, got, 10*b+1, 10*b+10, want)
		}
		if n := strings.Count(user, "<event id="); n != 10 {
			t.Errorf("batch %d carries %d events, want 10", b+1, n)
		}
		for earlier := 1; earlier <= 3; earlier++ {
			listed := strings.Contains(user, `<recorded type="discovery">`+title(earlier)+`</recorded>`)
			if listed != (earlier <= b) {
				t.Errorf("batch %d lists batch %d's title: %v, want %v", b+1, earlier, listed, earlier <= b)
			}
		}
	}
	if !strings.Contains(final, "MARK-A30") {
		t.Errorf("the summary request does not carry the last answer (MARK-A30)")
	}
	if n := len(p.column(`SELECT text FROM answers`)); n != turnsCount {
		t.Errorf("%d answers stored, want %d", n, turnsCount)
	}

	// A "hello" with no tool use: no observer request, the prompt stored.
	before := len(p.observerRequests())
	p.session("MARK-HELLO hello", env)
	p.quiesce()
	if n := len(p.observerRequests()); n != before {
		t.Errorf("the hello session sent %d observer requests, want none", n-before)
	}
	if got := p.column(`SELECT text FROM prompts WHERE text LIKE 'MARK-HELLO%'`); len(got) != 1 {
		t.Errorf("the hello prompt stored %d times, want once", len(got))
	}
}
