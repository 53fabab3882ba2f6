package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/forget"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/when"
)

// forgetCommand is `hook forget`: it shows what goes, asks on a terminal unless --yes
// (refuses, exit 2, when stdin is not a terminal), and removes it. Exit 1 when the user says
// no or the database fails.
var forgetCommand = &command{
	name: "forget", synopsis: "ID… | --session S | --project P | --before DATE [--dry-run] [--yes] [--vacuum] [--json]",
	interspersed: true, summary: "remove memory: shows what goes and asks first",
	flags: func(fs *flag.FlagSet) action {
		o, before := forgetFlags(fs)
		return func(p *proc, ops []string) int {
			if err := o.finish(ops, *before, p.now(), p.loc); err != nil {
				return p.usageError("forget", err.Error())
			}
			return forgetCmd(p, *o)
		}
	},
}

// forgetFlags declares forget's flags on fs: the options, and --before's text.
func forgetFlags(fs *flag.FlagSet) (*forgetOpts, *string) {
	var o forgetOpts
	fs.StringVar(&o.sel.Session, "session", "", "everything of session `S`")
	fs.StringVar(&o.sel.Project, "project", "", "everything of project `P`")
	before := fs.String("before", "", "everything before `DATE` (YYYY-MM-DD: local midnight, an RFC 3339 time, or an age: 7d)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "show what would go, remove nothing")
	fs.BoolVar(&o.yes, "yes", false, "do not ask")
	fs.BoolVar(&o.vacuum, "vacuum", false, "also rewrite the database so no removed text stays in free pages")
	fs.BoolVar(&o.json, "json", false, "print what goes (and went) as JSON; with --dry-run or --yes, since it asks nothing")
	return &o, before
}

func forgetCmd(p *proc, o forgetOpts) int {
	m, close, ok := openMemory(p, "forget", false)
	defer close()
	if !ok {
		return 1
	}
	ctx, db := m.ctx, m.db
	dirs := journalDirs(p, m.st)
	plan, err := forget.Preview(ctx, db, dirs, o.sel)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s forget: %v\n", p.prog(), err)
		return 1
	}
	if o.json {
		return forgetJSON(ctx, p, db, dirs, o, plan)
	}
	for _, r := range plan.Missing {
		fmt.Fprintf(p.stderr, "%s forget: no %s %s\n", p.prog(), r.Kind, recordid.Label(r))
	}
	switch {
	case plan.Empty():
		fmt.Fprintln(p.stdout, "Nothing to forget.")
		if o.vacuum && !o.dryRun {
			return vacuum(ctx, p, db)
		}
		return 0
	case o.dryRun:
		printPlan(p.stdout, "Would forget", plan)
		fmt.Fprintln(p.stdout, "Dry run: nothing removed.")
		return 0
	}
	printPlan(p.stdout, "Would forget", plan)
	if !o.yes {
		if !p.isTerminal() {
			fmt.Fprintln(p.stderr, p.prog()+" forget: stdin is not a terminal, so nothing was removed: run again with --yes to forget these")
			return 2
		}
		fmt.Fprint(p.stdout, "Forget these? [y/N] ")
		answer, _ := bufio.NewReader(p.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(p.stdout, "Nothing removed.")
			return 1
		}
	}
	done, err := forget.Apply(ctx, db, dirs, o.sel, false)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s forget: %v\n", p.prog(), err)
		return 1
	}
	fmt.Fprintf(p.stdout, "Forgot %s.\n", planCounts(done))
	if o.vacuum {
		return vacuum(ctx, p, db)
	}
	return 0
}

// vacuum rewrites the database after a forget, or for one made earlier without --vacuum.
func vacuum(ctx context.Context, p *proc, db *store.DB) int {
	if err := db.Vacuum(ctx); err != nil {
		fmt.Fprintf(p.stderr, "%s forget: %v\n", p.prog(), err)
		if errors.Is(err, store.ErrWALBusy) {
			fmt.Fprintln(p.stderr, p.prog()+" forget: run the same command again when no session is busy: it finds nothing left to forget and finishes the rewrite")
		}
		return 1
	}
	fmt.Fprintln(p.stdout, "Database rewritten: the removed text is in no free page or WAL frame.")
	return 0
}

// printPlan shows the counts and the titles that go, a line each (clipped: clip.Line).
func printPlan(w io.Writer, head string, plan forget.Plan) {
	fmt.Fprintf(w, "%s: %s\n", head, planCounts(plan))
	for _, t := range plan.Titles {
		fmt.Fprintln(w, clip.Line("  - "+printable.Text(t), clip.MaxLine))
	}
	if plan.More > 0 {
		fmt.Fprintf(w, "  … and %d more\n", plan.More)
	}
}

// planCounts is "2 observations, 1 summary, …".
func planCounts(plan forget.Plan) string {
	return nouns(noun{plan.Observations, "observation", "observations"}, noun{plan.Summaries, "summary", "summaries"},
		noun{plan.Prompts, "prompt", "prompts"}, noun{plan.Answers, "answer", "answers"}, noun{plan.Events, "event", "events"},
		noun{plan.Sessions, "session", "sessions"}, noun{plan.Journals, "pending journal", "pending journals"},
		noun{plan.Transcripts, "observer run transcript", "observer run transcripts"})
}

// noun is a count of something, with its singular and plural.
type noun struct {
	n          int
	one, other string
}

// nouns joins counts as "2 observations, 1 summary", naming only those above zero.
func nouns(list ...noun) string {
	var parts []string
	for _, c := range list {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.other))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

type forgetOpts struct {
	sel                       forget.Selector
	dryRun, yes, vacuum, json bool
}

// finish reads the operands, record ids (12, S3, P7, as search prints them, # or not),
// and --before, and checks that something is selected.
func (o *forgetOpts) finish(ops []string, before string, now time.Time, loc *time.Location) error {
	for _, a := range ops {
		ref, err := recordid.Parse(a)
		if err != nil {
			return err
		}
		o.sel.Refs = append(o.sel.Refs, ref)
	}
	if before != "" {
		t, err := when.Start(before, now, loc)
		if err != nil {
			return fmt.Errorf("--before: %w", err)
		}
		o.sel.Before = t
	}
	if o.sel.Empty() {
		return errors.New("nothing selected: give record ids, --session, --project or --before")
	}
	if o.json && !o.dryRun && !o.yes {
		return errors.New("--json asks nothing: add --dry-run to see what would go, or --yes to forget it")
	}
	return nil
}
