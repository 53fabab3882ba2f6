package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-mem/claude-mem-go/internal/seed"
)

// benchWords are words of seed.Observations' vocabulary (two syllables each): some in
// most observations, some in few.
var benchWords = []string{"kalo", "cachesync", "dbauth", "renvex", "lockparse", "zenport", "quidar", "hookstore", "miroute", "stolog"}

// BenchmarkSearch100k: one search tool call over 100,000 observations, in process through
// the SDK's client (JSON-RPC encoding, schema validation, the store query, the bounded
// answer). Target: under 20 ms a call on an idle machine. Timings on a shared machine
// swing, so the check is a ratio: "store.Search", the floor of the same run, is the
// store's own search for the same words (with snippets, which the tool skips), without
// the tool around it; the tool call must stay within 1.5× of it.
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	w := newWorld(b)
	db, err := w.mem.OpenWrite()
	if err != nil {
		b.Fatal(err)
	}
	if err := seed.Observations(ctx, db, "web", 100_000, t0); err != nil {
		b.Fatal(err)
	}
	var floor time.Duration
	b.Run("store.Search", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := db.Search(ctx, benchWords[i%len(benchWords)], "web", 20); err != nil {
				b.Fatal(err)
			}
			i++
		}
		floor = b.Elapsed() / time.Duration(b.N)
	})
	db.Close()
	cs := connect(b, w.deps(w.webDir))
	b.Run("mcp search", func(b *testing.B) {
		i := 0
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": benchWords[i%len(benchWords)]}})
			if err != nil || res.IsError {
				b.Fatal(err, text(res))
			}
			i++
		}
		per := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(per)/float64(floor), "×store.Search")
		if floor > 0 && per > floor*3/2 {
			b.Errorf("%v a search call, %.2f× the store's own search (%v); target within 1.5×", per, float64(per)/float64(floor), floor)
		}
	})
}
