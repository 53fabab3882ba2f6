package hooks_test

import (
	"slices"
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/hooks"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// With a sync server set, SessionStart starts a pull and SessionEnd a push, after their
// answer; without one (the control), nothing is started.
func TestSyncRunsStartOnlyWithAServer(t *testing.T) {
	for _, c := range []struct {
		name string
		kv   []string
		want []memsync.Direction
	}{
		{"server", []string{envname.SyncURL, "postgres://me@db.example/mem"}, []memsync.Direction{memsync.Pull, memsync.Push}},
		{"none", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.kv...)
			out := h.run(h.event(hooks.SessionStart, map[string]any{"session_id": "s1", "source": "startup"}))
			if out == "" {
				t.Fatal("SessionStart gave no answer")
			}
			h.run(h.toolEvent("s1", "t1"))
			h.run(h.event(hooks.SessionEnd, map[string]any{"session_id": "s1", "reason": "exit"}))
			if !slices.Equal(h.synced, c.want) {
				t.Fatalf("sync runs started: %v, want %v", h.synced, c.want)
			}
		})
	}
}
