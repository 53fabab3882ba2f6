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
		{" 2026-11-30T10:00:00Z ", berlin, true, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false},
		{"2026-11-30T10:00:00.5+02:00", nil, false, time.Date(2026, 11, 30, 8, 0, 0, 5e8, time.UTC), false},
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
