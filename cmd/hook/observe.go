package main

import (
	"context"
	"flag"
	"runtime/debug"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// observeCommand is `hook observe --session ID [--final]`, started detached by Stop,
// SessionEnd and SessionStart. It takes the session's lock and one agent slot, then runs the
// observer over the session's pending events in batches until none are left or a run fails.
var observeCommand = &command{
	Name: "observe", Required: []string{"session"}, Internal: true,
	Summary: "run the observer for a session (started by hook mode)",
	Flags: func(fs *flag.FlagSet) action {
		session := fs.String("session", "", "the session `ID`")
		final := fs.Bool("final", false, "also write the session summary (SessionEnd)")
		parent := fs.Int("parent-pid", 0, "the `PID` whose ancestry decides the desktop-app lineage (the hook's parent)")
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) > 0:
				return p.unexpected("observe", ops)
			case *session == "":
				return p.usageError("observe", "--session is required")
			}
			return observeCmd(p, *session, *final, *parent)
		}
	},
}

func observeCmd(p *proc, session string, final bool, parent int) int {
	// A soft heap limit: the run's buffers are bounded (capped run files, one line), and
	// the collector keeps garbage near them however fast a child prints (DESIGN.md §18).
	debug.SetMemoryLimit(observeMemoryLimit)
	ctx, stop := signalContext()
	defer stop()
	st := setup(p)
	defer st.closeLog.Close()
	log := st.log.With().Str("session", session).Logger()
	if st.dataDirErr != nil {
		log.Error().Err(st.dataDirErr).Msg("observer: data dir unavailable")
		return 1
	}
	d := observeDeps(p, st)
	d.Log = log
	if p.goos == "darwin" {
		// Walked now, before any lock or slot wait: the hook's parent (Claude Code) may be
		// gone by the time the run starts.
		pid := parent
		if pid == 0 {
			pid = p.pid
		}
		d.Lineage = auth.ParentChain(ctx, auth.ExecRunner{}, pid, p.goos)
	}
	if err := observer.Run(ctx, d, session, final); err != nil {
		log.Error().Err(err).Msg("observer run ended with an error; events stay pending")
		return 1
	}
	// What the run remembered goes to the sync server, detached (DESIGN §25).
	if err := startSync(p, st.s)(memsync.Push); err != nil {
		log.Error().Err(err).Msg("starting the sync push failed; the next run pushes it")
	}
	return 0
}

// observeMemoryLimit is `hook observe`'s soft heap limit, above its live buffers (about
// 17 MiB at most: the two run files' 4 MiB tails and one stdout line of up to 8 MiB).
const observeMemoryLimit = 40 << 20

func observeDeps(p *proc, st *envState) observer.Deps {
	s := st.s
	return observer.Deps{
		Inputs:     observer.Inputs{Settings: s, Env: p.env, GOOS: p.goos, Home: settings.Home(p.env, p.goos), Now: p.now},
		Loc:        p.loc,
		Log:        st.log,
		Ingest:     ingestNoted(p, st),
		OpenStore:  memoryOf(p, st).OpenWrite,
		Spawn:      spawn.Run,
		LoadHealth: func() (health.Health, error) { return health.Load(s.DataDir) },
		UpdateHealth: func(fn func(*health.Health)) error {
			return health.Update(s.DataDir, p.now(), fn)
		},
		Claude: func() (claudebin.Result, error) { return observer.ResolveClaude(p.env, s, p.goos) },
		Credential: func(ctx context.Context, in auth.Inputs) (auth.Source, error) {
			src, _, err := auth.Resolve(ctx, in)
			return src, err
		},
		Procs: spawn.OSProcs{},
		After: time.After,
	}
}
