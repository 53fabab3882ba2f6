package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkIngestEvent: one captured PostToolUse ingested on an open database.
func BenchmarkIngestEvent(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest(b)
	s := session("bench", "p")
	e := Event{Hook: "PostToolUse", ToolName: "Bash", Input: `{"command":"go test ./..."}`, Response: `{"stdout":"ok"}`, At: t0}
	i := 0
	for b.Loop() {
		e.ToolUseID = strconv.Itoa(i)
		i++
		if _, err := db.Ingest(ctx, []Captured{{Kind: CaptureEvent, Session: s, Event: e}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenIngestClose is the store part of a Stop hook that ingests one captured
// event: open an existing, current database, ingest the event, close.
func BenchmarkOpenIngestClose(b *testing.B) {
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
		if _, err := db.Ingest(ctx, []Captured{{Kind: CaptureEvent, Session: s, Event: Event{ToolUseID: strconv.Itoa(i), Input: "x", At: t0}}}); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
