package codingmem

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetLoads: the committed set has the promised size, and every answer names a record
// of memory.jsonl by its kind and second.
func TestSetLoads(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Errorf("%d queries, want at least 40", len(qs))
	}
	f, err := os.Open(filepath.Join(dir, MemoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records := map[string]bool{} // kind and second
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Kind, At string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.At != "" {
			records[r.Kind+" "+r.At[:19]] = true
		}
	}
	if len(records) < 400 {
		t.Errorf("%d records, want at least 400", len(records))
	}
	for _, q := range qs {
		if q.ID == "" || q.Project == "" || q.Text == "" || q.Form == "" {
			t.Errorf("query %+v lacks a field", q)
		}
		for _, a := range q.Answers {
			if !records[a.Kind+" "+a.At[:19]] {
				t.Errorf("query %s: answer %s (%s %s) is no record of %s", q.ID, a.Key, a.Kind, a.At, MemoryFile)
			}
		}
	}
}

// TestEvaluate: an answer in the top k is a hit, one below k or of another kind at the
// same second is not, and the control catches a matcher that matches anything.
func TestEvaluate(t *testing.T) {
	a := Answer{Key: "x.o1", Kind: "observation", At: "2026-03-05T14:24:17Z", Title: "the answer"}
	b := Answer{Key: "y.s", Kind: "summary", At: "2026-04-05T10:00:30Z", Title: "another"}
	other := Hit{Kind: "observation", At: "2026-01-01T00:00:00Z", Desc: "other"}
	qs := []Query{{ID: "q1", Project: "p", Text: "one", Answers: []Answer{a}}, {ID: "q2", Project: "p", Text: "two", Answers: []Answer{b}}}
	hits := map[string][]Hit{
		"q1": {other, {Kind: "observation", At: "2026-03-05T14:24:17.000000017Z", Desc: "a"}},
		"q2": {other, other, other, other, other, {Kind: "summary", At: b.At, Desc: "b"}},
	}
	ev, err := Evaluate(qs, func(q Query) ([]Hit, error) { return hits[q.ID], nil })
	if err != nil {
		t.Fatal(err)
	}
	if ev.At1.Hits != 0 || ev.At5.Hits != 1 || ev.At10.Hits != 2 || ev.Control.Hits != 0 {
		t.Errorf("hits at 1, 5, 10, control: %d %d %d %d", ev.At1.Hits, ev.At5.Hits, ev.At10.Hits, ev.Control.Hits)
	}
	err = ev.Err()
	if err == nil || !strings.Contains(err.Error(), "MISS q2") || !strings.Contains(err.Error(), "y.s summary 2026-04-05T10:00:30 \"another\" (hit #6)") {
		t.Errorf("Err: %v", err)
	}
	// The same second as another kind is not the answer.
	hits["q2"] = []Hit{{Kind: "prompt", At: b.At, Desc: "b as a prompt"}}
	if ev, _ = Evaluate(qs, func(q Query) ([]Hit, error) { return hits[q.ID], nil }); ev.At5.Hits != 1 {
		t.Errorf("a prompt at the summary's second counted as the summary")
	}
	// A search answering every query with every answer passes the target, not the control.
	all := []Hit{{Kind: a.Kind, At: a.At}, {Kind: b.Kind, At: b.At}}
	ev, _ = Evaluate(qs, func(Query) ([]Hit, error) { return all, nil })
	if err := ev.Err(); ev.At5.HitAt() != 1 || err == nil || !strings.Contains(err.Error(), "control") {
		t.Errorf("hit@5 %.2f, Err %v: want 1 and the control failing", ev.At5.HitAt(), err)
	}
}
