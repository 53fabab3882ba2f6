package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// seeded opens a fresh database holding n seeded observations of project "bench".
func seeded(b *testing.B, n int) *DB {
	b.Helper()
	db, _ := openTest(b)
	if err := SeedObservations(context.Background(), db, "bench", n, t0); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkRecordEvent: one PostToolUse write on an open database.
func BenchmarkRecordEvent(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest(b)
	s := session("bench", "p")
	e := Event{Hook: "PostToolUse", ToolName: "Bash", Input: `{"command":"go test ./..."}`, Response: `{"stdout":"ok"}`, At: t0}
	i := 0
	for b.Loop() {
		e.ToolUseID = strconv.Itoa(i)
		i++
		if err := db.RecordEvent(ctx, s, e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenRecordClose is the whole store part of one PostToolUse hook process:
// open an existing, current database, record one event, close.
func BenchmarkOpenRecordClose(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "claude-mem.db")
	s := session("bench", "p")
	i := 0
	for b.Loop() {
		db, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		i++
		if err := db.RecordEvent(ctx, s, Event{ToolUseID: strconv.Itoa(i), Input: "x", At: t0}); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch100k: search over 100,000 observations. Target < 50 ms/op.
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	db := seeded(b, 100_000)
	recent, err := db.RecentObservations(ctx, "bench", 1)
	if err != nil || len(recent) != 1 {
		b.Fatal(recent, err)
	}
	g := newSeedText()
	for _, c := range []struct{ name, query, project string }{
		// The seed's words follow a Zipf distribution: vocab[0] is in most observations.
		{"common word", g.vocab[0], ""},
		{"common word in project", g.vocab[0], "bench"},
		{"mid word", g.vocab[50], ""},
		{"rare word", g.vocab[5000], ""},
		{"two words", g.vocab[3] + " " + g.vocab[40], "bench"},
		{"no match falls back to OR", g.vocab[1] + " nosuchword", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := db.Search(ctx, c.query, c.project, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecentObservations100k: what SessionStart reads, with 100,000 stored.
func BenchmarkRecentObservations100k(b *testing.B) {
	ctx := context.Background()
	db := seeded(b, 100_000)
	for b.Loop() {
		obs, err := db.RecentObservations(ctx, "bench", 50)
		if err != nil || len(obs) != 50 {
			b.Fatal(len(obs), err)
		}
	}
}
