package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// doctorCommand is `hook doctor [--json] [--retry] [--verbose]`: exit 0 when all is well, 1 when setup
// is required, auth failed, or a setting is invalid.
var doctorCommand = &command{
	name: "doctor", summary: "report setup, auth, settings, health and the observer spawn spec",
	flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		retry := fs.Bool("retry", false, "clear an observer pause and run what waits now")
		verbose := fs.Bool("verbose", false, "also every setting, the places probed and the observer's spawn spec")
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.usageError("doctor", fmt.Sprintf("unexpected %q", ops[0]))
			}
			return doctorCmd(p, *asJSON, *retry, *verbose)
		}
	},
}

func doctorCmd(p *proc, asJSON, retry, verbose bool) int {
	ctx, stop := signalContext()
	defer stop()
	st := setup(p)
	defer st.closeLog.Close()
	s := st.s
	if retry && st.dataDirErr == nil {
		if err := health.Update(s.DataDir, p.now(), func(h *health.Health) { h.ClearPause() }); err != nil {
			fmt.Fprintf(p.stderr, "%s doctor: clearing the pause failed: %v\n", p.prog(), err)
			return 1
		}
		n, err := retryNow(ctx, p, st)
		if err != nil {
			fmt.Fprintf(p.stderr, "%s doctor: observer pause cleared, but starting what waits failed: %v\n", p.prog(), err)
			return 1
		}
		fmt.Fprintf(p.stderr, "observer pause cleared; %s started for what waits\n", nouns(noun{n, "observer run", "observer runs"}))
	}
	r := doctor.Build(ctx, doctorInputs(ctx, p, st))
	if asJSON {
		_ = doctor.JSON(p.stdout, r)
	} else {
		doctor.Render(p.stdout, r, verbose)
	}
	if r.OK {
		return 0
	}
	return 1
}

// retryNow starts, detached, an observer run for every session with pending events or an
// owed summary (SessionStart's stale pass, without its 10 minutes), and says how many.
func retryNow(ctx context.Context, p *proc, st *envState) (int, error) {
	if st.s.MaxConcurrentAgents == 0 {
		return 0, nil
	}
	m := memoryOf(p, st)
	if err := m.Ingest(ctx); err != nil {
		return 0, err
	}
	db, err := store.OpenReadOnly(m.DBPath)
	if errors.Is(err, store.ErrNoDatabase) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	left, err := hooks.Waiting(ctx, db, p.now())
	db.Close()
	if err != nil {
		return 0, err
	}
	start := startObserver(p, st.s)
	for _, r := range left {
		if err := start(r.SessionID, r.Final); err != nil {
			return 0, err
		}
	}
	return len(left), nil
}

// doctorInputs fills the report's inputs from the process: doctor and the viewer's health
// page build the same report.
func doctorInputs(ctx context.Context, p *proc, st *envState) doctor.Inputs {
	in := doctor.Inputs{
		Version: version, Hook: p.exe, PluginRoot: doctor.PluginRoot(p.env, exeDir(p.exe)),
		Settings: st.s, DataDirErr: st.dataDirErr, Env: p.env, GOOS: p.goos, Home: settings.Home(p.env, p.goos), Now: p.now, Loc: p.loc,
		Journal: journalOf(p, st.s), FreeBytes: journal.FreeBytes,
	}
	if p.goos == "darwin" {
		in.Lineage = auth.ParentChain(ctx, auth.ExecRunner{}, p.pid, p.goos)
	}
	return in
}
