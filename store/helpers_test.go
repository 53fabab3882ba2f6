package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// t0 is the fixed clock of the unit tests.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// openTest opens a fresh database in a temp dir, closed when the test ends.
func openTest(t testing.TB) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// count runs a SELECT count(*)-like query.
func count(t testing.TB, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func session(id, project string) Session {
	return Session{ID: id, Project: project, Cwd: "/work/" + project, StartedAt: t0}
}

// ingest stores recs through Ingest, the one way the product records what hooks capture,
// and fails the test on an error; it returns how many rows Ingest added.
func ingest(t testing.TB, db *DB, recs ...Captured) (added int) {
	t.Helper()
	added, err := db.Ingest(context.Background(), recs)
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	return added
}

// addEvents records n events for s, one second apart from second `from`, with tool use
// ids "<session>-<i>".
func addEvents(t testing.TB, db *DB, s Session, from, n int) {
	t.Helper()
	for i := range n {
		e := Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: s.ID + "-" + strconv.Itoa(from+i),
			Input: `{"command":"ls"}`, Response: `{"stdout":"x"}`, At: at(from + i)}
		ingest(t, db, Captured{Kind: CaptureEvent, Session: s, Event: e})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
