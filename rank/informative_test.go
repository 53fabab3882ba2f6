package rank_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/store"
)

// TestSearchLeavesOutWordsInMostRecords: a word in most observations is not searched while
// another term remains, and a query of such words alone is ranked by recency; a word in
// fewer is searched, whether the query's words together are dense (each is judged) or not
// (judged at once).
func TestSearchLeavesOutWordsInMostRecords(t *testing.T) {
	ctx := context.Background()
	db, _ := memtest.Open(t)
	// everywhere: 9 in 10 observations; also: 17 in 20; mid: 3 in 10; rare: 1 in 100.
	var obs []store.Observation
	for i := range 1000 {
		words := []string{fmt.Sprintf("Note %d", i)}
		for _, w := range []struct {
			word string
			in   bool
		}{{"everywhere", i%10 != 0}, {"also", i%20 >= 3}, {"mid", i%10 < 3}, {"rare", i%100 == 7}} {
			if w.in {
				words = append(words, w.word)
			}
		}
		title := strings.Join(words, " ")
		obs = append(obs, store.Observation{Type: "discovery", Title: title, Narrative: title + ".", At: memtest.At(i)})
	}
	memtest.Remember(t, db, memtest.Session("s1", "p"), 1, obs, nil)
	search := func(q string) []rank.Hit {
		t.Helper()
		hits, err := db.Search(ctx, q, "p", 50)
		if err != nil {
			t.Fatal(err)
		}
		return direct(hits)
	}
	holding := func(hits []rank.Hit, word string) int {
		n := 0
		for _, h := range hits {
			if strings.Contains(h.Title, " "+word) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		query, word string // every hit holds word
		hits        int    // and there are as many
	}{
		{"everywhere rare", "rare", 10},
		{"rare everywhere also", "rare", 10},
		{"everywhere mid", "mid", 50},
		{"also mid everywhere", "mid", 50},
	} {
		hits := search(c.query)
		if len(hits) != c.hits || holding(hits, c.word) != c.hits {
			t.Errorf("%q: %d hits, %d holding %q; want %d, all holding it", c.query, len(hits), holding(hits, c.word), c.word, c.hits)
		}
	}
	// Words together not dense: each is searched (records holding only mid are hits).
	if hits := search("mid rare"); holding(hits, "rare") != 10 || holding(hits, "mid") == 0 {
		t.Errorf(`"mid rare": %d hits, %d holding rare, %d mid; want the 10 and some of mid`, len(hits), holding(hits, "rare"), holding(hits, "mid"))
	}
	// Dense words alone: ranked by recency, so the hits are among the newest records
	// (bm25 would find the shortest among all 900, from any time).
	for _, q := range []string{"everywhere", "everywhere also"} {
		hits := search(q)
		for _, h := range hits {
			if h.At.Before(memtest.At(850)) {
				t.Errorf("%q: a hit at %v, older than the newest 150 records", q, h.At)
				break
			}
		}
		if len(hits) < 40 {
			t.Errorf("%q: %d hits, want the pool's best 50", q, len(hits))
		}
	}
}
