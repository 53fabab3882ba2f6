package main

import (
	"strconv"

	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/settings"
)

// startObserver starts `hook observe` for a session, detached, without waiting. The parent
// pid is the caller's (Claude Code's, for a hook), alive now: the detached observer, whose
// own parent is gone by then, walks the desktop-app lineage from it.
func startObserver(p *proc, s *settings.Settings) func(id string, final bool) error {
	return func(id string, final bool) error {
		return spawn.StartDetached(p.exe, observeArgs(p, id, final), p.env.List(), s.DataDir)
	}
}

// observeArgs are the arguments of `hook observe` for a session.
func observeArgs(p *proc, id string, final bool) []string {
	args := []string{"observe", "--session", id, "--parent-pid", strconv.Itoa(p.ppid)}
	if final {
		args = append(args, "--final")
	}
	return args
}

// startUpgrade starts `hook upgrade` detached; a hook's open calls it (memory.Hook).
func startUpgrade(p *proc, st *envState) func() {
	return func() {
		if err := spawn.StartDetached(p.exe, []string{"upgrade"}, p.env.List(), st.s.DataDir); err != nil {
			st.log.Error().Err(err).Msg("starting the database upgrade failed; the next open by a command upgrades it")
		}
	}
}
