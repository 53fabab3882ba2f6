package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/claude-mem/claude-mem-go/forget"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
)

// planJSON is the documented shape of a forget plan in `forget --json`.
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

func toPlanJSON(p forget.Plan) *planJSON {
	titles := p.Titles
	if titles == nil {
		titles = []string{}
	}
	return &planJSON{p.Observations, p.Summaries, p.Prompts, p.Answers, p.Events, p.Sessions, p.Journals, p.Transcripts, titles, p.More}
}

// forgetJSON is `forget --json` (with --dry-run or --yes: it asks nothing): one object,
// {"dry_run", "missing", "plan", "forgot", "vacuumed"}; forgot is null on a dry run.
func forgetJSON(ctx context.Context, p *proc, db *store.DB, dirs []string, o forgetOpts, plan forget.Plan) int {
	out := struct {
		DryRun   bool      `json:"dry_run"`
		Missing  []string  `json:"missing"` // record ids (12, S3, P7) that name no record
		Plan     *planJSON `json:"plan"`
		Forgot   *planJSON `json:"forgot"`
		Vacuumed bool      `json:"vacuumed"`
	}{DryRun: o.dryRun, Missing: []string{}, Plan: toPlanJSON(plan)}
	for _, r := range plan.Missing {
		out.Missing = append(out.Missing, recordid.Format(r))
	}
	if !o.dryRun {
		if !plan.Empty() {
			done, err := forget.Apply(ctx, db, dirs, o.sel, false)
			if err != nil {
				fmt.Fprintf(p.stderr, "%s forget: %v\n", p.prog(), err)
				return 1
			}
			out.Forgot = toPlanJSON(done)
		} else {
			out.Forgot = toPlanJSON(forget.Plan{})
		}
		if o.vacuum {
			if err := db.Vacuum(ctx); err != nil {
				fmt.Fprintf(p.stderr, "%s forget: %v\n", p.prog(), err)
				return 1
			}
			out.Vacuumed = true
		}
	}
	_ = json.NewEncoder(p.stdout).Encode(out)
	return 0
}
