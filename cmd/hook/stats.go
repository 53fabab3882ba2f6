package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/claude-mem/claude-mem-go/stats"
	"github.com/claude-mem/claude-mem-go/store"
)

// statsCmd is `hook stats [--days N] [--project P] [--json]`.
func statsCmd(p *proc, args []string) int {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(p.stderr)
	days := fs.Int("days", 7, "local days to report, today included")
	project := fs.String("project", "", "only this project")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *days < 1 {
		fmt.Fprintln(p.stderr, "usage: hook stats [--days N] [--project P] [--json]")
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	st := setup(p)
	defer st.closeLog.Close()
	if st.dataDirErr != nil {
		fmt.Fprintf(p.stderr, "hook stats: %v\n", st.dataDirErr)
		return 1
	}
	// Redactions are counted as the journal is stored: what was captured a moment ago counts.
	if err := ingestPending(ctx, p, st); err != nil {
		st.log.Warn().Err(err).Msg("ingesting the capture journal failed; counting without what it holds")
	}
	var r *stats.Report
	db, err := store.OpenReadOnly(dbPath(st.s))
	if errors.Is(err, store.ErrNoDatabase) {
		r, err = stats.Empty(p.now(), p.loc, *days, *project, st.s.DailyBudgetUSD), nil
	} else if err == nil {
		r, err = stats.Build(ctx, db, p.now(), p.loc, *days, *project, st.s.DailyBudgetUSD)
		db.Close()
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "hook stats: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(p.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r)
	} else {
		stats.Render(p.stdout, r)
	}
	return 0
}
