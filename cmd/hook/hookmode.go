package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/claude-mem/claude-mem-go/cmd/hook/internal/holdsig"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/settings"
)

// hookMode answers one hook event. Its exit status is 0 whatever happens: a memory plugin
// never blocks the user.
func hookMode(p *proc) (code int) {
	// Hooks' own recover answers SessionStart; this one covers what runs before it (settings,
	// log), where the event is not known yet and silence is the safe answer.
	var st *envState
	defer func() {
		if r := recover(); r != nil {
			if st != nil {
				st.log.Error().Str("panic", fmt.Sprint(r)).Msg("hook panicked outside its handler; answered exit 0")
			}
			code = 0
		}
	}()
	// SIGTERM, SIGINT and SIGHUP are held from the process's first moments (holdsig) until
	// the event's record is appended: an event read but not yet written would be lost.
	// From then on a signal (held or new) cancels the hook's work, which stops at its next
	// step (an open write commits or rolls back), and the hook exits 0. An event that
	// appends nothing holds them to its end.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An event may be 16 MiB: a soft limit has the collector return the input buffer's
	// earlier sizes before the heap doubles, so any event stays well under 64 MB.
	debug.SetMemoryLimit(32 << 20)
	st = setup(p)
	defer st.closeLog.Close()
	var once sync.Once
	appended := func() {
		once.Do(func() {
			go func() {
				select {
				case sig := <-holdsig.Signals():
					st.log.Info().Str("signal", sig.String()).Msg("signal received; the hook's record was appended, its remaining work stops")
					cancel()
				case <-ctx.Done():
				}
			}()
		})
	}
	defer func() {
		select {
		case sig := <-holdsig.Signals():
			st.log.Info().Str("signal", sig.String()).Msg("signal received during the hook; its work was finished first")
		default:
		}
	}()
	s := st.s
	jr := journalOf(p, s)
	// A data dir another user could write is never read or written (private.Root): records
	// wait in a fallback journal, and nothing else of it is touched.
	var refused *private.Error
	if errors.As(st.dataDirErr, &refused) {
		jr.Refused = st.dataDirErr
	}
	mem := memoryOf(p, st).Hook(startUpgrade(p, st), p.now)
	d := &hooks.Deps{
		Settings: s, DataDirErr: st.dataDirErr, Journal: jr, Env: p.env, Home: settings.Home(p.env, p.goos), GOOS: p.goos,
		Hook: p.command, ExecutableDir: exeDir(p.exe), Now: p.now, Loc: p.loc, Log: st.log,
		Ingest:      ingestNoted(p, st),
		OpenStore:   mem.OpenWrite,
		FreeBytes:   journal.FreeBytes,
		ClaudeCheck: func(h health.Health) error { _, err := observer.ClaudeStatus(p.env, s, p.goos, h); return err },
		LoadHealth:  func() (health.Health, error) { return health.Load(s.DataDir) },
		UpdateHealth: func(fn func(*health.Health)) error {
			return health.Update(s.DataDir, p.now(), fn)
		},
		StartObserver: startObserver(p, s),
		StartSync:     startSync(p, s),
		ReapOrphans:   func() { observer.ReapOrphans(s.DataDir, p.now(), spawn.OSProcs{}, st.log) },
		Appended:      appended,
	}
	if refused != nil {
		d.LoadHealth = func() (health.Health, error) { return health.Health{}, nil }
		d.UpdateHealth = func(func(*health.Health)) error { return st.dataDirErr }
		d.ReapOrphans = nil
	}
	hooks.Run(ctx, d, p.stdin, p.stdout)
	return 0
}
