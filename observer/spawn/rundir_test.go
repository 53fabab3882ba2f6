package spawn

import (
	"path/filepath"
	"testing"
	"time"
)

func TestRunDir(t *testing.T) {
	id := NewRunID(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	if dir, ok := RunDir("/d", id); !ok || dir != filepath.Join("/d", id) {
		t.Errorf("RunDir(%q) = %q, %v", id, dir, ok)
	}
	for _, bad := range []string{"", "import", "..", "../x", "20261130T100000.000000000Z-0000000g", id + "/.."} {
		if dir, ok := RunDir("/d", bad); ok {
			t.Errorf("RunDir(%q) = %q, true; want false", bad, dir)
		}
	}
}
