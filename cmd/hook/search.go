package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/claude-mem/claude-mem-go/store"
)

// searchCmd is `hook search [--project P] [--limit N] [--json] QUERY`. It never starts an
// observer, so it works in search-only mode (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0).
func searchCmd(p *proc, args []string) int {
	opts, err := parseSearchArgs(args)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook search: %v\nusage: hook search [--project P] [--limit N] [--json] QUERY\n", err)
		return 2
	}
	st := setup(p)
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	if st.dataDirErr == nil {
		if err := ingestPending(ctx, p, st); err != nil {
			st.log.Warn().Err(err).Msg("ingesting the capture journal failed; searching without what it holds")
		}
	}
	db, err := store.OpenReadOnly(dbPath(st.s))
	if errors.Is(err, store.ErrNoDatabase) {
		if !opts.json {
			fmt.Fprintln(p.stdout, "No memory stored yet.")
		}
		return 0
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "hook search: %v\n", err)
		return 1
	}
	defer db.Close()
	hits, err := db.Search(ctx, opts.query, opts.project, opts.limit)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook search: %v\n", err)
		return 1
	}
	if opts.json {
		enc := json.NewEncoder(p.stdout)
		for _, h := range hits {
			_ = enc.Encode(hitJSON{Kind: h.Kind, ID: h.ID, Project: h.Project, Session: h.Session, Title: h.Title, Snippet: h.Snippet, Time: h.At.UTC().Format("2006-01-02T15:04:05Z"), Rank: h.Rank})
		}
		return 0
	}
	if len(hits) == 0 {
		fmt.Fprintf(p.stdout, "No results for %q.\n", opts.query)
		return 0
	}
	for _, h := range hits {
		fmt.Fprintf(p.stdout, "#%d %s [%s] %s — %s\n    %s\n", h.ID, h.At.UTC().Format("2006-01-02"), h.Kind, h.Project, h.Title, h.Snippet)
	}
	return 0
}

type searchOpts struct {
	project string
	limit   int
	json    bool
	query   string
}

// parseSearchArgs reads the three options anywhere before `--`; every other word, a leading
// `-` included (`hook search -bar`), is part of the query, which is plain words.
func parseSearchArgs(args []string) (searchOpts, error) {
	o := searchOpts{limit: 20}
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isOpt := strings.HasPrefix(a, "-") && (name == "project" || name == "limit" || name == "json")
		switch {
		case a == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case !isOpt:
			words = append(words, a)
		case name == "json":
			o.json = !hasVal || val == "true"
		default:
			if !hasVal {
				if i+1 == len(args) {
					return o, fmt.Errorf("--%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "project" {
				o.project = val
			} else if n, err := strconv.Atoi(val); err != nil || n < 1 {
				return o, fmt.Errorf("--limit %q is not a whole number ≥ 1", val)
			} else {
				o.limit = n
			}
		}
	}
	o.query = strings.TrimSpace(strings.Join(words, " "))
	if o.query == "" {
		return o, fmt.Errorf("no query")
	}
	return o, nil
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
