package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
	memsync "github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/remote"
)

// syncCommand is `claude-mem sync [status | init]` (DESIGN §25).
var syncCommand = &command{
	Name: "sync", Operands: "[status | init]", Interspersed: true,
	Summary: "push this machine's memory to the sync server, then pull the others' (status: how it went; init: set the server up)",
	Flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "status: print one JSON object")
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) == 1 && ops[0] == "status":
				return syncStatusCmd(p, *asJSON)
			case len(ops) > 1 || len(ops) == 1 && ops[0] != "init":
				return p.unexpected("sync", ops[min(len(ops)-1, 1):])
			case *asJSON:
				return p.usageError("sync", "--json goes with status")
			case len(ops) == 1:
				return syncInitCmd(p)
			}
			return syncCmd(p)
		}
	},
}

// syncRunCommand is `hook sync-run push|pull|both`, started detached by hook mode and the
// observer: one run bounded to syncRunLimit; a failure is kept in health for doctor and
// SessionStart.
var syncRunCommand = &command{
	Name: "sync-run", Operands: "push | pull | both", Internal: true,
	Summary: "one bounded sync run (started by hook mode: no hook waits for it)",
	Flags: func(fs *flag.FlagSet) action {
		return func(p *proc, ops []string) int {
			if len(ops) != 1 {
				return p.usageError("sync-run", "one direction: push, pull or both")
			}
			d, ok := memsync.ParseDirection(ops[0])
			if !ok {
				return p.usageError("sync-run", fmt.Sprintf("unexpected %q", ops[0]))
			}
			return syncRunCmd(p, d)
		}
	},
}

// syncRunLimit bounds the batches a detached run starts; syncRunWait, how long it waits
// for another run's lock first.
const (
	syncRunLimit = time.Minute
	syncRunWait  = 2 * time.Minute
)

func syncCmd(p *proc) int {
	st, ok := syncSetup(p, "sync")
	if !ok {
		return 1
	}
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	var progress io.Writer
	if p.stderrTerminal != nil && p.stderrTerminal() {
		progress = p.stderr
	}
	if err := memsync.Foreground(ctx, syncDeps(p, st), p.stdout, progress); err != nil {
		fmt.Fprintf(p.stderr, "%s sync: %s\n", p.prog(), memsync.Message(err))
		return 1
	}
	return 0
}

func syncRunCmd(p *proc, d memsync.Direction) int {
	if st := setupFor(p, false); st.closeLog.Close() == nil && st.s.SyncURL == "" {
		return 0 // sync is off: nothing runs, nothing is made
	}
	st := setup(p)
	defer st.closeLog.Close()
	if st.dataDirErr != nil {
		st.log.Error().Err(st.dataDirErr).Msg("sync run: data dir unavailable")
		return 1
	}
	ctx, stop := signalContext()
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, syncRunWait+syncRunLimit)
	defer cancel()
	res, err := memsync.Once(ctx, syncDeps(p, st), d, syncRunLimit, nil)
	if err != nil {
		st.log.Error().Str("direction", d.String()).Str("error", memsync.Message(err)).Msg("sync run failed")
		return 1
	}
	st.log.Info().Str("direction", d.String()).Int("pushed", res.Pushed).Int("pulled", res.Pulled).
		Int("refused", res.Refused).Bool("finished", res.Finished).Msg("sync run")
	return 0
}

func syncStatusCmd(p *proc, asJSON bool) int {
	st := setupFor(p, false)
	defer st.closeLog.Close()
	server := settings.ShownURL(st.s.SyncURL)
	var c memsync.Counts
	var h health.Health
	if server != "" {
		ctx, stop := signalContext()
		defer stop()
		db, _, err := memoryOf(p, st).ReadAny(ctx, "sync status")
		if err != nil {
			fmt.Fprintf(p.stderr, "%s sync status: %v\n", p.prog(), err)
			return 1
		}
		if db != nil {
			c, err = memory.SyncStore(db, memory.SyncHere(machineOf(p, st.s), "", p.loc)).Counts(ctx)
			db.Close()
			if err != nil {
				fmt.Fprintf(p.stderr, "%s sync status: %v\n", p.prog(), err)
				return 1
			}
		}
		if st.dataDirErr == nil {
			h, _ = health.Load(st.s.DataDir) // unreadable: shown as never run
		}
	}
	status := memsync.StatusOf(server, h.Sync, c, p.loc)
	if asJSON {
		if err := status.WriteJSON(p.stdout); err != nil {
			return 1
		}
		return 0
	}
	status.WriteText(p.stdout)
	return 0
}

func syncInitCmd(p *proc) int {
	st, ok := syncSetup(p, "sync init")
	if !ok {
		return 1
	}
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	done, err := remote.Install(ctx, st.s.SyncURL)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s sync init: %s\n", p.prog(), memsync.Message(&memsync.Error{Failure: memsync.Classify(err), Err: err}))
		return 1
	}
	fmt.Fprintln(p.stdout, memsync.Installed(settings.ShownURL(st.s.SyncURL), done))
	return 0
}

// syncSetup is the start of a command that talks to the server: settings, and a refusal
// when no server is set.
func syncSetup(p *proc, name string) (*envState, bool) {
	st := setup(p)
	if st.dataDirErr != nil {
		fmt.Fprintf(p.stderr, "%s %s: %v\n", p.prog(), name, st.dataDirErr)
		st.closeLog.Close()
		return st, false
	}
	if st.s.SyncURL == "" {
		fmt.Fprintf(p.stderr, "%s %s: sync is off: set CLAUDE_MEM_SYNC_URL to postgres://ROLE@HOST/DB (see `claude-mem help sync`)\n", p.prog(), name)
		st.closeLog.Close()
		return st, false
	}
	return st, true
}

// syncDeps are a run's effects: this data dir's lock, memory and health, and the server.
func syncDeps(p *proc, st *envState) memsync.Deps {
	s := st.s
	here := memory.SyncHere(machineOf(p, s), "", p.loc)
	return memsync.Deps{
		Server:   settings.ShownURL(s.SyncURL),
		LockPath: settings.Layout(s.DataDir).SyncLock(),
		OpenStore: func(ctx context.Context) (memsync.Store, error) {
			db, err := memoryOf(p, st).Write(ctx, "sync")
			if err != nil {
				return nil, err
			}
			return memory.SyncStore(db, here), nil
		},
		Connect: func(ctx context.Context) (memsync.Remote, func(), error) {
			c, err := remote.Connect(ctx, s.SyncURL)
			if err != nil {
				return nil, nil, err
			}
			return c, func() { c.Close(context.Background()) }, nil
		},
		UpdateHealth: func(fn func(*health.Health)) error { return health.Update(s.DataDir, p.now(), fn) },
		Now:          p.now,
	}
}

// machineOf is this machine's name on what it pushes: CLAUDE_MEM_MACHINE, else the host's.
func machineOf(p *proc, s *settings.Settings) string {
	if s.Machine != "" {
		return s.Machine
	}
	return p.hostname
}

// startSync starts `hook sync-run DIRECTION` detached, without waiting (hooks.Deps.StartSync).
func startSync(p *proc, s *settings.Settings) func(memsync.Direction) error {
	return func(d memsync.Direction) error {
		if s.SyncURL == "" {
			return nil
		}
		return spawn.StartDetached(p.exe, []string{"sync-run", d.String()}, p.env.List(), s.DataDir)
	}
}
