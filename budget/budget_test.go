package budget

import (
	"context"
	"testing"
	"time"
	_ "time/tzdata" // the DST case needs a zone database on every machine
)

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
	// nil is UTC: the same instant starts another day than in New York.
	if start, _ := Day(time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), nil); !start.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("UTC day starts %v", start)
	}
}

func TestReached(t *testing.T) {
	if !(Budget{Spent: 5, Limit: 5}).Reached() || (Budget{Spent: 4.99, Limit: 5}).Reached() || (Budget{Spent: 100}).Reached() {
		t.Error("Reached: at the limit is reached, under it is not, no limit never is")
	}
}

func TestBatchDue(t *testing.T) {
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
		if got := BatchDue(tc.pending, now.Add(-tc.age), now, 10, 300*time.Second); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// costs records the window it was asked about.
type costs struct {
	spent    float64
	from, to time.Time
	asked    int
}

func (c *costs) CostBetween(_ context.Context, from, to time.Time) (float64, error) {
	c.asked++
	c.from, c.to = from, to
	return c.spent, nil
}

// Today sums the local day's runs against the cap, and reads nothing without a cap.
func TestToday(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC) // 22:00 on Nov 30 in New York
	c := &costs{spent: 5}
	b, err := Today(context.Background(), c, 5, now, ny)
	midnight := time.Date(2026, 11, 30, 0, 0, 0, 0, ny)
	if err != nil || !b.Reached() || b.Spent != 5 || !b.Until.Equal(midnight.AddDate(0, 0, 1)) {
		t.Errorf("Today: %+v, %v", b, err)
	}
	if !c.from.Equal(midnight) || !c.to.Equal(midnight.AddDate(0, 0, 1)) {
		t.Errorf("summed [%v, %v), want New York's Nov 30", c.from, c.to)
	}
	c = &costs{spent: 100}
	if b, err := Today(context.Background(), c, 0, now, ny); err != nil || b.Reached() || c.asked != 0 {
		t.Errorf("no cap: %+v, %v, %d reads", b, err, c.asked)
	}
}
