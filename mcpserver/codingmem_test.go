package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/internal/codingmem"
)

// TestCodingMemSearch holds the search tool to hit@5 >= 0.9 on the project's coding-memory
// set (testdata/codingmem, DESIGN §23), imported as `hook import` does, each query asked
// in its project with limit 10 through the SDK's in-memory transport.
func TestCodingMemSearch(t *testing.T) {
	dir, err := codingmem.Dir()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := codingmem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	f, err := os.Open(filepath.Join(dir, codingmem.MemoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := w.mem.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	_, err = archive.Import(context.Background(), db, f)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, w.deps(w.webDir))
	ev, err := codingmem.Evaluate(qs, func(q codingmem.Query) ([]codingmem.Hit, error) {
		res := call(t, cs, "search", map[string]any{"query": q.Text, "project": q.Project, "limit": 10})
		if res.IsError {
			return nil, fmt.Errorf("tool error: %s", text(res))
		}
		var out IndexOut
		structured(t, res, &out)
		var hits []codingmem.Hit
		for _, e := range out.Entries {
			hits = append(hits, codingmem.Hit{Kind: e.Kind, At: e.Time, Desc: fmt.Sprintf("#%s %s %s %q", e.Ref, e.Kind, e.Time, e.Title)})
		}
		return hits, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("MCP search on the coding-memory set, " + ev.Figures())
	if err := ev.Err(); err != nil {
		t.Error(err)
	}
}
