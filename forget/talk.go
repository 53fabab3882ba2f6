package forget

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/internal/plural"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/when"
)

// Options are `claude-mem forget`'s: what to forget, and how to go about it.
type Options struct {
	Sel                       Selector
	DryRun, Yes, Vacuum, JSON bool
}

// Finish reads the operands, record ids (12, S3, P7, as search prints them, # or not), and
// --before's text (when.Start, at now in loc), and checks that something is selected and
// that --json is not asked to ask.
func (o *Options) Finish(ops []string, before string, now time.Time, loc *time.Location) error {
	for _, a := range ops {
		ref, err := recordid.Parse(a)
		if err != nil {
			return err
		}
		o.Sel.Refs = append(o.Sel.Refs, ref)
	}
	if before != "" {
		t, err := when.Start(before, now, loc)
		if err != nil {
			return fmt.Errorf("--before: %w", err)
		}
		o.Sel.Before = t
	}
	if o.Sel.Empty() {
		return errors.New("nothing selected: give record ids, --session, --project or --before")
	}
	if o.JSON && !o.DryRun && !o.Yes {
		return errors.New("--json asks nothing: add --dry-run to see what would go, or --yes to forget it")
	}
	return nil
}

// Exit statuses of a conversation.
const (
	ExitDone    = 0 // forgotten, or nothing to forget, or a dry run
	ExitFailed  = 1 // the person said no, or the database failed
	ExitRefused = 2 // asking was needed and nobody can answer: nothing removed
)

// Talk is forget's conversation with the person: the plan, the question, the answer, what
// went, and what to do when the rewrite could not run. Its process is values.
type Talk struct {
	Prog       string // the command as invoked (claude-mem): errors are "<Prog> forget: …"
	In         io.Reader
	Out, Err   io.Writer
	IsTerminal func() bool // In is a terminal a person can answer on
}

// Run shows what o selects in db (and the pending journals in journalDirs), asks unless
// o.Yes, removes it, and returns the exit status. Off a terminal it asks nobody: without
// --yes it refuses (ExitRefused) and removes nothing.
func (t Talk) Run(ctx context.Context, db *store.DB, journalDirs []string, o Options) int {
	plan, err := Preview(ctx, db, journalDirs, o.Sel)
	if err != nil {
		return t.fail(err)
	}
	if o.JSON {
		return t.json(ctx, db, journalDirs, o, plan)
	}
	for _, r := range plan.Missing {
		fmt.Fprintf(t.Err, "%s forget: no %s %s\n", t.Prog, r.Kind, recordid.Label(r))
	}
	switch {
	case plan.Empty():
		fmt.Fprintln(t.Out, "Nothing to forget.")
		if o.Vacuum && !o.DryRun {
			return t.vacuum(ctx, db)
		}
		return ExitDone
	case o.DryRun:
		t.plan("Would forget", plan)
		fmt.Fprintln(t.Out, "Dry run: nothing removed.")
		return ExitDone
	}
	t.plan("Would forget", plan)
	if !o.Yes {
		if t.IsTerminal == nil || !t.IsTerminal() {
			fmt.Fprintln(t.Err, t.Prog+" forget: stdin is not a terminal, so nothing was removed: run again with --yes to forget these")
			return ExitRefused
		}
		fmt.Fprint(t.Out, "Forget these? [y/N] ")
		answer, _ := bufio.NewReader(t.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(t.Out, "Nothing removed.")
			return ExitFailed
		}
	}
	done, err := Apply(ctx, db, journalDirs, o.Sel, false)
	if err != nil {
		return t.fail(err)
	}
	fmt.Fprintf(t.Out, "Forgot %s.\n", Counts(done))
	if o.Vacuum {
		return t.vacuum(ctx, db)
	}
	return ExitDone
}

func (t Talk) fail(err error) int {
	fmt.Fprintf(t.Err, "%s forget: %v\n", t.Prog, err)
	return ExitFailed
}

