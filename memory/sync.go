package memory

import (
	"time"

	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/store"
)

// SyncHere is this machine as a sync run tells the store (DESIGN §25): its name, the person
// (server role) it syncs as, the local day pulled redactions count on, and project.Key for
// each project's key across machines, so that every sync entry keys projects one way.
func SyncHere(machine, self string, loc *time.Location) store.SyncHere {
	return store.SyncHere{Machine: machine, Self: self, Key: project.Key, Loc: loc}
}
