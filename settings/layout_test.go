package settings

import (
	"path/filepath"
	"slices"
	"testing"
)

// Every path Layout gives, but the two files Load reads itself, is one Load checks for a
// planted entry (dataDirEntries): a new place in the data dir cannot skip the check.
func TestLayoutIsChecked(t *testing.T) {
	l := Layout("/d")
	for _, p := range []string{l.DB(), l.Health(), l.Logs(), l.Log(), l.Locks(), l.Runs(), l.ObserverConfig(), l.Journal()} {
		rel, err := filepath.Rel("/d", p)
		if err != nil || !slices.Contains(dataDirEntries, rel) {
			t.Errorf("%s is not among the entries Load checks", p)
		}
	}
	if got := l.Slots(); got != filepath.Join("/d", "locks", "agents") {
		t.Errorf("slots in %s", got)
	}
}