// vacuum rewrites the database after a forget, or for one made earlier without --vacuum.
// A rewrite a busy session blocks is finished by the same command run again.
func (t Talk) vacuum(ctx context.Context, db *store.DB) int {
	if err := db.Vacuum(ctx); err != nil {
		t.fail(err)
		if errors.Is(err, store.ErrWALBusy) {
			fmt.Fprintln(t.Err, t.Prog+" forget: run the same command again when no session is busy: it finds nothing left to forget and finishes the rewrite")
		}
		return ExitFailed
	}
	fmt.Fprintln(t.Out, "Database rewritten: the removed text is in no free page or WAL frame.")
	return ExitDone
}

// plan shows the counts and the titles that go, a line each (clipped: clip.Line).
func (t Talk) plan(head string, plan Plan) {
	fmt.Fprintf(t.Out, "%s: %s\n", head, Counts(plan))
	for _, title := range plan.Titles {
		fmt.Fprintln(t.Out, clip.Line("  - "+printable.Text(title), clip.MaxLine))
	}
	if plan.More > 0 {
		fmt.Fprintf(t.Out, "  … and %d more\n", plan.More)
	}
}

// Counts is "2 observations, 1 summary, …": what a plan removes, in words.
func Counts(p Plan) string {
	return plural.Join(plural.Of(p.Observations, "observation", "observations"), plural.Of(p.Summaries, "summary", "summaries"),
		plural.Of(p.Prompts, "prompt", "prompts"), plural.Of(p.Answers, "answer", "answers"), plural.Of(p.Events, "event", "events"),
		plural.Of(p.Sessions, "session", "sessions"), plural.Of(p.Journals, "pending journal", "pending journals"),
		plural.Of(p.Transcripts, "observer run transcript", "observer run transcripts"))
}

// planJSON is the documented shape of a plan in `forget --json`.
type planJSON struct {
	Observations int      `json:"observations"`
	Summaries    int      `json:"summaries"`
	Prompts      int      `json:"prompts"`
	Answers      int      `json:"answers"`
	Events       int      `json:"events"`
	Sessions     int      `json:"sessions"`
	Journals     int      `json:"journals"`
	Transcripts  int      `json:"transcripts"`
	Titles       []string `json:"titles"`
	More         int      `json:"more"`
}

func toPlanJSON(p Plan) *planJSON {
	titles := p.Titles
	if titles == nil {
		titles = []string{}
	}
	return &planJSON{p.Observations, p.Summaries, p.Prompts, p.Answers, p.Events, p.Sessions, p.Journals, p.Transcripts, titles, p.More}
}

// json is `forget --json` (with --dry-run or --yes: it asks nothing): one object,
// {"dry_run", "missing", "plan", "forgot", "vacuumed"}; forgot is null on a dry run.
func (t Talk) json(ctx context.Context, db *store.DB, journalDirs []string, o Options, plan Plan) int {
	out := struct {
		DryRun   bool      `json:"dry_run"`
		Missing  []string  `json:"missing"` // record ids (12, S3, P7) that name no record
		Plan     *planJSON `json:"plan"`
		Forgot   *planJSON `json:"forgot"`
		Vacuumed bool      `json:"vacuumed"`
	}{DryRun: o.DryRun, Missing: []string{}, Plan: toPlanJSON(plan)}
	for _, r := range plan.Missing {
		out.Missing = append(out.Missing, recordid.Format(r))
	}
	if !o.DryRun {
		out.Forgot = toPlanJSON(Plan{})
		if !plan.Empty() {
			done, err := Apply(ctx, db, journalDirs, o.Sel, false)
			if err != nil {
				return t.fail(err)
			}
			out.Forgot = toPlanJSON(done)
		}
		if o.Vacuum {
			if err := db.Vacuum(ctx); err != nil {
				return t.fail(err)
			}
			out.Vacuumed = true
		}
	}
	_ = json.NewEncoder(t.Out).Encode(out)
	return ExitDone
}
