package seed_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/store"
)

func TestObservations(t *testing.T) {
	ctx := context.Background()
	db, _ := memtest.Open(t)
	if err := seed.Observations(ctx, db, "bench", 120, memtest.T0); err != nil {
		t.Fatal(err)
	}
	if ps, err := db.Projects(ctx); err != nil || len(ps) != 1 || ps[0].Observations != 120 {
		t.Errorf("projects %+v, %v; want 120 observations of bench", ps, err)
	}
	recent, err := db.RecentObservations(ctx, "bench", 2)
	if err != nil || len(recent) != 2 || !recent[0].At.Equal(memtest.T0) || !recent[1].At.Equal(memtest.At(-1)) {
		t.Fatalf("newest seeded: %+v, %v; want at t0 and one second before", recent, err)
	}
	if len(recent[0].Facts) != 3 || recent[0].Title == "" || recent[0].Narrative == "" {
		t.Errorf("seeded observation lacks text: %+v", recent[0])
	}
	hits, err := db.Search(ctx, strings.Fields(recent[0].Title)[0], "bench", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("a seeded word is not found: %v, %v", hits, err)
	}
	// Deterministic: a second database seeded alike holds the same text.
	db2, _ := memtest.Open(t)
	if err := seed.Observations(ctx, db2, "bench", 120, memtest.T0); err != nil {
		t.Fatal(err)
	}
	again, _ := db2.RecentObservations(ctx, "bench", 2)
	if !reflect.DeepEqual(recent, again) {
		t.Error("seeding is not deterministic")
	}
	if err := seed.Observations(ctx, db, "bench", -1, memtest.T0); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("n -1: %v, want store.ErrInvalidArgument", err)
	}
}
