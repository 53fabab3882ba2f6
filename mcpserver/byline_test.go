package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/store"
	syncwire "github.com/claude-mem/claude-mem-go/sync/wire"
)

// bobsLogin pulls into w's memory one observation of project web that bob made on bobbox.
func (w *world) bobsLogin() {
	w.t.Helper()
	ctx := context.Background()
	bob := newWorld(w.t)
	bdb, err := bob.mem.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	defer bdb.Close()
	s := store.Session{ID: "s-bob", Project: "web", Cwd: "/src/web", StartedAt: t0}
	memtest.Event(w.t, bdb, s, store.Event{Input: "x", At: t0})
	if _, err := bdb.Claim(ctx, s.ID, "run-bob", 10, t0); err != nil {
		w.t.Fatal(err)
	}
	memtest.Complete(w.t, bdb, "run-bob", []store.Observation{{Type: "discovery", Title: "Login cookie domain is the apex", At: t0.Add(30 * time.Second)}}, nil)
	recs, err := bdb.SyncOutgoing(ctx, store.SyncHere{Machine: "bobbox"}, 100)
	if err != nil {
		w.t.Fatal(err)
	}
	for i := range recs {
		recs[i].Author = "bob"
	}
	db, err := w.mem.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.SyncApply(ctx, "pg", store.SyncHere{Machine: "laptop", Self: "alice"}, syncwire.Page{Records: recs, Next: "1"}); err != nil {
		w.t.Fatal(err)
	}
}

// A teammate's hit says who made it, in the text and the structured content; the author
// filter keeps one author's records: the teammate's by name, the user's own by theirs
// (Deps.Self), nobody's for a stranger. Each filter is the others' control.
func TestSearchAuthor(t *testing.T) {
	w := newWorld(t)
	w.seed()
	w.bobsLogin()
	d := w.deps(filepath.Join(w.webDir, "pkg"))
	d.Self = "alice"
	cs := connect(t, d)
	all := text(call(t, cs, "search", map[string]any{"query": "login cookie"}))
	if !strings.Contains(all, "[discovery] Login cookie domain is the apex (web) · ") || !strings.Contains(all, " · by bob on bobbox") {
		t.Errorf("bob's hit has no byline:\n%s", all)
	}
	if strings.Count(all, " · by ") != 1 || strings.Contains(all, " · on ") {
		t.Errorf("a record made here has a byline:\n%s", all)
	}
	var out IndexOut
	structured(t, call(t, cs, "search", map[string]any{"query": "apex"}), &out)
	if len(out.Entries) != 1 || out.Entries[0].Author != "bob" || out.Entries[0].Machine != "bobbox" {
		t.Errorf("structured: %+v", out.Entries)
	}
	for _, c := range []struct {
		author     string
		has, hasnt string
	}{
		{"bob", "Login cookie domain is the apex", "Login cookie survives reloads"},
		{"alice", "Login cookie survives reloads", "Login cookie domain is the apex"},
		{"carol", "No memory matches", "Login cookie"},
	} {
		got := text(call(t, cs, "search", map[string]any{"query": "login cookie", "author": c.author}))
		if !strings.Contains(got, c.has) || strings.Contains(got, c.hasnt) {
			t.Errorf("author %s: want %q and not %q:\n%s", c.author, c.has, c.hasnt, got)
		}
	}
	var id int
	fmt.Sscan(out.Entries[0].Ref, &id) // an observation's ref is its number
	rec := text(call(t, cs, "get_observations", map[string]any{"ids": []any{id}}))
	if !strings.Contains(rec, ", by bob on bobbox)") {
		t.Errorf("get_observations: %s", rec)
	}
}
