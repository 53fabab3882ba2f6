// Package codingmem reads the project's coding-memory retrieval set (testdata/codingmem)
// and scores a search engine on it: for each query, whether a record that answers it is
// among the first k hits. The set was written before search was tuned, as a held-out
// check that what raises a benchmark holds for coding memory too; its answers are never
// changed to make a test pass.
package codingmem

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files of the set, in its directory.
const (
	MemoryFile  = "memory.jsonl"  // a claude-mem export: `hook import` takes it
	QueriesFile = "queries.jsonl" // one Query per line
)

// Query is one question asked of the set, in the project it was asked in.
type Query struct {
	ID      string   `json:"id"`
	Project string   `json:"project"`
	Form    string   `json:"form"` // what the query tests: bug-report, where-configured, why-chosen, word-form, session-context, summary, prompt, how, repeated-prompt
	Text    string   `json:"query"`
	Answers []Answer `json:"answers"` // any one of them in the top k is a hit
}

// Answer is one record that answers a query: its kind and time (unique in the set to the
// second, which search prints), its session and title for the reader.
type Answer struct {
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	At      string `json:"at"` // RFC 3339 UTC
	Title   string `json:"title"`
}

// Hit is what a search printed of one result: its kind and time.
type Hit struct {
	Kind string
	At   string // RFC 3339 UTC, at least to the second
	Desc string // how the hit is shown in a miss report
}

// matches reports whether the hit is the answer's record.
func (a Answer) matches(h Hit) bool {
	return a.Kind == h.Kind && len(h.At) >= 19 && len(a.At) >= 19 && a.At[:19] == h.At[:19]
}

// Dir is the set's directory, found from the working directory up to the module root.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "codingmem"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("codingmem: no go.mod above %s", wd)
		}
	}
}

// Load reads the queries of the set in dir.
func Load(dir string) ([]Query, error) {
	f, err := os.Open(filepath.Join(dir, QueriesFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []Query
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", QueriesFile, n, err)
		}
		if len(q.Answers) == 0 {
			return nil, fmt.Errorf("%s line %d: query %s has no answer", QueriesFile, n, q.ID)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

// Result is a score over the set at one k.
type Result struct {
	K, Hits, Queries int
	Misses           []string // one paragraph per query without an answer in its top k
}

// HitAt is the share of queries with an answer in their top k.
func (r Result) HitAt() float64 {
	if r.Queries == 0 {
		return 0
	}
	return float64(r.Hits) / float64(r.Queries)
}

// Report is the figure and every miss: what was asked, what answers it, what came instead.
func (r Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hit@%d = %.3f (%d of %d queries)\n", r.K, r.HitAt(), r.Hits, r.Queries)
	for _, m := range r.Misses {
		b.WriteString(m)
	}
	return b.String()
}

// Target is the hit@5 the product holds on the set (issue 22).
const Target = 0.9

// Evaluation is one engine's score on the set, each query asked once.
type Evaluation struct {
	At1, At5, At10 Result
	// Control scores each query's hits against the next query's answers: far below the
	// real score, or the matcher is not telling records apart.
	Control Result
}

// Evaluate asks every query through search (hits in rank order, at least 10 when there
// are) and scores the hits at 1, 5 and 10, and the control at 5.
func Evaluate(qs []Query, search func(Query) ([]Hit, error)) (Evaluation, error) {
	var ev Evaluation
	hits := make(map[string][]Hit, len(qs))
	for _, q := range qs {
		h, err := search(q)
		if err != nil {
			return ev, fmt.Errorf("query %s %q: %w", q.ID, q.Text, err)
		}
		hits[q.ID] = h
	}
	ev.At1, ev.At5, ev.At10 = score(qs, 1, hits), score(qs, 5, hits), score(qs, 10, hits)
	shifted := make([]Query, len(qs))
	for i, q := range qs {
		shifted[i] = q
		shifted[i].Answers = qs[(i+1)%len(qs)].Answers
	}
	ev.Control = score(shifted, 5, hits)
	return ev, nil
}

// Figures is the one-line score.
func (ev Evaluation) Figures() string {
	return fmt.Sprintf("%d queries: hit@1 %.3f  hit@5 %.3f  hit@10 %.3f  (control %.3f)",
		ev.At5.Queries, ev.At1.HitAt(), ev.At5.HitAt(), ev.At10.HitAt(), ev.Control.HitAt())
}

// Err says why the evaluation fails the product's bar: hit@5 under Target (with every
// miss), or a control that scores as if hits matched any answer.
func (ev Evaluation) Err() error {
	if c := ev.Control.HitAt(); c > 0.3 {
		return fmt.Errorf("control: each query's hits match the next query's answers at hit@5 %.3f: the matcher does not tell records apart", c)
	}
	if ev.At5.HitAt() < Target {
		return fmt.Errorf("hit@5 below %.1f: %s", Target, ev.At5.Report())
	}
	return nil
}

// score counts the queries with an answer among their first k hits.
func score(qs []Query, k int, all map[string][]Hit) Result {
	r := Result{K: k, Queries: len(qs)}
	for _, q := range qs {
		hits := all[q.ID]
		top := hits[:min(k, len(hits))]
		if found(q, top) {
			r.Hits++
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "MISS %s [%s] %q (project %s)\n  wanted:\n", q.ID, q.Form, q.Text, q.Project)
		for _, a := range q.Answers {
			fmt.Fprintf(&b, "    %s %s %s %q%s\n", a.Key, a.Kind, a.At[:19], a.Title, rankOf(a, hits))
		}
		fmt.Fprintf(&b, "  got %d hits, first %d:\n", len(hits), len(top))
		for i, h := range top {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, h.Desc)
		}
		r.Misses = append(r.Misses, b.String())
	}
	return r
}

// rankOf says where in all the hits the answer came, if anywhere.
func rankOf(a Answer, hits []Hit) string {
	for i, h := range hits {
		if a.matches(h) {
			return fmt.Sprintf(" (hit #%d)", i+1)
		}
	}
	return " (not among the hits)"
}

func found(q Query, hits []Hit) bool {
	for _, h := range hits {
		for _, a := range q.Answers {
			if a.matches(h) {
				return true
			}
		}
	}
	return false
}
