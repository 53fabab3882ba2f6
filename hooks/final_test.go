package hooks_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/store"
)

// A summary SessionEnd asked for and no run wrote (the final run was paused or failed) is
// offered again by a SessionStart once the session has been over for StaleAfter, as a final
// run, until a final run completes or MaxFinalAttempts runs were started.
func TestSessionStartRetriesAnOwedSummary(t *testing.T) {
	h := newHarness(t)
	// Long enough not to be trivial (a trivial session owes no summary).
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"session_id": "ended", "prompt": strings.Repeat("refactor the queue ", 60)}))
	h.run(h.event(hooks.SessionEnd, map[string]any{"session_id": "ended", "reason": "other"}))
	if want := []hooks.ObserveRequest{{SessionID: "ended", Final: true}}; !slices.Equal(h.observed, want) {
		t.Fatalf("SessionEnd started %v, want %v", h.observed, want)
	}
	start := h.event(hooks.SessionStart, map[string]any{"session_id": "next", "source": "startup"})

	h.observed, h.now = nil, t0.Add(hooks.StaleAfter-time.Second)
	decodeSessionStart(t, h.run(start))
	if len(h.observed) != 0 {
		t.Fatalf("SessionStart right after the end started %v; the final run may still be running", h.observed)
	}

	h.observed, h.now = nil, t0.Add(hooks.StaleAfter+time.Second)
	decodeSessionStart(t, h.run(start))
	if want := []hooks.ObserveRequest{{SessionID: "ended", Final: true}}; !slices.Equal(h.observed, want) {
		t.Fatalf("SessionStart after a final run that wrote nothing started %v, want %v", h.observed, want)
	}

	// Each run started counts; after MaxFinalAttempts the summary is given up.
	h.withDB(func(db *store.DB) {
		for range hooks.MaxFinalAttempts {
			if err := db.BeginFinal(ctx, "ended"); err != nil {
				t.Fatal(err)
			}
		}
	})
	h.observed = nil
	decodeSessionStart(t, h.run(start))
	if len(h.observed) != 0 {
		t.Fatalf("SessionStart after %d summary runs started %v", hooks.MaxFinalAttempts, h.observed)
	}
}

// With the observer off, SessionEnd owes no summary and SessionStart starts nothing later.
func TestNoSummaryIsOwedWithTheObserverOff(t *testing.T) {
	h := newHarness(t, "CLAUDE_MEM_MAX_CONCURRENT_AGENTS", "0")
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{"session_id": "ended", "prompt": "hello"}))
	h.run(h.event(hooks.SessionEnd, map[string]any{"session_id": "ended", "reason": "other"}))
	if n := h.count("sessions", "final_pending = 1"); n != 0 {
		t.Fatalf("%d sessions owe a summary with the observer off", n)
	}
}
