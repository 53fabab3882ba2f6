package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// searchCommand is `hook search [--project P] [--limit N] [--json] QUERY`. It never starts
// an observer, so it works in search-only mode (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0). Flags
// may follow the query's words; a word that starts with - goes after --.
var searchCommand = &command{
	name: "search", operands: "QUERY", interspersed: true,
	summary: "search stored memory",
	flags: func(fs *flag.FlagSet) action {
		var o searchOpts
		fs.StringVar(&o.project, "project", "", "only project `P`")
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
	db, unstored, err := memoryOf(p, st).Read(ctx, "search")
	if unstored != nil {
		// Said whatever is found: "No results" alone would deny a prompt that is only waiting.
		defer fmt.Fprintf(p.stderr, "%s search: %v; they were not searched: search again once the database is free\n", p.prog(), unstored)
	}
	if errors.Is(err, store.ErrNoDatabase) {
		if !opts.json {
			fmt.Fprintln(p.stdout, "No memory stored yet.")
		}
		return 0
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s search: %v\n", p.prog(), err)
		return 1
	}
	defer db.Close()
	hits, err := db.Search(ctx, opts.query, opts.project, opts.limit)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s search: %v\n", p.prog(), err)
		return 1
	}
	if opts.json {
		enc := json.NewEncoder(printable.JSONWriter(p.stdout))
		for _, h := range hits {
			_ = enc.Encode(hitJSON{Kind: h.Kind, ID: h.ID, Ref: recordid.Format(vocab.Ref{Kind: h.Kind, ID: h.ID}), Project: h.Project,
				Session: h.Session, Type: h.Type, Title: h.Title, Subtitle: h.Subtitle, Snippet: h.Snippet, Similar: h.Similar,
				Asked: h.Asked, Sessions: h.Sessions, Context: h.Context, Time: when.Show(h.At, p.loc, when.Instant), Rank: h.Rank})
		}
		return 0
	}
	if len(hits) == 0 {
		fmt.Fprintln(p.stdout, clip.Line(fmt.Sprintf("No results for %q.", opts.query), clip.MaxLine))
		return 0
	}
	marks := isTerminal(p.stdout)
	for _, h := range hits {
		fmt.Fprint(p.stdout, hitLines(h, marks, p.loc))
	}
	return 0
}

// hitLines is one hit as `hook search` prints it: the record, its subtitle and how many
// near-equal records it stands for (a prompt: how often and in which sessions it was asked), then the snippet, its matched words in bold when
// marks is set (a terminal shows them; a pipe or file gets the plain text). Each line is
// clipped to clip.MaxLine characters.
func hitLines(h rank.Hit, marks bool, loc *time.Location) string {
	kind := h.Kind
	if h.Type != "" {
		kind = h.Type
	}
	head := fmt.Sprintf("%s %s [%s] %s — %s", recordid.Label(vocab.Ref{Kind: h.Kind, ID: h.ID}), when.Show(h.At, loc, when.Date),
		kind, printable.Text(h.Project), printable.Text(h.Title))
	if h.Subtitle != "" {
		head += " · " + printable.Text(h.Subtitle)
	}
	if h.Similar > 0 {
		head += fmt.Sprintf(" (+%d similar)", h.Similar)
	}
	if note := h.AskedNote(); note != "" {
		head += " (" + note + ")"
	}
	open, close := "", ""
	if marks {
		open, close = "\x1b[1m", "\x1b[0m"
	}
	snippet := rank.Marked(h.Snippet, h.Marks, open, close, printable.Text)
	return clip.Line(head, clip.MaxLine) + "\n" + clip.Line("    "+snippet, clip.MaxLine) + "\n"
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
	limit   int
	json    bool
	query   string
}

// hitJSON is the documented shape of `hook search --json` (one object per line).
type hitJSON struct {
	Kind     string   `json:"kind"`
	ID       int64    `json:"id"`
	Ref      string   `json:"ref"` // the record id: "12", "S3", "P7"
	Project  string   `json:"project"`
	Session  string   `json:"session"`
	Type     string   `json:"type,omitempty"`
	Title    string   `json:"title"`
	Subtitle string   `json:"subtitle,omitempty"`
	Snippet  string   `json:"snippet"` // plain text, no marks
	Similar  int      `json:"similar,omitempty"`
	Asked    int      `json:"asked,omitempty"`    // near-equal prompts this hit stands for, itself included
	Sessions []string `json:"sessions,omitempty"` // the sessions they were asked in
	Context  bool     `json:"context,omitempty"`  // found by its session's context only
	Time     string   `json:"time"`
	Rank     float64  `json:"rank"`
}
