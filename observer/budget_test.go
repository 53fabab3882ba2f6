package observer

import (
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/settings"
)

func TestBatchDue(t *testing.T) {
	s := &settings.Settings{BatchEvents: 10, BatchWait: 300 * time.Second}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		pending int
		age     time.Duration
		want    bool
	}{
		{"nothing pending", 0, time.Hour, false},
		{"9 fresh events", 9, time.Minute, false},
		{"10 events", 10, 0, true},
		{"1 event older than the wait", 1, 301 * time.Second, true},
		{"1 event just at the wait", 1, 300 * time.Second, true},
		{"1 event younger than the wait", 1, 299 * time.Second, false},
	} {
		if got := BatchDue(tc.pending, now.Add(-tc.age), now, s); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
