package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// asPrefix is the index with no prefix spelled out: every prefix is matched by FTS5 itself.
type asPrefix struct{ rank.Index }

func (asPrefix) Words(context.Context, string, int) ([]string, bool, error) { return nil, false, nil }

// spelled counts the prefixes the index spelled out.
type spelled struct {
	rank.Index
	n *int
}

func (s spelled) Words(ctx context.Context, prefix string, n int) ([]string, bool, error) {
	words, ok, err := s.Index.Words(ctx, prefix, n)
	if ok {
		*s.n++
	}
	return words, ok, err
}

// prefixVocabulary: words whose stems share beginnings, stems that are not their own stem
// ("agreed" is "agre", which stems to "agr"), diacritics, runs of Han and Kana (one word
// each to the index), Cyrillic, and twenty words of one prefix.
var prefixVocabulary = func() []string {
	words := strings.Fields(`idempotent idempotency idempotence identity identifier identical agreed
agreement agreeable retry retries retrying retrieval retrieve handler handlers handling naïveté café
cafeteria generalization general generate connection connected connecting 東京都庁 東京タワー
проверка проверить`)
	for i := range 20 {
		words = append(words, fmt.Sprintf("zeta%c%c", 'a'+i%5, 'a'+i/5))
	}
	return words
}()

// TestPrefixSpelledOut: whether the index spells a prefix out as its words or FTS5 merges
// them itself, a query of that prefix (alone, beside a word, or excluded) finds the same
// records; and the rule spells out only what it can (the control: some prefixes are, some
// are not, and a search found something either way).
func TestPrefixSpelledOut(t *testing.T) {
	ctx := context.Background()
	db, _ := memtest.Open(t)
	s := memtest.Session("w1", "words")
	var obs []store.Observation
	for i, w := range prefixVocabulary {
		other := prefixVocabulary[(i*7+3)%len(prefixVocabulary)]
		obs = append(obs, store.Observation{Type: "discovery", Title: fmt.Sprintf("Note %d on %s", i, w),
			Narrative: "The " + w + " path met the " + other + " path.", Facts: []string{"about " + other}})
	}
	memtest.Remember(t, db, s, 10, obs, nil)
	f := rank.Filter{}
	idx := db.SearchIndex(f)
	found := func(x rank.Index, q string) map[vocab.Ref]bool {
		t.Helper()
		hits, err := rank.Search(ctx, x, q, f, 1000)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		out := map[vocab.Ref]bool{}
		for _, h := range hits {
			if !h.Context {
				out[vocab.Ref{Kind: h.Kind, ID: h.ID}] = true
			}
		}
		return out
	}
	n, queries, matched := 0, 0, 0
	for _, w := range prefixVocabulary {
		runes := []rune(w)
		for l := 2; l <= len(runes); l++ {
			p := string(runes[:l]) + "*"
			for _, q := range []string{p, "path " + p, "path -" + p} {
				queries++
				want, got := found(asPrefix{idx}, q), found(spelled{idx, &n}, q)
				if !maps.Equal(want, got) {
					t.Errorf("%q: spelled out found %d records %v, as a prefix %d %v", q, len(got), slices.Collect(maps.Keys(got)), len(want), slices.Collect(maps.Keys(want)))
				}
				if len(want) > 0 {
					matched++
				}
			}
		}
	}
	t.Logf("%d queries, %d matching, %d prefixes spelled out", queries, matched, n)
	if n == 0 || n == queries || matched == 0 {
		t.Errorf("%d of %d queries spelled out a prefix, %d matched: the comparison tested nothing", n, queries, matched)
	}
	for _, c := range []struct {
		prefix string
		words  []string // nil: left to FTS5
	}{
		{"idem", []string{"idempot"}},
		{"idempotency", []string{"idempot"}}, // stemmed as the index stems it
		{"idempotenc", nil},                  // its own stem, which begins no word (FTS5 finds none either)
		{"retr", []string{"retri", "retriev"}},
		{"connect", []string{"connect"}},
		{"ide", nil},   // the prefix index answers it
		{"agree", nil}, // "agre" is not its own stem: quoted, it would be read as "agr"
		{"zeta", nil},  // more words than asked for
		{"zzzz", nil},  // no word
	} {
		words, ok, err := idx.Words(ctx, c.prefix, 16)
		if err != nil || ok != (c.words != nil) || !slices.Equal(words, c.words) {
			t.Errorf("Words(%q) = %q, %v, %v; want %q", c.prefix, words, ok, err, c.words)
		}
	}
}
