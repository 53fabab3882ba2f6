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
