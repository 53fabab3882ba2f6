package store_test

import (
	"testing"

	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/store"
)

// The redaction migration skips the run dirs whose lock observer holds: the two names are
// one (observer imports store, so store cannot import the constant).
func TestRunLockFileIsObservers(t *testing.T) {
	if store.RunLockFile != spawn.RunLockFile {
		t.Fatalf("store's run lock %q, observer's %q", store.RunLockFile, spawn.RunLockFile)
	}
}
