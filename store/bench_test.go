package store

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
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

// BenchmarkRedactionMigration100k: the redaction migration as a user who updates meets it
// (backup, redaction of every stored row and run file, vacuum) on a database of 100,000
// observations, 200,000 events (~1.4 KB of tool input and output each), 20,000 prompts and
// 5,000 summaries, 1% of them leaking a canary after a newline. Target: under a minute
// (issue 21). Run it with -benchtime=1x: each iteration migrates a fresh copy.
func BenchmarkRedactionMigration100k(b *testing.B) {
	ctx := context.Background()
	seed := filepath.Join(b.TempDir(), "seed.db")
	db := openAt(b, seed, beforeRedaction(b))
	leaks := seedUpgradeMemory(b, db, 100_000, 200_000, 20_000, 5_000)
	db.Close()
	fi, err := os.Stat(seed)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), settings.DBFile)
		if err := testkit.CopyFile(seed, path, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		db, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		found, err := db.StoredRedactions(ctx)
		if total := redact.Counts(found).Total(); err != nil || total < leaks {
			b.Fatalf("stored redactions %v, %v; want at least %d", found, err, leaks)
		}
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
}

// seedUpgradeMemory stores obs observations (SeedObservations), events events and prompts
// prompts (Ingest, in batches, as hooks' journals are) and summaries summaries (CompleteRun),
// one in a hundred of each leaking a canary after a newline, the way the build before the
// redaction migration stored them. It returns the number of leaked rows.
func seedUpgradeMemory(b *testing.B, db *DB, obs, events, prompts, summaries int) int {
	b.Helper()
	ctx := context.Background()
	if err := SeedObservations(ctx, db, "bench", obs, t0); err != nil {
		b.Fatal(err)
	}
	canaries := redacttest.Captured()
	g := newSeedText()
	leaks := 0
	leak := func(i int) string {
		if i%100 != 0 {
			return ""
		}
		leaks++
		return "\n" + canaries[i/100%len(canaries)].Text + "\n"
	}
	var n int
	if _, err := db.sql.ExecContext(ctx, "UPDATE observations SET narrative = narrative || ?1 WHERE id % 100 = 0", "\n"+canaries[0].Text); err != nil {
		b.Fatal(err)
	}
	if err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM observations WHERE id % 100 = 0").Scan(&n); err != nil {
		b.Fatal(err)
	}
	leaks += n
	s := Session{ID: "bench-s", Project: "bench", Cwd: "/work/bench", StartedAt: t0}
	var recs []Captured
	flush := func() {
		if _, err := db.Ingest(ctx, recs); err != nil {
			b.Fatal(err)
		}
		recs = recs[:0]
	}
	for i := range events {
		input, _ := json.Marshal(map[string]any{"command": "go test ./" + g.words(3) + " -run " + g.words(1), "description": g.words(6)})
		var out strings.Builder
		for l := range 20 {
			out.WriteString(g.words(8) + "\n")
			if l == 10 {
				out.WriteString(leak(i))
			}
		}
		response, _ := json.Marshal(map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false})
		recs = append(recs, Captured{Kind: CaptureEvent, Session: s, Event: Event{RecordID: "e" + strconv.Itoa(i), Hook: "PostToolUse",
			ToolName: "Bash", ToolUseID: "t" + strconv.Itoa(i), Input: string(input), Response: string(response), At: at(i)}})
		if len(recs) == 5000 {
			flush()
		}
	}
	for i := range prompts {
		recs = append(recs, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{RecordID: "p" + strconv.Itoa(i),
			Text: g.words(40) + leak(i), At: at(i)}})
		if len(recs) == 5000 {
			flush()
		}
	}
	flush()
	for i := range summaries {
		sum := &Summary{SessionID: s.ID, Project: s.Project, At: at(i), Request: g.words(10), Investigated: g.words(30),
			Learned: g.words(30) + leak(i), Completed: g.words(20), NextSteps: g.words(15), Notes: g.words(10)}
		if _, err := db.CompleteRun(ctx, "bench-run-"+strconv.Itoa(i), RunAnswer{Summary: sum}); err != nil {
			b.Fatal(err)
		}
	}
	return leaks
}
