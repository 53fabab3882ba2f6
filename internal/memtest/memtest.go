// Package memtest builds a small memory for the tests of the packages that read or remove
// it whole (forget, archive): a fixed set of sessions, prompts, events, observations and a
// summary, through the store's own API.
package memtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

// T0 is the memory's clock.
var T0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// At is T0 plus sec seconds.
func At(sec int) time.Time { return T0.Add(time.Duration(sec) * time.Second) }

// Open opens a new database in a temp dir, closed when the test ends.
func Open(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// Fill stores the memory: web sessions s1 (a prompt, two events, two observations, a
// summary) and s2 (later: a prompt, an event, an observation), s4 (web, SessionStart
// only), and api session s3 (an event, an observation). Observation ids are 1–4 in the
// order s1, s1, s2, s3.
func Fill(t testing.TB, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	sess := func(id, project string, start int) store.Session {
		return store.Session{ID: id, Project: project, Cwd: "/work/" + project, StartedAt: At(start)}
	}
	s1, s2, s3, s4 := sess("s1", "web", 0), sess("s2", "web", 100), sess("s3", "api", 10), sess("s4", "web", 50)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.RecordPrompt(ctx, s1, store.Prompt{Text: "please fix the login form", At: At(1)}))
	must(db.RecordEvent(ctx, s1, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t1", Input: `{"command":"ls"}`, Response: "{}", At: At(2)}))
	must(db.RecordEvent(ctx, s1, store.Event{Hook: "PostToolUse", ToolName: "Read", ToolUseID: "t2", Input: "{}", Response: "{}", At: At(3)}))
	must(db.RecordPrompt(ctx, s2, store.Prompt{Text: "later work", At: At(101)}))
	must(db.RecordEvent(ctx, s2, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t3", Input: "{}", Response: "{}", At: At(102)}))
	must(db.RecordEvent(ctx, s3, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t4", Input: "{}", Response: "{}", At: At(10)}))
	must(db.TouchSession(ctx, s4))
	must(db.EndSession(ctx, "s1", At(7)))
	obs := func(s store.Session, title, narrative string, sec int) store.Observation {
		return store.Observation{SessionID: s.ID, Project: s.Project, Type: "feature", Title: title, Narrative: narrative, At: At(sec)}
	}
	zebra := obs(s1, "Zebrafish validator checks login emails", "The zebrafish rule <b>&</b> \"quotes\".", 4)
	zebra.Facts, zebra.FilesModified = []string{"emails are checked", "ünïcode ✓"}, []string{"src/login.go"}
	must(db.Complete(ctx, "r1", []store.Observation{zebra, obs(s1, "Quokka cookie cache", "Cookies survive.", 5)},
		&store.Summary{SessionID: "s1", Project: "web", Request: "Fix the login form", Completed: "validated", At: At(6)}))
	must(db.Complete(ctx, "r2", []store.Observation{obs(s2, "Platypus later change", "Later.", 103)}, nil))
	must(db.Complete(ctx, "r3", []store.Observation{obs(s3, "API limiter buckets", "Tokens.", 11)}, nil))
}
