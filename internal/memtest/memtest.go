// Package memtest seeds memory for the tests outside package store the way the product
// writes it: captured records through store.(*DB).Ingest, observations through a run's
// CompleteRun. Fill builds a small fixed memory for the tests that read or remove it
// whole (forget, archive).
package memtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// T0 is the memory's clock.
var T0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// At is T0 plus sec seconds.
func At(sec int) time.Time { return T0.Add(time.Duration(sec) * time.Second) }

// Open opens a new database in a temp data dir as a writer does (memory.OpenWrite),
// closed when the test ends.
func Open(t testing.TB) (*store.DB, string) {
	t.Helper()
	m := memory.Memory{DataDir: t.TempDir()}
	db, err := m.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, m.Path()
}

// Fill stores the memory: web sessions s1 (a prompt, two events, two observations, a
// summary) and s2 (later: a prompt, an event, an observation), s4 (web, SessionStart
// only), and api session s3 (an event, an observation). Observation ids are 1–4 in the
// order s1, s1, s2, s3.
func Fill(t testing.TB, db *store.DB) {
	t.Helper()
	sess := func(id, project string, start int) store.Session {
		return store.Session{ID: id, Project: project, Cwd: "/work/" + project, StartedAt: At(start)}
	}
	s1, s2, s3, s4 := sess("s1", "web", 0), sess("s2", "web", 100), sess("s3", "api", 10), sess("s4", "web", 50)
	Prompt(t, db, s1, store.Prompt{Text: "please fix the login form", At: At(1)})
	Event(t, db, s1, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t1", Input: `{"command":"ls"}`, Response: "{}", At: At(2)})
	Event(t, db, s1, store.Event{Hook: "PostToolUse", ToolName: "Read", ToolUseID: "t2", Input: "{}", Response: "{}", At: At(3)})
	Prompt(t, db, s2, store.Prompt{Text: "later work", At: At(101)})
	Event(t, db, s2, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t3", Input: "{}", Response: "{}", At: At(102)})
	Event(t, db, s3, store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: "t4", Input: "{}", Response: "{}", At: At(10)})
	Start(t, db, s4)
	End(t, db, s1, At(7))
	obs := func(s store.Session, title, narrative string, sec int) store.Observation {
		return store.Observation{SessionID: s.ID, Project: s.Project, Type: "feature", Title: title, Narrative: narrative, At: At(sec)}
	}
	zebra := obs(s1, "Zebrafish validator checks login emails", "The zebrafish rule <b>&</b> \"quotes\".", 4)
	zebra.Facts, zebra.FilesModified = []string{"emails are checked", "ünïcode ✓"}, []string{"src/login.go"}
	Complete(t, db, "r1", []store.Observation{zebra, obs(s1, "Quokka cookie cache", "Cookies survive.", 5)},
		&store.Summary{SessionID: "s1", Project: "web", Request: "Fix the login form", Completed: "validated", At: At(6)})
	Complete(t, db, "r2", []store.Observation{obs(s2, "Platypus later change", "Later.", 103)}, nil)
	Complete(t, db, "r3", []store.Observation{obs(s3, "API limiter buckets", "Tokens.", 11)}, nil)
}

// ingest stores recs as journal ingestion does, failing the test on an error.
func ingest(t testing.TB, db *store.DB, recs ...store.Captured) {
	t.Helper()
	if _, err := db.Ingest(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

// Start records session s (SessionStart).
func Start(t testing.TB, db *store.DB, s store.Session) {
	t.Helper()
	ingest(t, db, store.Captured{Kind: store.CaptureStart, Session: s, At: s.StartedAt})
}

// Prompt records the user prompt p of session s (UserPromptSubmit).
func Prompt(t testing.TB, db *store.DB, s store.Session, p store.Prompt) {
	t.Helper()
	ingest(t, db, store.Captured{Kind: store.CapturePrompt, Session: s, Prompt: p, At: p.At})
}

// Event records the tool use e of session s as a pending event (PostToolUse).
func Event(t testing.TB, db *store.DB, s store.Session, e store.Event) {
	t.Helper()
	ingest(t, db, store.Captured{Kind: store.CaptureEvent, Session: s, Event: e, At: e.At})
}

// End ends session s, when recorded, at at (SessionEnd with the observer off: no summary
// requested).
func End(t testing.TB, db *store.DB, s store.Session, at time.Time) {
	t.Helper()
	ingest(t, db, store.Captured{Kind: store.CaptureEnd, Session: s, At: at})
}

// Complete stores run runID's observations and summary (CompleteRun, the observer's
// call), failing the test on an error; an observation dropped as a duplicate fails it
// too, as seeding meant to store it.
func Complete(t testing.TB, db *store.DB, runID string, obs []store.Observation, sum *store.Summary) {
	t.Helper()
	if dup, err := db.CompleteRun(context.Background(), runID, store.RunAnswer{Observations: obs, Summary: sum}); err != nil || dup != 0 {
		t.Fatalf("CompleteRun %s: %d duplicates, %v", runID, dup, err)
	}
}

// Remember stores observations and a summary for s the way the observer does: an event at
// second sec, a claim, a CompleteRun.
func Remember(t testing.TB, db *store.DB, s store.Session, sec int, obs []store.Observation, sum *store.Summary) {
	t.Helper()
	run := s.ID + "-run-" + strings.Repeat("x", sec%7) + string(rune('a'+sec%26))
	Event(t, db, s, store.Event{Input: "x", At: At(sec)})
	if _, err := db.Claim(context.Background(), s.ID, run, 100, At(sec)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CompleteRun(context.Background(), run, store.RunAnswer{Observations: obs, Summary: sum}); err != nil {
		t.Fatal(err)
	}
}

// Session is session id of project, started at T0.
func Session(id, project string) store.Session {
	return store.Session{ID: id, Project: project, Cwd: "/work/" + project, StartedAt: T0}
}

// Searchable stores what the search tests ask of: projects alpha (three observations, a
// summary, two prompts) and beta (an observation, a prompt).
func Searchable(t testing.TB, db *store.DB) {
	t.Helper()
	alpha, beta := Session("a1", "alpha"), Session("b1", "beta")
	Remember(t, db, alpha, 10, []store.Observation{
		{Type: "bugfix", Title: "Parser off-by-one fixed", Narrative: "The tokenizer loop stopped one rune early.",
			Facts: []string{"loop bound was len-1"}, Concepts: []string{"gotcha"}, At: At(10)},
		{Type: "discovery", Title: "Cache keys", Narrative: "The parser cache is keyed by path and mtime.", At: At(11)},
		{Type: "decision", Title: "Use WAL mode", Subtitle: "sqlite journal", Narrative: "Readers never block writers.", At: At(12)},
	}, &store.Summary{Request: "Fix the parser crash", Learned: "tokenizer bounds", At: At(13)})
	Remember(t, db, beta, 20, []store.Observation{
		{Type: "feature", Title: "Parser for TOML", Narrative: "Added a TOML parser to the config loader.", At: At(20)},
	}, nil)
	for _, p := range []struct {
		s    store.Session
		text string
	}{
		{alpha, "why does the parser crash on emoji?\nsecond line with details"},
		{beta, "add toml support to the loader"},
		{alpha, "Café résumé naïve — unicode words: 日本語 テスト"},
	} {
		Prompt(t, db, p.s, store.Prompt{Text: p.text, At: At(30)})
	}
}

// Imported stores a prompt or an observation (type bugfix; text is its title, then its
// narrative after a line break) as an import does, in session sid of project at second
// sec: no run, and no duplicate rule.
func Imported(t testing.TB, db *store.DB, kind, project, sid string, sec int, text string) {
	t.Helper()
	b := store.ImportBatch{Sessions: []store.Session{{ID: sid, Project: project, Cwd: "/"}}}
	if kind == vocab.KindPrompt {
		b.Prompts = []store.Prompt{{SessionID: sid, Project: project, Text: text, At: At(sec)}}
	} else {
		title, narrative, _ := strings.Cut(text, "\n")
		b.Observations = []store.Observation{{SessionID: sid, Project: project, Type: "bugfix", Title: title, Narrative: narrative, At: At(sec)}}
	}
	Import(t, db, b)
}

// Import stores b as `hook import` does, failing the test on an error.
func Import(t testing.TB, db *store.DB, b store.ImportBatch) {
	t.Helper()
	if _, err := db.ImportParts(context.Background(), func(add func(store.ImportBatch) error) error { return add(b) }); err != nil {
		t.Fatal(err)
	}
}
