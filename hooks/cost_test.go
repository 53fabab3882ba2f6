package hooks_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/store"
)

// TestStopBatchesEvents: Stop starts a run at CLAUDE_MEM_BATCH_EVENTS pending events or when
// the oldest waited CLAUDE_MEM_BATCH_WAIT; SessionEnd flushes regardless.
func TestStopBatchesEvents(t *testing.T) {
	seq := 0
	add := func(h *harness, n int) {
		for range n {
			seq++
			h.run(h.toolEvent("s1", fmt.Sprintf("t%d", seq)))
		}
	}
	stop := func(h *harness) []hooks.ObserveRequest {
		h.observed = nil
		h.run(h.event(hooks.Stop, nil))
		return h.observed
	}
	want := []hooks.ObserveRequest{{SessionID: "s1"}}

	h := newHarness(t, envname.BatchEvents, "10", envname.BatchWait, "300")
	add(h, 9)
	if got := stop(h); len(got) != 0 {
		t.Fatalf("9 events + Stop started %v", got)
	}
	add(h, 1)
	if got := stop(h); !slices.Equal(got, want) {
		t.Fatalf("10 events + Stop started %v, want %v", got, want)
	}

	h = newHarness(t, envname.BatchEvents, "10", envname.BatchWait, "300")
	add(h, 1)
	h.now = t0.Add(299 * time.Second)
	if got := stop(h); len(got) != 0 {
		t.Fatalf("1 event 299 s old + Stop started %v", got)
	}
	h.now = t0.Add(301 * time.Second)
	if got := stop(h); !slices.Equal(got, want) {
		t.Fatalf("1 event older than the wait + Stop started %v, want %v", got, want)
	}

	h = newHarness(t, envname.BatchEvents, "10", envname.BatchWait, "300")
	add(h, 1)
	h.observed = nil
	h.run(h.event(hooks.SessionEnd, map[string]any{"reason": "other"}))
	if want := []hooks.ObserveRequest{{SessionID: "s1", Final: true}}; !slices.Equal(h.observed, want) {
		t.Fatalf("SessionEnd with 1 event started %v, want %v", h.observed, want)
	}
}

// TestBudgetStopsRunsUntilTheNextLocalDay: once today's recorded cost reaches the budget,
// Stop, SessionEnd and SessionStart's stale pass start nothing, events stay pending, and
// SessionStart shows the notice; on the next local day all of it is undone by itself.
func TestBudgetStopsRunsUntilTheNextLocalDay(t *testing.T) {
	h := newHarness(t, envname.DailyBudgetUSD, "1.50")
	loc := time.FixedZone("UTC+3", 3*3600)
	h.deps.Loc = loc
	h.now = time.Date(2026, 11, 30, 14, 0, 0, 0, loc) // mid-day, local
	h.run(h.toolEvent("s1", "t1"))
	record := func(id string, cost float64, at time.Time) {
		h.withDB(func(db *store.DB) {
			if err := db.RecordRun(context.Background(), store.RunRecord{ID: id, SessionID: "s0", Project: "myproj", Outcome: "ok", StartedAt: at, Usage: store.Usage{CostUSD: cost}}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Yesterday's spending does not count; today's 1.00 is under the budget.
	record("r0", 9, time.Date(2026, 11, 29, 23, 59, 0, 0, loc))
	record("r1", 1, h.now.Add(-time.Hour))
	h.observed = nil
	h.run(h.event(hooks.Stop, nil))
	if len(h.observed) != 1 {
		t.Fatalf("under budget: Stop started %v; want a run (control)", h.observed)
	}
	record("r2", 0.5, h.now.Add(-time.Minute)) // crosses it: 1.50 of 1.50
	h.observed = nil
	h.run(h.event(hooks.Stop, nil))
	h.run(h.event(hooks.SessionEnd, map[string]any{"reason": "other"}))
	h.now = h.now.Add(time.Hour) // the event is stale now: SessionStart would restart it
	res := decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"source": "startup", "session_id": "s2"})))
	if len(h.observed) != 0 {
		t.Fatalf("budget reached: started %v", h.observed)
	}
	if n := h.count("events", "state = 'pending'"); n != 1 {
		t.Fatalf("%d events pending; want 1: nothing lost", n)
	}
	want := "claude-mem: observer budget reached — $1.50 of $1.50 today; observations paused until 2026-12-01 00:00 UTC+3, nothing lost (details: " + h.deps.Hook() + " doctor)"
	if res.SystemMessage != want || !strings.HasPrefix(res.Context, want+"\n") {
		t.Fatalf("notice:\n got %q\nwant %q\ncontext %q", res.SystemMessage, want, res.Context)
	}

	// The next local day: 00:01 in UTC+3 is still the 30th in UTC.
	h.now = time.Date(2026, 12, 1, 0, 1, 0, 0, loc)
	res = decodeSessionStart(t, h.run(h.event(hooks.SessionStart, map[string]any{"source": "startup", "session_id": "s2"})))
	if res.SystemMessage != "" || strings.Contains(res.Context, "budget") {
		t.Fatalf("next day: notice still there: %q", res.SystemMessage)
	}
	if want := []hooks.ObserveRequest{{SessionID: "s1", Final: true}}; !slices.Equal(h.observed, want) {
		t.Fatalf("next day: SessionStart restarted %v, want %v (the owed final run)", h.observed, want)
	}
	h.observed = nil
	h.run(h.event(hooks.Stop, nil))
	if len(h.observed) != 1 {
		t.Fatalf("next day: Stop started %v; want a run", h.observed)
	}
}

// TestSkipSubagents: with CLAUDE_MEM_SKIP_SUBAGENTS=true a tool event carrying an agent_id
// (work inside a subagent) is not stored; the main thread's are, and by default both are.
func TestSkipSubagents(t *testing.T) {
	for _, skip := range []bool{false, true} {
		h := newHarness(t, envname.SkipSubagents, fmt.Sprint(skip))
		h.run(h.toolEvent("s1", "main"))
		h.run(h.event(hooks.PostToolUse, map[string]any{
			"tool_name": "Bash", "tool_use_id": "sub", "agent_id": "a864f788c7d39d7e3", "agent_type": "general-purpose",
			"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "x"},
		}))
		want := 2
		if skip {
			want = 1
		}
		if n := h.count("events"); n != want {
			t.Errorf("skip=%v: %d events stored, want %d", skip, n, want)
		}
		if skip && h.count("events", "tool_use_id = 'main'") != 1 {
			t.Error("the main thread's event was not stored")
		}
	}
}
