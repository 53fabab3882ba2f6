package budget

import (
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
