//go:build linux

package tests

// What the observer is shown (issue 23, "Capture the turn's conclusion" and "Every batch
// knows what is already recorded"), as the built binary does it with the fake claude,
// whose stdin records hold each run's message: a batch gets the prompts and answers of
// its turns and no other turn's, the titles already recorded, and a repeated title is
// counted as a duplicate; the final run gets the last answer; a trivial session starts no
// run.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// stdinText is the message a fake run was given (its stream-json user line).
func stdinText(t *testing.T, rec fakeproto.Record) string {
	t.Helper()
	var line struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(rec.Stdin)), &line); err != nil {
		t.Fatalf("fake run stdin %q: %v", rec.Stdin, err)
	}
	return line.Message.Content
}

// turn feeds one turn: the prompt, a tool use, and the Stop carrying the answer.
func (h *harness) turn(sid string, n int) {
	h.t.Helper()
	h.prompt(sid, fmt.Sprintf("turn %d: MARK-P%02d go on", n, n))
	h.toolUse(sid, fmt.Sprintf("make step%02d", n))
	f := h.base(sid)
	f["last_assistant_message"] = fmt.Sprintf("Turn %d done. MARK-A%02d concluded.", n, n)
	if out := h.hookMode(fixtureEvent(h.t, "Stop-basic.json", f), nil); out != "" {
		h.t.Fatalf("Stop printed %q", out)
	}
}

func TestTurns_BatchesSeeTheirTurnsAndWhatIsRecorded(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	// Stop starts nothing: each batch is run here, synchronously.
	h.env["CLAUDE_MEM_BATCH_EVENTS"], h.env["CLAUDE_MEM_BATCH_WAIT"] = "1000", "100000"
	const finding = "<observation><type>discovery</type><title>The upload retry races the timeout</title><narrative>n</narrative></observation>"
	h.setScenario(fakeproto.Scenario{Answer: finding})
	sid := "turns"

	h.turn(sid, 1)
	h.turn(sid, 2)
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	h.turn(sid, 3)
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	if r := h.observe(sid, nil); r.code != 0 { // nothing pending: no run
		t.Fatalf("observe: %+v", r)
	}
	if r := h.runIn(h.work, nil, nil, "observe", "--session", sid, "--final"); r.code != 0 {
		t.Fatalf("observe --final: %+v", r)
	}
	recs := h.records()
	if len(recs) != 3 {
		t.Fatalf("%d fake runs, want 3 (two batches, the summary; the third observe had nothing to do)", len(recs))
	}
	first, second, final := stdinText(t, recs[0]), stdinText(t, recs[1]), stdinText(t, recs[2])
	has := func(name, text string, want bool, marks ...string) {
		t.Helper()
		for _, m := range marks {
			if strings.Contains(text, m) != want {
				t.Errorf("%s run: has %s = %v, want %v", name, m, !want, want)
			}
		}
	}
	has("first", first, true, "MARK-P01", "MARK-A01", "MARK-P02", "MARK-A02", "<assistant_answer")
	has("first", first, false, "MARK-P03", "MARK-A03", "<recorded")
	has("second", second, true, "MARK-P03", "MARK-A03",
		"<recorded_observations>\n<recorded type=\"discovery\">The upload retry races the timeout</recorded>\n</recorded_observations>")
	has("second", second, false, "MARK-P01", "MARK-A01", "MARK-P02", "MARK-A02")
	has("final", final, true, "MARK-A03", "The session has ended")
	if sp := recs[0].Flags.SystemPrompt; sp == nil || !strings.Contains(*sp, "Do not write any of them again") {
		t.Error("the instructions do not say not to repeat what is recorded")
	}
	// The second batch and the summary gave the same finding again: counted, not stored.
	if n := h.count(`SELECT count(*) FROM observations WHERE session_id = ?`, sid); n != 1 {
		t.Errorf("%d observations stored, want 1 (the repeats are duplicates)", n)
	}
	if n := h.count(`SELECT coalesce(sum(duplicates), 0) FROM runs WHERE session_id = ?`, sid); n != 2 {
		t.Errorf("%d duplicates counted, want 2", n)
	}
	if n := h.count(`SELECT count(*) FROM answers WHERE session_id = ?`, sid); n != 3 {
		t.Errorf("%d answers stored, want 3", n)
	}
}

// A session without tool use whose prompts and answers are under 1,000 characters starts
// no run and owes no summary; its prompt stays searchable. The control, the same session
// with a longer prompt, gets its summary run.
func TestTurns_TrivialSessionCostsNothing(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.setScenario(fakeproto.Scenario{Answer: "<summary><request>r</request></summary>"})
	// chat is one turn without tool use, then SessionEnd under the reaper: what it left
	// running has ended when it returns.
	chat := func(sid, prompt string) []adoptedProc {
		h.prompt(sid, prompt)
		f := h.base(sid)
		f["last_assistant_message"] = "Hello! What shall we work on?"
		h.hookMode(fixtureEvent(t, "Stop-basic.json", f), nil)
		_, procs := h.reaped(fixtureEvent(t, "SessionEnd-other.json", h.base(sid)), nil)
		return procs
	}
	if procs := chat("hello", "hello xyzzy-greeting"); len(procs) != 0 {
		t.Errorf("SessionEnd of a trivial session left %+v running, want nothing started", procs)
	}
	// A final run started anyway (SessionStart's retry, by hand) spawns nothing either.
	if r := h.runIn(h.work, nil, nil, "observe", "--session", "hello", "--final"); r.code != 0 {
		t.Fatalf("observe --final: %+v", r)
	}
	if n := len(h.records()); n != 0 {
		t.Fatalf("a trivial session started %d observer runs, want none", n)
	}
	if n := h.count(`SELECT count(*) FROM sessions WHERE id = 'hello' AND final_pending = 0 AND ended_at IS NOT NULL`); n != 1 {
		t.Error("the trivial session did not end, or still owes a summary")
	}
	found := false
	for _, hit := range h.search("xyzzy", nil) {
		found = found || (hit.Kind == "prompt" && hit.Session == "hello")
	}
	if !found {
		t.Error("the trivial session's prompt is not searchable")
	}

	// The control: the same without tool use, but over 1,000 characters.
	if procs := chat("long", "explain the ledger "+strings.Repeat("in detail ", 100)); len(procs) != 1 || !isObserveFor(procs[0], "long") {
		t.Errorf("SessionEnd of the control session left %+v, want its final observer", procs)
	}
	if recs := h.records(); len(recs) != 1 || !strings.Contains(stdinText(t, recs[0]), "The session has ended") {
		t.Fatalf("the control session ran %d times, want one summary run", len(recs))
	}
}
