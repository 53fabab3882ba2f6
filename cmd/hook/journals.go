package main

import (
	"context"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/store"
)

// ingestPending stores what waits in the capture journal before a command reads or
// removes memory (DESIGN §15), so it sees what was captured a moment ago. Until the
// journal package is on main there is no journal to ingest.
func ingestPending(ctx context.Context, p *proc, st *envState, db *store.DB) error { return nil }

// journalDirs are the dirs a session's pending journal can be in.
func journalDirs(p *proc, st *envState) []string {
	return []string{filepath.Join(st.s.DataDir, "journal")}
}
