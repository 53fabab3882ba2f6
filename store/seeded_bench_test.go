package store_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// BenchmarkRecentObservations100k: what SessionStart reads, with 100,000 stored.
func BenchmarkRecentObservations100k(b *testing.B) {
	ctx := context.Background()
	db, _ := memtest.Open(b)
	if err := seed.Observations(ctx, db, "bench", 100_000, memtest.T0); err != nil {
		b.Fatal(err)
	}
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
	seeded := filepath.Join(b.TempDir(), "seed.db")
	db := store.OpenBeforeRedaction(b, seeded)
	leaks := seedUpgradeMemory(b, db, 100_000, 200_000, 20_000, 5_000)
	db.Close()
	fi, err := os.Stat(seeded)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), settings.DBFile)
		if err := testkit.CopyFile(seeded, path, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		db, err := store.Open(path)
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

// seedUpgradeMemory stores obs observations (seed.Observations), events events and prompts
// prompts (Ingest, in batches, as hooks' journals are) and summaries summaries (CompleteRun),
// one in a hundred of each leaking a canary after a newline, the way the build before the
// redaction migration stored them. It returns the number of leaked rows.
func seedUpgradeMemory(b *testing.B, db *store.DB, obs, events, prompts, summaries int) int {
	b.Helper()
	ctx := context.Background()
	if err := seed.Observations(ctx, db, "bench", obs, memtest.T0); err != nil {
		b.Fatal(err)
	}
	canaries := redacttest.Captured()
	g := seed.NewText()
	leaks := 0
	leak := func(i int) string {
		if i%100 != 0 {
			return ""
		}
		leaks++
		return "\n" + canaries[i/100%len(canaries)].Text + "\n"
	}
	if err := store.ExecSQL(db, "UPDATE observations SET narrative = narrative || ?1 WHERE id % 100 = 0", "\n"+canaries[0].Text); err != nil {
		b.Fatal(err)
	}
	n, err := store.CountSQL(db, "SELECT count(*) FROM observations WHERE id % 100 = 0")
	if err != nil {
		b.Fatal(err)
	}
	leaks += n
	s := store.Session{ID: "bench-s", Project: "bench", Cwd: "/work/bench", StartedAt: memtest.T0}
	var recs []store.Captured
	flush := func() {
		if _, err := db.Ingest(ctx, recs); err != nil {
			b.Fatal(err)
		}
		recs = recs[:0]
	}
	for i := range events {
		input, _ := json.Marshal(map[string]any{"command": "go test ./" + g.Words(3) + " -run " + g.Words(1), "description": g.Words(6)})
		var out strings.Builder
		for l := range 20 {
			out.WriteString(g.Words(8) + "\n")
			if l == 10 {
				out.WriteString(leak(i))
			}
		}
		response, _ := json.Marshal(map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false})
		recs = append(recs, store.Captured{Kind: store.CaptureEvent, Session: s, Event: store.Event{RecordID: "e" + strconv.Itoa(i), Hook: "PostToolUse",
			ToolName: "Bash", ToolUseID: "t" + strconv.Itoa(i), Input: string(input), Response: string(response), At: memtest.At(i)}})
		if len(recs) == 5000 {
			flush()
		}
	}
	for i := range prompts {
		recs = append(recs, store.Captured{Kind: store.CapturePrompt, Session: s, Prompt: store.Prompt{RecordID: "p" + strconv.Itoa(i),
			Text: g.Words(40) + leak(i), At: memtest.At(i)}})
		if len(recs) == 5000 {
			flush()
		}
	}
	flush()
	for i := range summaries {
		sum := &store.Summary{SessionID: s.ID, Project: s.Project, At: memtest.At(i), Request: g.Words(10), Investigated: g.Words(30),
			Learned: g.Words(30) + leak(i), Completed: g.Words(20), NextSteps: g.Words(15), Notes: g.Words(10)}
		if _, err := db.CompleteRun(ctx, "bench-run-"+strconv.Itoa(i), store.RunAnswer{Summary: sum}); err != nil {
			b.Fatal(err)
		}
	}
	return leaks
}

// BenchmarkStory100k: what SessionStart reads over a 100,000-observation coding history.
func BenchmarkStory100k(b *testing.B) {
	ctx := context.Background()
	db, _ := memtest.Open(b)
	if err := seed.Story(ctx, db, "bench", 100_000, memtest.T0, time.UTC); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := db.Story(ctx, "bench", 200); err != nil {
			b.Fatal(err)
		}
	}
}
