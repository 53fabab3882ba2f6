package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
)

// doctorCommand is `hook doctor [--json] [--retry] [--verbose]`: exit 0 when all is well, 1 when setup
// is required, auth failed, or a setting is invalid.
var doctorCommand = &command{
	Name: "doctor", Summary: "report setup, auth, settings, health and the observer spawn spec",
	Flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		retry := fs.Bool("retry", false, "clear an observer pause and run what waits now")
		verbose := fs.Bool("verbose", false, "also every setting, the places probed and the observer's spawn spec")
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.unexpected("doctor", ops)
			}
			return doctorCmd(p, *asJSON, *retry, *verbose)
		}
	},
}

func doctorCmd(p *proc, asJSON, retry, verbose bool) int {
	ctx, stop := signalContext()
	defer stop()
	st := setupFor(p, retry) // --retry writes (health.json); the report alone reads
	defer st.closeLog.Close()
	s := st.s
	if retry && st.dataDirErr == nil {
		rt := doctor.Retry{
			ClearPause: func() error {
				return health.Update(s.DataDir, p.now(), func(h *health.Health) { h.ClearPause() })
			},
			Start:   waitingOf(p, st).Start,
			Timeout: s.ObserverTimeout, Now: p.now, After: time.After,
		}
		if err := rt.Pass(ctx, p.stderr, p.stderrTerminal != nil && p.stderrTerminal()); err != nil {
			fmt.Fprintf(p.stderr, "%s doctor: %v\n", p.prog(), err)
			return 1
		}
	}
	r := doctor.Build(ctx, doctorInputs(ctx, p, st))
	if asJSON {
		_ = doctor.JSON(p.stdout, r)
	} else {
		doctor.Render(p.stdout, r, verbose, p.width())
	}
	if r.OK {
		return 0
	}
	return 1
}

// waitingOf is what --retry starts: a detached `hook observe` for every session that waits.
func waitingOf(p *proc, st *envState) doctor.Waiting {
	return doctor.Waiting{
		Agents: st.s.MaxConcurrentAgents, Memory: memoryOf(p, st), Now: p.now,
		Observe: func(session string, final bool) (func(), error) {
			proc, err := spawn.StartDetachedProcess(p.exe, observeArgs(p, session, final), p.env.List(), st.s.DataDir)
			if err != nil {
				return nil, err
			}
			return func() { _, _ = proc.Wait() }, nil
		},
	}
}

// doctorInputs fills the report's inputs from the process: doctor and the viewer's health
// page build the same report.
func doctorInputs(ctx context.Context, p *proc, st *envState) doctor.Inputs {
	in := doctor.Inputs{
		Version: version, Hook: p.exe, PluginRoot: doctor.PluginRoot(p.env, exeDir(p.exe)),
		Settings: st.s, Memory: memoryOf(p, st), Env: p.env, GOOS: p.goos, Home: settings.Home(p.env, p.goos), Now: p.now, Loc: p.loc,
		FreeBytes: journal.FreeBytes,
	}
	if p.goos == "darwin" {
		in.Lineage = auth.ParentChain(ctx, auth.ExecRunner{}, p.pid, p.goos)
	}
	return in
}
