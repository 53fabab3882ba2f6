package rank_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/store"
)

// BenchmarkSearch100k: search over 100,000 observations, every query form. Target: p95
// under 10 ms per query over all of them (logged; DESIGN §23, issue 36).
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	db := reader(b, func(db *store.DB) error { return seed.Observations(ctx, db, "bench", 100_000, memtest.T0) })
	// The seed's words follow a Zipf distribution: the rank 0 word is in most observations.
	w := seed.Words(0, 1, 2, 3, 4, 5, 7, 9, 40, 50, 60, 300, 5000)
	vocab := map[int]string{}
	for i, r := range []int{0, 1, 2, 3, 4, 5, 7, 9, 40, 50, 60, 300, 5000} {
		vocab[r] = w[i]
	}
	searchP95(b, db, []benchQuery{
		{"common word", vocab[0], ""},
		{"common word in project", vocab[0], "bench"},
		{"mid word", vocab[50], ""},
		{"rare word", vocab[5000], ""},
		{"two words", vocab[3] + " " + vocab[40], "bench"},
		{"a question", "why did the " + vocab[7] + " of " + vocab[60] + " fail with " + vocab[300] + "?", "bench"},
		{"a word and a missing word", vocab[1] + " nosuchword", ""},
		{"phrase", `"` + vocab[2] + " " + vocab[5] + `"`, "bench"},
		{"excluded word", vocab[4] + " -" + vocab[0], "bench"},
		{"prefix", vocab[9][:3] + "*", "bench"},
	})
}

// BenchmarkSearchStory100k: search over a 100,000-observation coding history (seed.Story:
// thousands of sessions, each with prompts and a summary), every query form, in its words:
// every kind matches, so this is where ranking one window across kinds shows. Logged like
// BenchmarkSearch100k.
func BenchmarkSearchStory100k(b *testing.B) {
	ctx := context.Background()
	db := reader(b, func(db *store.DB) error { return seed.Story(ctx, db, "bench", 100_000, memtest.T0, time.UTC) })
	searchP95(b, db, []benchQuery{
		{"common word", "handler", ""},
		{"common word in project", "handler", "bench"},
		{"two words", "rate limit", "bench"},
		{"a question", "why did the webhook handler retry without an idempotency key?", "bench"},
		{"a word and a missing word", "refund nosuchword", ""},
		{"phrase", `"retry loop"`, "bench"},
		{"excluded word", "ledger -webhook", "bench"},
		{"prefix", "idem*", "bench"},
	})
}

// reader seeds a new database with seed and opens it as search reads memory: read only
// (hook search, the MCP server, the viewer), after the writer has closed it.
func reader(b *testing.B, seed func(*store.DB) error) *store.DB {
	b.Helper()
	w, path := memtest.Open(b)
	if err := seed(w); err != nil {
		b.Fatal(err)
	}
	w.Close()
	db, err := store.OpenReadOnly(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

type benchQuery struct{ name, query, project string }

// searchP95 benchmarks each query as a sub-benchmark and logs the p95 over every search.
func searchP95(b *testing.B, db *store.DB, queries []benchQuery) {
	ctx := context.Background()
	var all []time.Duration
	for _, c := range queries {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				t := time.Now()
				if _, err := db.Search(ctx, c.query, c.project, 20); err != nil {
					b.Fatal(err)
				}
				all = append(all, time.Since(t))
			}
		})
	}
	slices.Sort(all)
	b.Logf("p95 over every query: %s (%d searches)", all[len(all)*95/100], len(all))
}
