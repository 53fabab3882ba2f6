package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/hooks"
	"github.com/claude-mem/claude-mem-go/observer"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// hookMode answers one hook event. Its exit status is 0 whatever happens: a memory plugin
// never blocks the user.
func hookMode(p *proc) int {
	// A SIGTERM or SIGINT does not stop a hook: its work takes milliseconds, and an event
	// read but not yet written would be lost. The signal is noted and the hook finishes.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	ctx := context.Background()
	st := setup(p)
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
		Settings: s, DataDirErr: st.dataDirErr, Env: p.env, Home: homeDir(p.env, p.goos), GOOS: p.goos,
		Hook: p.exe, ExecutableDir: exeDir(p.exe), Now: p.now, Log: st.log,
		OpenStore:   func() (*store.DB, error) { return store.Open(dbPath(s)) },
		ClaudeCheck: func() error { _, err := resolveClaude(p, s); return err },
		LoadHealth:  func() (health.Health, error) { return health.Load(s.DataDir) },
		StartObserver: func(id string, final bool) error {
			args := []string{"observe", "--session", id}
			if final {
				args = append(args, "--final")
			}
			return observer.StartDetached(p.exe, args, p.env.List(), s.DataDir)
		},
	}
	hooks.Run(ctx, d, p.stdin, p.stdout)
	return 0
}

func dbPath(s *settings.Settings) string { return filepath.Join(s.DataDir, settings.DBFile) }

// resolveClaude finds the claude executable now (never a cached path), with the effective
// CLAUDE_MEM_CLAUDE_PATH setting (which may come from settings.json) in front of the env.
func resolveClaude(p *proc, s *settings.Settings) (claudebin.Result, error) {
	env := p.env
	if s.ClaudePath != "" && env.Get(settings.KeyClaudePath) != s.ClaudePath {
		env = make(settings.Env, len(p.env)+1)
		for k, v := range p.env {
			env[k] = v
		}
		env[settings.KeyClaudePath] = s.ClaudePath
	}
	return claudebin.Resolve(env, claudebin.OSFS{}, p.goos)
}
