package main

import (
	"flag"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/settings"
)

// upgradeLockFile (in the data dir's locks/) is held by `hook upgrade` while it runs: the
// hooks of one upgrade's minutes each start one, and all but the first leave at once.
const upgradeLockFile = "upgrade.lock"

// upgradeCommand is `hook upgrade`, started detached by a hook whose open deferred a heavy
// migration (store.ErrUpgrading) or a killed one's clean-up: it opens the database, which
// runs them, then stores what waited in the capture journal meanwhile.
var upgradeCommand = &command{
	Name: "upgrade", Internal: true,
	Summary: "rewrite the database for this version (started by hook mode: no hook waits for it)",
	Flags: func(fs *flag.FlagSet) action {
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.unexpected("upgrade", ops)
			}
			return upgradeCmd(p)
		}
	},
}

func upgradeCmd(p *proc) int {
	st := setup(p)
	defer st.closeLog.Close()
	if st.dataDirErr != nil {
		st.log.Error().Err(st.dataDirErr).Msg("upgrade: data dir unavailable")
		return 1
	}
	release, ok, err := lockfile.TryLock(filepath.Join(settings.Layout(st.s.DataDir).Locks(), upgradeLockFile))
	if err != nil || !ok {
		return 0 // another upgrade is running (or the lock cannot be taken: the next open upgrades)
	}
	defer release()
	ctx, stop := signalContext()
	defer stop()
	db, err := memoryOf(p, st).OpenWrite()
	if err != nil {
		st.log.Error().Err(err).Msg("upgrading the database failed")
		return 1
	}
	defer db.Close()
	st.log.Info().Msg("database upgraded")
	_ = ingestNoted(p, st)(ctx, db)
	return 0
}
