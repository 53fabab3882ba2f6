package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
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

// SyncStore is the store as a run sees it: what waits goes out once, a pulled page and its
// cursor land together, and the person a run syncs as owns their own records on every
// machine while a teammate's carry their name.
func TestSyncStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	open := func() *store.DB {
		m, _ := newMemory(t)
		db, err := m.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	dbA := open()
	a := memory.SyncStore(dbA, memory.SyncHere("laptop", "", nil))
	defer a.Close()
	s := memtest.Session("s1", "notes")
	memtest.Start(t, dbA, s)
	memtest.Remember(t, dbA, s, 5, []store.Observation{{Type: "decision", Title: "ledger is append-only", Narrative: "corrections are new rows"}}, nil)
	out, err := a.Outgoing(ctx, 10)
	if err != nil || len(out) != 2 {
		t.Fatalf("outgoing %v, %v", out, err)
	}
	if c, err := a.Counts(ctx); err != nil || c.Waiting != 2 {
		t.Fatalf("counts before the push %+v, %v", c, err)
	}
	if err := a.Mark(ctx, wire.Pushed{Stored: []string{out[0].GID, out[1].GID}}); err != nil {
		t.Fatal(err)
	}
	if c, err := a.Counts(ctx); err != nil || c.Waiting != 0 || c.HeldIDs != nil {
		t.Fatalf("counts after the push %+v, %v", c, err)
	}
	for _, tc := range []struct{ self, author string }{{"alice", ""}, {"bob", "alice"}} {
		dbB := open()
		b := memory.SyncStore(dbB, memory.SyncHere("desk", "", nil))
		if cur, err := b.Cursor(ctx, "pg://x"); err != nil || cur != "" {
			t.Fatalf("cursor before a pull %q, %v", cur, err)
		}
		page := wire.Page{Next: "7"}
		for _, r := range out {
			r.Author = "alice"
			page.Records = append(page.Records, r)
		}
		if err := b.Apply(ctx, "pg://x", tc.self, page); err != nil {
			t.Fatal(err)
		}
		if cur, err := b.Cursor(ctx, "pg://x"); err != nil || cur != "7" {
			t.Errorf("cursor after a pull %q, %v", cur, err)
		}
		if cur, _ := b.Cursor(ctx, "pg://other"); cur != "" {
			t.Errorf("another server's cursor %q", cur)
		}
		obs, err := dbB.RecentObservations(ctx, "notes", 5)
		if err != nil || len(obs) != 1 || obs[0].Author != tc.author || obs[0].Machine != "laptop" {
			t.Errorf("as %s: pulled %+v, %v", tc.self, obs, err)
		}
		// A pulled record never goes back out.
		if again, err := b.Outgoing(ctx, 10); err != nil || len(again) != 0 {
			t.Errorf("as %s: outgoing after a pull %v, %v", tc.self, again, err)
		}
		b.Close()
	}
}
