//go:build linux

package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// A summary SessionEnd asked for stays owed while the final run cannot write it (auth
// failed, which uses no attempt), the run that writes it counts and settles it, and a second
// final run started meanwhile writes no second summary.
func TestObserve_OwedSummary_CountedAndSettledByTheFinalRun(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.setScenario(fakeproto.Scenario{Status: 401})
	sid := "owed-summary"
	h.prompt(sid, "Rename the queue package")
	h.toolUse(sid, "git mv queue jobs")

	h.hookMode(fixtureEvent(t, "SessionEnd-other.json", h.base(sid)), nil)
	testkit.Eventually(t, 20*time.Second, "health.json auth=failed after the SessionEnd final run", func() bool {
		hl, err := health.Load(h.data)
		return err == nil && hl.Auth.State == "failed"
	})
	testkit.Eventually(t, 20*time.Second, "the detached observer to exit", func() bool { return len(procsIn(h.data)) == 0 })
	// An auth failure is no answer from the model: the summary stays owed, no attempt used.
	if n := h.count("SELECT count(*) FROM sessions WHERE id = ? AND final_pending = 1 AND final_attempts = 0", sid); n != 1 {
		t.Fatalf("after an auth-failed final run the summary is not owed with its attempts untouched")
	}

	// The credential is fixed and the pause cleared: the next final run writes the summary.
	h.setScenario(fakeproto.Scenario{Answer: "<summary><request>Rename the queue package</request>" +
		"<completed>queue is now jobs</completed></summary>"})
	// doctor --retry runs what waits now (detached), not at a session start 10 minutes on.
	if r := h.runIn(h.work, nil, nil, "doctor", "--retry"); !strings.Contains(r.stderr, "observer pause cleared; 1 observer run started for what waits") {
		t.Fatalf("doctor --retry: exit %d, stderr %q", r.code, r.stderr)
	}
	testkit.Eventually(t, 20*time.Second, "the summary written by the run doctor --retry started", func() bool {
		return h.count("SELECT count(*) FROM summaries WHERE session_id = ?", sid) == 1
	})
	testkit.Eventually(t, 20*time.Second, "the detached observer to exit", func() bool { return len(procsIn(h.data)) == 0 })
	if n := h.count("SELECT count(*) FROM sessions WHERE id = ? AND final_pending = 0 AND final_attempts = 1", sid); n != 1 {
		t.Fatalf("the final run that wrote the summary did not settle it (or did not count itself)")
	}
	runs := len(h.records())
	if r := h.runIn(h.work, nil, nil, "observe", "--session", sid, "--final"); r.code != 0 {
		t.Fatalf("second final observe: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := h.count("SELECT count(*) FROM summaries WHERE session_id = ?", sid); n != 1 || len(h.records()) != runs {
		t.Fatalf("a second final run after the summary was written: %d summaries, %d claude runs (want 1, %d)", n, len(h.records()), runs)
	}
}
