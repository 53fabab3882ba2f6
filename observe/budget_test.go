package observe

import (
	"testing"
	"time"
	_ "time/tzdata" // the DST case needs a zone database on every machine

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

func TestDayIsLocal(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// 03:00 UTC on Dec 1 is 22:00 on Nov 30 in New York.
	start, end := Day(time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), ny)
	if want := time.Date(2026, 11, 30, 0, 0, 0, 0, ny); !start.Equal(want) || !end.Equal(want.AddDate(0, 0, 1)) {
		t.Errorf("day [%v, %v)", start, end)
	}
	// The day DST ends has 25 hours.
	start, end = Day(time.Date(2026, 11, 1, 12, 0, 0, 0, ny), ny)
	if end.Sub(start) != 25*time.Hour {
		t.Errorf("DST day is %v long", end.Sub(start))
	}
	if (Budget{Spent: 5, Limit: 5}).Reached() != true || (Budget{Spent: 4.99, Limit: 5}).Reached() || (Budget{Spent: 100}).Reached() {
		t.Error("Reached: at the limit is reached, under it is not, no limit never is")
	}
}
