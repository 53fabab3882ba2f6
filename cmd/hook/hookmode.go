package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/observe"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
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
	// A SIGTERM or SIGINT does not stop a hook: its work takes milliseconds, and an event
	// read but not yet written would be lost. The signal is noted and the hook finishes.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	ctx := context.Background()
	st = setup(p)
	defer st.closeLog.Close()
	defer func() {
		select {
		case sig := <-sigs:
			st.log.Info().Str("signal", sig.String()).Msg("signal received during the hook; its work was finished first")
		default:
		}
	}()
	s := st.s
	d := &hooks.Deps{
		Settings: s, DataDirErr: st.dataDirErr, Journal: journalOf(p, s), Env: p.env, Home: settings.Home(p.env, p.goos), GOOS: p.goos,
		Hook: p.exe, ExecutableDir: exeDir(p.exe), Now: p.now, Loc: p.loc, Log: st.log,
		OpenStore: func() (*store.DB, error) {
			return store.OpenWith(dbPath(s), store.OpenOptions{Busy: store.HookBusyTimeout, Hook: true, Upgrade: startUpgrade(p, st)})
		},
		FreeBytes:   journal.FreeBytes,
		ClaudeCheck: func(h health.Health) error { _, err := observe.ClaudeStatus(p.env, s, p.goos, h); return err },
		LoadHealth:  func() (health.Health, error) { return health.Load(s.DataDir) },
		UpdateHealth: func(fn func(*health.Health)) error {
			return health.Update(s.DataDir, p.now(), fn)
		},
		StartObserver: startObserver(p, s),
		ReapOrphans:   func() { observe.ReapOrphans(s.DataDir, p.now(), st.log) },
	}
	hooks.Run(ctx, d, p.stdin, p.stdout)
	return 0
}

// startObserver starts `hook observe` for a session, detached, without waiting. The parent
// pid is the caller's (Claude Code's, for a hook), alive now: the detached observer, whose
// own parent is gone by then, walks the desktop-app lineage from it.
func startObserver(p *proc, s *settings.Settings) func(id string, final bool) error {
	return func(id string, final bool) error {
		args := []string{"observe", "--session", id, "--parent-pid", strconv.Itoa(p.ppid)}
		if final {
			args = append(args, "--final")
		}
		return observer.StartDetached(p.exe, args, p.env.List(), s.DataDir)
	}
}

func dbPath(s *settings.Settings) string { return filepath.Join(s.DataDir, settings.DBFile) }

// journalOf is the capture journal of the data dir, with its fallback dirs.
func journalOf(p *proc, s *settings.Settings) *journal.Journal {
	return journal.New(s.DataDir, p.xdgRuntimeDir, p.xdgCacheHome, p.tempDir, p.now)
}
