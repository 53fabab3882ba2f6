package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/claude-mem/claude-mem-go/hits"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/sync/remote"
)

// searchCommand is `hook search [--project P] [--author NAME] [--limit N] [--json] QUERY`. It never starts
// an observer, so it works in search-only mode (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0). Flags
// may follow the query's words; a word that starts with - goes after --.
var searchCommand = &command{
	Name: "search", Operands: "QUERY", Interspersed: true,
	Summary: "search stored memory",
	Flags: func(fs *flag.FlagSet) action {
		var o searchOpts
		fs.StringVar(&o.project, "project", "", "only project `P`")
		fs.StringVar(&o.author, "author", "", "only records `NAME` wrote: a teammate's name as hits show it, or your own")
		fs.IntVar(&o.limit, "limit", 20, "at most `N` hits")
		fs.BoolVar(&o.json, "json", false, "print one JSON object per hit")
		return func(p *proc, ops []string) int {
			o.query = strings.TrimSpace(strings.Join(ops, " "))
			o.project = project.Filter(o.project)
			switch {
			case o.query == "":
				return p.usageError("search", "no query")
			case o.limit < 1:
				return p.usageError("search", fmt.Sprintf("--limit %d: at least 1", o.limit))
			}
			return searchCmd(p, o)
		}
	},
}

func searchCmd(p *proc, opts searchOpts) int {
	st := setupFor(p, false)
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	db, unstored, err := memoryOf(p, st).ReadAny(ctx, "search")
	if unstored != nil {
		// Said whatever is found: "No results" alone would deny a prompt that is only waiting.
		defer fmt.Fprintf(p.stderr, "%s search: %v; they were not searched: search again once the database is free\n", p.prog(), unstored)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s search: %v\n", p.prog(), err)
		return 1
	}
	if db == nil {
		_ = hits.WriteNoMemory(p.stdout, hits.Options{JSON: opts.json})
		return 0
	}
	defer db.Close()
	f := rank.Filter{Project: opts.project, Author: rank.AuthorFilter(strings.TrimSpace(opts.author), remote.Role(st.s.SyncURL))}
	found, err := db.SearchWithin(ctx, opts.query, f, opts.limit)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s search: %v\n", p.prog(), err)
		return 1
	}
	if err := hits.Write(p.stdout, found, hits.Options{Query: opts.query, JSON: opts.json, Marks: isTerminal(p.stdout), Loc: p.loc}); err != nil {
		fmt.Fprintf(p.stderr, "%s search: %v\n", p.prog(), err)
		return 1
	}
	return 0
}

// isTerminal: w is a character device (a terminal), where bold marks render.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

type searchOpts struct {
	project string
	author  string
	limit   int
	json    bool
	query   string
}
