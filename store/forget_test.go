package store_test

import (
	"context"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// TestForgetKeepsIndexesInStep: whatever the scope, the full-text indexes match their
// tables after Forget (the triggers remove a forgotten row's entries). Integrity finding
// an index out of step is TestIntegrityFindsAnIndexOutOfSync.
func TestForgetKeepsIndexesInStep(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		scope store.ForgetScope
	}{
		{"refs of every kind", store.ForgetScope{Refs: []vocab.Ref{
			{Kind: vocab.KindObservation, ID: 1}, {Kind: vocab.KindSummary, ID: 1}, {Kind: vocab.KindPrompt, ID: 2}}}},
		{"session", store.ForgetScope{Session: "s1"}},
		{"project", store.ForgetScope{Project: "web"}},
		{"before", store.ForgetScope{Before: memtest.At(60)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := memtest.Open(t)
			memtest.Fill(t, db)
			f, err := db.Forget(ctx, tc.scope, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Observations+f.Summaries+f.Prompts == 0 {
				t.Fatalf("Forget removed no record: %+v", f)
			}
			if err := db.Integrity(ctx); err != nil {
				t.Errorf("full-text indexes out of step with their tables: %v", err)
			}
		})
	}
}
