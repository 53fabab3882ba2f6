package viewer

import (
	"context"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// Records pulled from a teammate say who made them and where on every page that lists or
// shows them; the viewer's own records (the control) carry no byline. A hostile machine
// name is escaped as every stored value is.
func TestPulledRecordsSayWhoMadeThem(t *testing.T) {
	ctx := context.Background()
	bob := newFixture(t)
	bdb := bob.db()
	bob.observe(bdb, "sess-bob", "alpha", []store.Observation{{Type: "decision", Title: "Ledger rows are append-only", Narrative: "corrections are new rows", At: t0.Add(-30 * 60e9)}},
		&store.Summary{Request: "Why is the ledger append-only?", Completed: "explained", At: t0.Add(-20 * 60e9)})
	recs, err := bdb.SyncOutgoing(ctx, store.SyncHere{Machine: "bobbox<b>"}, 100)
	if err != nil || len(recs) == 0 {
		t.Fatal(recs, err)
	}
	for i := range recs {
		recs[i].Author = "bob"
	}

	f := newFixture(t)
	db := f.db()
	f.observe(db, "sess-mine", "alpha", []store.Observation{{Type: "bugfix", Title: "My own lockfile fix", At: t0.Add(-10 * 60e9)}}, nil)
	if _, err := db.SyncApply(ctx, "pg", store.SyncHere{Machine: "laptop", Self: "alice"}, wire.Page{Records: recs, Next: "1"}); err != nil {
		t.Fatal(err)
	}
	const by = `<span class="by">by bob on bobbox&lt;b&gt;</span>`
	tl := f.get("/timeline?project=alpha", 200)
	if strings.Count(tl, by) != 2 { // his observation and his summary
		t.Errorf("timeline: %d bylines, want 2:\n%s", strings.Count(tl, by), tl)
	}
	if strings.Count(tl, `class="by"`) != 2 {
		t.Error("timeline: a record made here has a byline")
	}
	search := f.get("/search?q=ledger", 200)
	if !strings.Contains(search, by) {
		t.Errorf("search has no byline:\n%s", search)
	}
	record := f.get("/record/"+idOf(t, search, `/record/`), 200)
	if !strings.Contains(record, by) {
		t.Errorf("record page has no byline:\n%s", record)
	}
	// The pulled session has a local id of its own: the record page links it.
	_, rest, ok := strings.Cut(record, `href="/session/`)
	session, _, _ := strings.Cut(rest, `"`)
	if body := f.get("/session/"+session, 200); !ok || strings.Count(body, by) != 2 { // the session and its observation
		t.Errorf("session %q: %d bylines, want 2:\n%s", session, strings.Count(body, by), body)
	}
	if body := f.get("/search?q=lockfile", 200); strings.Contains(body, `class="by"`) {
		t.Errorf("a record made here has a byline:\n%s", body)
	}
}
