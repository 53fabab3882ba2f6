package store_test

import (
	"testing"

	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/store"
)

// The redaction migration skips the run dirs whose lock spawn holds: the two names are
// one (spawn imports store, so store cannot import the constant).
func TestRunLockFileIsObservers(t *testing.T) {
	if store.RunLockFile != spawn.RunLockFile {
		t.Fatalf("store's run lock %q, spawn's %q", store.RunLockFile, spawn.RunLockFile)
	}
}
