package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// SeedObservations is a benchmark and test helper, not product code: it stores n
// synthetic observations for project in one transaction (under session
// "seed-<project>"), one second apart, the newest at `at`. The text is deterministic
// (the same n gives the same rows) and its words follow a Zipf distribution over a
// fixed vocabulary, so a search meets both rare and very common words, as with real
// memory. The whole-process benchmark script uses it to build a 100,000-observation
// database.
func SeedObservations(ctx context.Context, db *DB, project string, n int, at time.Time) error {
	if n < 0 || at.IsZero() {
		return db.fail("seed", fmt.Errorf("n %d, time %v: %w", n, at, ErrInvalidArgument))
	}
	s := Session{ID: "seed-" + project, Project: project, Cwd: "/seed/" + project,
		StartedAt: at.Add(-time.Duration(n) * time.Second)}
	g := newSeedText()
	return db.fail("seed", db.write(ctx, func(tx *sql.Tx) error {
		if err := upsertSession(ctx, tx, s); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `
INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range n {
			lists, err := marshalLists(
				[]string{g.words(8), g.words(8), g.words(8)},
				[]string{g.pick(seedConcepts), g.pick(seedConcepts)},
				[]string{g.file()},
				[]string{g.file()},
			)
			if err != nil {
				return err
			}
			_, err = stmt.ExecContext(ctx, s.ID, project, fmt.Sprintf("seed-run-%d", i/20), g.pick(vocab.ObservationTypes),
				g.words(6), g.words(10), g.words(40), lists[0], lists[1], lists[2], lists[3],
				at.Add(-time.Duration(n-1-i)*time.Second).UnixNano())
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

var (
	seedConcepts = []string{"how-it-works", "why-it-exists", "what-changed", "problem-solution",
		"gotcha", "pattern", "trade-off"}
	seedSyllables = []string{"ka", "lo", "mi", "ren", "sto", "vex", "dar", "qui", "zen", "port",
		"cache", "sync", "lock", "parse", "route", "hook", "store", "auth", "db", "log"}
)

// seedText makes deterministic synthetic text.
type seedText struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newSeedText() *seedText {
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
	return &seedText{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1)), vocab: vocab}
}

func (g *seedText) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.vocab[g.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

func (g *seedText) pick(from []string) string { return from[g.r.Intn(len(from))] }

func (g *seedText) file() string {
	return "src/" + g.vocab[g.r.Intn(len(g.vocab))] + "/" + g.vocab[g.r.Intn(len(g.vocab))] + ".go"
}

// SeedWords returns the seeded vocabulary's words of the given frequency ranks (0: the
// most common), for benchmarks that search seeded memory.
func SeedWords(ranks ...int) []string {
	g := newSeedText()
	out := make([]string, len(ranks))
	for i, r := range ranks {
		out[i] = g.vocab[r]
	}
	return out
}
