//go:build linux

package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/codingmem"
)

// TestCodingMemSearch holds `hook search` to hit@5 >= 0.9 on the project's coding-memory
// set (testdata/codingmem, DESIGN §23), imported with `hook import` into an empty data dir:
// each query asked as `hook search --json --project P --limit 10 -- QUERY`, in its project.
func TestCodingMemSearch(t *testing.T) {
	dir := filepath.Join(repoRoot, "testdata", "codingmem")
	qs, err := codingmem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	if r := h.runIn(h.work, nil, nil, "import", filepath.Join(dir, codingmem.MemoryFile)); r.code != 0 {
		t.Fatalf("hook import exit %d: %s", r.code, r.stderr)
	}
	ev, err := codingmem.Evaluate(qs, func(q codingmem.Query) ([]codingmem.Hit, error) {
		r, err := h.exec(h.work, nil, h.environ(nil), "search", "--json", "--project", q.Project, "--limit", "10", "--", q.Text)
		if err != nil {
			return nil, err
		}
		if r.code != 0 || r.stderr != "" {
			return nil, fmt.Errorf("hook search exit %d: %s", r.code, r.stderr)
		}
		var hits []codingmem.Hit
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		for {
			var hit struct {
				Kind  string `json:"kind"`
				ID    any    `json:"id"`
				Title string `json:"title"`
				Time  string `json:"time"`
			}
			if err := dec.Decode(&hit); err == io.EOF {
				return hits, nil
			} else if err != nil {
				return nil, fmt.Errorf("hook search --json printed %q: %v", r.stdout, err)
			}
			hits = append(hits, codingmem.Hit{Kind: hit.Kind, At: hit.Time, Desc: fmt.Sprintf("%v %s %s %q", hit.ID, hit.Kind, hit.Time, hit.Title)})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("hook search on the coding-memory set, " + ev.Figures())
	if err := ev.Err(); err != nil {
		t.Error(err)
	}
}

// TestCodingMemRepeatedQuestion: on the coding-memory set, a question asked in three
// sessions and answered by an observation in the last (query pay-health-429) gives that
// observation first and the three prompts as one hit, asked 3 times in their sessions.
func TestCodingMemRepeatedQuestion(t *testing.T) {
	dir := filepath.Join(repoRoot, "testdata", "codingmem")
	qs, err := codingmem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var q codingmem.Query
	for _, c := range qs {
		if c.ID == "pay-health-429" {
			q = c
		}
	}
	if q.ID == "" || q.Answers[0].Kind != "observation" {
		t.Fatalf("the set has no query pay-health-429 answered by an observation first: %+v", q)
	}
	h := newHarness(t)
	if r := h.runIn(h.work, nil, nil, "import", filepath.Join(dir, codingmem.MemoryFile)); r.code != 0 {
		t.Fatalf("hook import exit %d: %s", r.code, r.stderr)
	}
	r := h.runIn(h.work, nil, nil, "search", "--json", "--project", q.Project, "--limit", "10", "--", q.Text)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("hook search exit %d: %s", r.code, r.stderr)
	}
	type hit struct {
		Kind     string   `json:"kind"`
		Title    string   `json:"title"`
		Time     string   `json:"time"`
		Asked    int      `json:"asked"`
		Sessions []string `json:"sessions"`
	}
	var hits []hit
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for {
		var x hit
		if err := dec.Decode(&x); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("hook search --json printed %q: %v", r.stdout, err)
		}
		hits = append(hits, x)
	}
	if len(hits) == 0 || hits[0].Kind != "observation" || hits[0].Time[:19] != q.Answers[0].At[:19] {
		t.Errorf("first hit %+v, want the observation %q", hits[:min(1, len(hits))], q.Answers[0].Title)
	}
	var prompts []hit
	for _, x := range hits {
		if x.Kind == "prompt" && strings.Contains(strings.ToLower(x.Title), "429 for") {
			prompts = append(prompts, x)
		}
	}
	if len(prompts) != 1 || prompts[0].Asked != 3 || len(prompts[0].Sessions) != 3 {
		t.Errorf("the question's prompts: %+v; want one hit, asked 3 times in 3 sessions", prompts)
	}
	text := h.runIn(h.work, nil, nil, "search", "--project", q.Project, "--limit", "10", "--", q.Text)
	if !strings.Contains(text.stdout, "(asked 3 times, in sessions ") {
		t.Errorf("hook search printed no \"asked 3 times\":\n%s", text.stdout)
	}
}
