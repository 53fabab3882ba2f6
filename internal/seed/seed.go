// Package seed generates synthetic memory for tests and benchmarks, not product code:
// observations whose words follow a Zipf distribution (Observations), and a coding
// project's history of sessions (Story). The same arguments give the same rows. Both are
// stored as `hook import` stores a file (store.(*DB).ImportParts), in one transaction.
package seed

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// NewText is the generator Observations writes with, from its start.
func NewText() *Text { return newText() }

// Observations stores n synthetic observations for project (under session
// "seed-<project>"), one second apart, the newest at `at`. A search meets both rare and
// very common words, as with real memory. The whole-process benchmark uses it to build a
// 100,000-observation database.
func Observations(ctx context.Context, db *store.DB, project string, n int, at time.Time) error {
	if n < 0 || at.IsZero() {
		return fmt.Errorf("seed: n %d, time %v: %w", n, at, store.ErrInvalidArgument)
	}
	s := store.Session{ID: "seed-" + project, Project: project, Cwd: "/seed/" + project,
		StartedAt: at.Add(-time.Duration(n) * time.Second)}
	g := newText()
	b := store.ImportBatch{Sessions: []store.Session{s}, Observations: make([]store.Observation, 0, n)}
	for i := range n {
		// Drawn in this order, so the same n gives the same text.
		o := store.Observation{SessionID: s.ID, Project: project, At: at.Add(-time.Duration(n-1-i) * time.Second)}
		o.Facts = []string{g.Words(8), g.Words(8), g.Words(8)}
		o.Concepts = []string{g.pick(seedConcepts), g.pick(seedConcepts)}
		o.FilesRead, o.FilesModified = []string{g.file()}, []string{g.file()}
		o.Type, o.Title, o.Subtitle, o.Narrative = g.pick(vocab.ObservationTypes), g.Words(6), g.Words(10), g.Words(40)
		b.Observations = append(b.Observations, o)
	}
	return write(ctx, db, b)
}

// write stores b in one transaction.
func write(ctx context.Context, db *store.DB, b store.ImportBatch) error {
	_, err := db.ImportParts(ctx, func(add func(store.ImportBatch) error) error { return add(b) })
	return err
}

var (
	seedConcepts = []string{"how-it-works", "why-it-exists", "what-changed", "problem-solution",
		"gotcha", "pattern", "trade-off"}
	seedSyllables = []string{"ka", "lo", "mi", "ren", "sto", "vex", "dar", "qui", "zen", "port",
		"cache", "sync", "lock", "parse", "route", "hook", "store", "auth", "db", "log"}
)

// Text makes deterministic synthetic text: words of a fixed vocabulary of 8,400, in a
// Zipf distribution.
type Text struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newText() *Text {
	r := rand.New(rand.NewSource(1))
	// Every two- and three-syllable combination: 8,400 distinct words.
	var vocab []string
	for _, a := range seedSyllables {
		for _, b := range seedSyllables {
			vocab = append(vocab, a+b)
			for _, c := range seedSyllables {
				vocab = append(vocab, a+b+c)
			}
		}
	}
	r.Shuffle(len(vocab), func(i, j int) { vocab[i], vocab[j] = vocab[j], vocab[i] })
	return &Text{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1)), vocab: vocab}
}

// Words is n words of the vocabulary.
func (g *Text) Words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.vocab[g.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

func (g *Text) pick(from []string) string { return from[g.r.Intn(len(from))] }

func (g *Text) file() string {
	return "src/" + g.vocab[g.r.Intn(len(g.vocab))] + "/" + g.vocab[g.r.Intn(len(g.vocab))] + ".go"
}

// Words returns the seeded vocabulary's words of the given frequency ranks (0: the
// most common), for benchmarks that search seeded memory.
func Words(ranks ...int) []string {
	g := newText()
	out := make([]string, len(ranks))
	for i, r := range ranks {
		out[i] = g.vocab[r]
	}
	return out
}
