package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/stats"
)

// statsCommand is `hook stats [--days N] [--project P] [--json]`.
var statsCommand = &command{
	Name: "stats", Summary: "what the observer did and cost, per day and project",
	Flags: func(fs *flag.FlagSet) action {
		days := fs.Int("days", 7, "`N` local days to report, today included")
		only := fs.String("project", "", "only project `P`")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) > 0:
				return p.unexpected("stats", ops)
			case *days < 1:
				return p.usageError("stats", fmt.Sprintf("--days %d: at least 1", *days))
			}
			return statsCmd(p, *days, project.Filter(*only), *asJSON)
		}
	},
}

func statsCmd(p *proc, days int, project string, asJSON bool) int {
	ctx, stop := signalContext()
	defer stop()
	st := setupFor(p, false)
	defer st.closeLog.Close()
	// Redactions are counted as the journal is stored: what was captured a moment ago counts.
	var r *stats.Report
	db, _, err := memoryOf(p, st).ReadAny(ctx, "stats")
	if err == nil {
		r, err = stats.Build(ctx, db, p.now(), p.loc, days, project, st.s.DailyBudgetUSD)
		if db != nil {
			db.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s stats: %v\n", p.prog(), err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(printable.JSONWriter(p.stdout))
		enc.SetIndent("", "  ")
		_ = enc.Encode(r)
	} else {
		stats.Render(p.stdout, r)
	}
	return 0
}
