package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/claude-mem/claude-mem-go/store"
)

// searchCmd is `hook search [--project P] [--limit N] [--json] QUERY`. It never starts an
// observer, so it works in search-only mode (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0).
func searchCmd(p *proc, args []string) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(p.stderr)
	proj := fs.String("project", "", "only this project")
	limit := fs.Int("limit", 20, "at most this many hits")
	asJSON := fs.Bool("json", false, "one JSON object per hit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	query := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(query) == "" || *limit < 1 {
		fmt.Fprintln(p.stderr, "usage: hook search [--project P] [--limit N] [--json] QUERY")
		return 2
	}
	st := setup(p)
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	db, err := store.OpenReadOnly(dbPath(st.s))
	if errors.Is(err, store.ErrNoDatabase) {
		if !*asJSON {
			fmt.Fprintln(p.stdout, "No memory stored yet.")
		}
		return 0
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "hook search: %v\n", err)
		return 1
	}
	defer db.Close()
	hits, err := db.Search(ctx, query, *proj, *limit)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook search: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(p.stdout)
		for _, h := range hits {
			_ = enc.Encode(hitJSON{Kind: h.Kind, ID: h.ID, Project: h.Project, Session: h.Session, Title: h.Title, Snippet: h.Snippet, Time: h.At.UTC().Format("2006-01-02T15:04:05Z"), Rank: h.Rank})
		}
		return 0
	}
	if len(hits) == 0 {
		fmt.Fprintf(p.stdout, "No results for %q.\n", query)
		return 0
	}
	for _, h := range hits {
		fmt.Fprintf(p.stdout, "#%d %s [%s] %s — %s\n    %s\n", h.ID, h.At.UTC().Format("2006-01-02"), h.Kind, h.Project, h.Title, h.Snippet)
	}
	return 0
}

// hitJSON is the documented shape of `hook search --json` (one object per line).
type hitJSON struct {
	Kind    string  `json:"kind"`
	ID      int64   `json:"id"`
	Project string  `json:"project"`
	Session string  `json:"session"`
	Title   string  `json:"title"`
	Snippet string  `json:"snippet"`
	Time    string  `json:"time"`
	Rank    float64 `json:"rank"`
}
