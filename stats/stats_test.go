package stats

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

func TestBuildAndRender(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "claude-mem.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loc := time.FixedZone("west", -5*3600)
	now := time.Date(2026, 11, 30, 20, 0, 0, 0, loc)
	for _, r := range []store.RunRecord{
		{ID: "a", Project: "api", Outcome: "ok", StartedAt: now.Add(-time.Hour), Events: 10, Observations: 4, Duplicates: 1,
			Usage: store.Usage{InputTokens: 12000, OutputTokens: 900, CacheReadTokens: 3000, CostUSD: 0.02}},
		{ID: "b", Project: "web", Outcome: "ok", StartedAt: now.Add(-2 * time.Hour), Events: 3, Observations: 1, Usage: store.Usage{CostUSD: 0.01}},
		{ID: "c", Project: "api", Outcome: "ok", StartedAt: now.AddDate(0, 0, -7), Events: 5, Usage: store.Usage{CostUSD: 9}}, // outside 7 days
	} {
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Build(ctx, db, now, loc, 7, "api", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := Row{Runs: 1, Events: 10, Observations: 4, Duplicates: 1, InputTokens: 12000, OutputTokens: 900, CacheReadTokens: 3000, CostUSD: 0.02}
	if len(r.Rows) != 1 || r.Rows[0].Day != "2026-11-30" || r.Total != want {
		t.Fatalf("rows %+v total %+v; want one row for api today and total %+v", r.Rows, r.Total, want)
	}
	// The budget counts every project, whatever the report shows.
	if r.TodayUSD != 0.03 || !r.From.Equal(time.Date(2026, 11, 24, 0, 0, 0, 0, loc)) {
		t.Errorf("today $%v from %v", r.TodayUSD, r.From)
	}
	var b bytes.Buffer
	Render(&b, r)
	for _, s := range []string{"today $0.0300 of the $5.00 daily budget", "2026-11-30", "12,000", "0.0200", "total"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("rendered report lacks %q:\n%s", s, b.String())
		}
	}
}
