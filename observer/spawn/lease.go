package spawn

import (
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/claude-mem/claude-mem-go/lockfile"
)

// Lease is what a run writes into its agent slot's lock file once its child runs. The child
// inherits the slot's lock, so a `hook observe` killed mid-run leaves the slot held by the
// child alone; the next `hook observe` or SessionStart reads the lease and stops that child
// once its deadline has passed (ReapOrphans).
type Lease struct {
	Pid      int       `json:"pid"`      // the child, leader of its own process group
	Start    string    `json:"start"`    // its start time as the OS reports it: a reused pid is another process
	Deadline time.Time `json:"deadline"` // when a live run would have killed it (timeout + kill grace)
	Run      string    `json:"run"`
}

// Procs identifies and stops processes: a value, so the orphan rule runs the same under
// tests. OSProcs is the real one.
type Procs interface {
	// StartTime is pid's start time, an opaque string that differs for a reused pid; an
	// error when there is no such process or the platform cannot tell.
	StartTime(pid int) (string, error)
	// KillGroup kills the process group led by pgid.
	KillGroup(pgid int) error
}

// OSProcs is the process table of this machine.
type OSProcs struct{}

// reapGrace is how long past its lease's deadline a child may still run before another
// process stops it: by then a live run has killed its own child.
var reapGrace = 2 * time.Second

// writeLease replaces the slot file's content with l. Written with WriteAt: the child shares
// the file's offset.
func writeLease(f *os.File, l Lease) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	return err
}

// ReapOrphans stops every child recorded in a slot file of slotsDir that still holds its
// slot past its deadline + reapGrace: its `hook observe` is gone (a live one kills its child
// by the deadline). The pid is checked to be the same process (start time) before its group
// is killed. It returns the leases of the children stopped.
func ReapOrphans(slotsDir string, now time.Time, procs Procs) ([]Lease, error) {
	var stopped []Lease
	var errs []error
	for _, path := range lockfile.SlotFiles(slotsDir) {
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			continue
		}
		var l Lease
		if json.Unmarshal(b, &l) != nil || l.Pid <= 1 || l.Start == "" || now.Before(l.Deadline.Add(reapGrace)) {
			continue // torn while written, no child, or not late yet
		}
		if busy, err := lockfile.Busy(path); err != nil || !busy {
			continue // the child is gone; the next holder overwrites the lease
		}
		if st, err := procs.StartTime(l.Pid); err != nil || st != l.Start {
			continue // gone, or the pid now names another process
		}
		if err := procs.KillGroup(l.Pid); err != nil {
			errs = append(errs, err)
			continue
		}
		stopped = append(stopped, l)
	}
	return stopped, errors.Join(errs...)
}
