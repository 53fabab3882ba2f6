package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// A session recorded in a checkout goes out under its origin remote's key; one outside a
// repository under its project's name.
func TestSyncHereKeysProjectsByRemote(t *testing.T) {
	ctx := context.Background()
	m, _ := newMemory(t)
	root := t.TempDir()
	repo := filepath.Join(root, "pay2")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[remote \"origin\"]\n\turl = git@github.com:Acme/payments-api.git\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := m.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []store.Session{
		{ID: "s1", Project: "pay2", Cwd: filepath.Join(repo, "sub"), StartedAt: t0},
		{ID: "s2", Project: "notes", Cwd: filepath.Join(root, "notes"), StartedAt: t0},
	} {
		if _, err := db.Ingest(ctx, []store.Captured{{Kind: store.CaptureStart, Session: s}}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := db.SyncOutgoing(ctx, memory.SyncHere("laptop", "alice", nil), 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("outgoing %v, %v", recs, err)
	}
	want := map[string]bool{"github.com/acme/payments-api": true, "notes": true}
	for _, r := range recs {
		if r.Kind != wire.Session || !want[r.Project] || r.Machine != "laptop" {
			t.Errorf("record %+v", r)
		}
		delete(want, r.Project)
	}
}
