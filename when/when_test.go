package when

import (
	"strings"
	"testing"
	"time"
)

// One reading for the CLI and the memory tools: a date is local midnight in the zone given
// (the control: the same date in UTC is another instant), an end date keeps its whole day.
func TestParse(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in       string
		loc      *time.Location
		end      bool
		want     time.Time
		wantFail bool
	}{
		{"2026-11-30", berlin, false, time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), false},
		{"2026-11-30", time.UTC, false, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), false},
		{"2026-11-30", berlin, true, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC), false},
		{" 2026-11-30T10:00:00Z ", berlin, false, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false},
		{" 2026-11-30T10:00:00Z ", berlin, true, time.Date(2026, 11, 30, 10, 0, 1, 0, time.UTC), false},
		{"2026-11-30T10:00:00.5+02:00", nil, false, time.Date(2026, 11, 30, 8, 0, 0, 5e8, time.UTC), false},
		{"2026-11-30T10:00:00.5+02:00", nil, true, time.Date(2026, 11, 30, 8, 0, 0, 6e8, time.UTC), false},
		{"2026-11-30 10:15", berlin, false, time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC), false},
		{"2026-11-30 10:15", berlin, true, time.Date(2026, 11, 30, 9, 16, 0, 0, time.UTC), false},
		{"Mon 30 Nov 2026", berlin, true, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC), false},
		{"Monday 30 November 2026", berlin, false, time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), false},
		{"Mon 30 Nov 2026 10:15 CET", berlin, true, time.Date(2026, 11, 30, 9, 16, 0, 0, time.UTC), false},
		{"2026-11-30 10:15:07", berlin, true, time.Date(2026, 11, 30, 9, 15, 8, 0, time.UTC), false},
		{"7d", berlin, false, now.Add(-7 * 24 * time.Hour), false},
		{"12H", berlin, true, now.Add(-12 * time.Hour), false},
		{"30 min", nil, false, now.Add(-30 * time.Minute), false},
		{"2w", nil, false, now.Add(-14 * 24 * time.Hour), false},
		{"yesterday", nil, false, time.Time{}, true},
		{"", nil, false, time.Time{}, true},
		{"2026-13-01", nil, false, time.Time{}, true},
	} {
		f := Start
		if tc.end {
			f = End
		}
		got, err := f(tc.in, now, tc.loc)
		if tc.wantFail {
			if err == nil || !strings.Contains(err.Error(), "is not a date: use YYYY-MM-DD (local midnight)") {
				t.Errorf("%q: %v %v, want the error", tc.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q in %v (end %v): %v %v, want %v", tc.in, tc.loc, tc.end, got, err, tc.want)
		}
	}
}

// zones are UTC−8, UTC and UTC+9, each named as its abbreviation is shown.
var zones = []*time.Location{time.FixedZone("PST", -8*3600), time.UTC, time.FixedZone("JST", 9*3600)}

// includes: shown, read back in loc as since and as until, keeps at.
func includes(shown string, loc *time.Location, at time.Time) bool {
	since, err1 := Start(shown, at, loc)
	until, err2 := End(shown, at, loc)
	return err1 == nil && err2 == nil && !at.Before(since) && at.Before(until)
}

// Every date shown reads back, as since and as until, to a span holding the record it was
// shown for: at 1 Dec 17:00:00.5 at UTC−8 (2 Dec 01:00 UTC), 2 Dec 10:00 at UTC+9, and a
// moment before midnight. The control: the date shown in UTC and read in the user's zone
// loses the record, in some zone and form.
func TestShownReadsBack(t *testing.T) {
	ats := []time.Time{time.Date(2026, 12, 2, 1, 0, 0, 5e8, time.UTC), time.Date(2026, 12, 1, 23, 59, 59, 999999999, time.UTC)}
	forms := []Form{Date, Minute, Second, Instant, Heading, LongDay, Zoned}
	lost := 0
	for _, loc := range zones {
		for _, at := range ats {
			for _, f := range forms {
				if s := Show(at, loc, f); !includes(s, loc, at) {
					t.Errorf("%v shown in %v as %q does not read back to include it", at, loc, s)
				}
				if !includes(Show(at, time.UTC, f), loc, at) {
					lost++
				}
			}
		}
	}
	if lost == 0 {
		t.Error("control: dates shown in UTC and read in the local zone lost nothing; the test cannot tell")
	}
	if got := Show(ats[0], zones[0], Instant); got != "2026-12-01T17:00:00-08:00" {
		t.Errorf("Instant at UTC−8: %q, want 2026-12-01T17:00:00-08:00", got)
	}
	if got := Show(ats[0], nil, Date); got != "2026-12-02" {
		t.Errorf("Date with a nil zone: %q, want UTC's 2026-12-02", got)
	}
}
