// Package when is the one rule for dates, read and shown. Read: the times people give
// commands and the memory tools, a date YYYY-MM-DD is midnight in the user's local zone (the
// day they mean), an RFC 3339 time is that instant, and an age (30m, 12h, 7d, 2w) is that
// long before now. Shown: every record's date or time, in the user's zone, in one of the
// Forms here, each of which reads back as the same day, minute or second it shows.
package when

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Form is a way a time is shown; Start and End read back every Form that names its year
// (Clock, DayClock and DayMonth are read beside a date that does).
type Form string

const (
	Date     Form = time.DateOnly              // 2026-12-01: lists, stats
	Minute   Form = "2006-01-02 15:04"         // 2026-12-01 17:00: timeline lines
	Second   Form = "2006-01-02 15:04:05"      // 2026-12-01 17:00:00: a full record's header
	Instant  Form = time.RFC3339               // 2026-12-01T17:00:00-08:00: JSON, the local offset kept
	Heading  Form = "Mon 2 Jan 2006"           // Tue 1 Dec 2026: the story's day headings
	LongDay  Form = "Monday 2 January 2006"    // Tuesday 1 December 2026: the viewer's day headings
	Zoned    Form = "Mon 2 Jan 2006 15:04 MST" // Tue 1 Dec 2026 17:00 PST: the viewer's times
	Clock    Form = "15:04"                    // 17:00: a time of day under its day's heading
	DayClock Form = "2 Jan 15:04"              // 2 Dec 00:05: under the heading of the day before
	DayMonth Form = "2 Jan"                    // 2 Dec: a bar of the viewer's cost chart
)

// Show is t in loc (nil is UTC) as f shows it.
func Show(t time.Time, loc *time.Location, f Form) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(string(f))
}

// local is each Form read in the user's zone, with the span it names (an End is its start
// plus the span: the whole day or minute shown is kept).
var local = []struct {
	form Form
	span func(time.Time) time.Time
}{
	{Date, nextDay}, {Minute, nextMinute}, {Second, nextSecond}, {Heading, nextDay}, {LongDay, nextDay}, {Zoned, nextMinute},
}

func nextDay(t time.Time) time.Time    { return t.AddDate(0, 0, 1) } // AddDate keeps midnight across a DST change
func nextMinute(t time.Time) time.Time { return t.Add(time.Minute) }
func nextSecond(t time.Time) time.Time { return t.Add(time.Second) }

// Compiled at first use, as every regexp of the binary: every hook starts this binary.
var ageRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,5})\s*(m|min|h|d|w)$`) })

func unit(u string) time.Duration {
	switch u {
	case "m", "min":
		return time.Minute
	case "h":
		return time.Hour
	case "d":
		return 24 * time.Hour
	case "w":
		return 7 * 24 * time.Hour
	}
	return 0
}

// Start is the time s names; a date is its first instant (local midnight in loc).
func Start(s string, now time.Time, loc *time.Location) (time.Time, error) {
	return parse(s, now, loc, false)
}

// End is the time s names as an exclusive end that keeps the whole unit s shows: a date
// includes its whole day (the next local midnight), so "until 2026-11-30" keeps the 30th;
// a minute its minute, an RFC 3339 time its last digit's second (or fraction of one), so a
// record's time shown to the second and passed back as until keeps that record.
func End(s string, now time.Time, loc *time.Location) (time.Time, error) {
	return parse(s, now, loc, true)
}

func parse(s string, now time.Time, loc *time.Location, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if loc == nil {
		loc = time.UTC
	}
	for _, l := range local {
		if t, err := time.ParseInLocation(string(l.form), s, loc); err == nil {
			if end {
				t = l.span(t)
			}
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if end {
			t = t.Add(lastDigit(s))
		}
		return t, nil
	}
	if m := ageRE().FindStringSubmatch(strings.ToLower(s)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return now.Add(-time.Duration(n) * unit(m[2])), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date: use YYYY-MM-DD (local midnight), an RFC 3339 time, or an age such as 7d, 12h, 2w", s)
}

// lastDigit is the unit of an RFC 3339 time's last digit: a second, or 10^-n s for n
// fractional digits.
func lastDigit(s string) time.Duration {
	d := time.Second
	if i := strings.IndexByte(s, '.'); i >= 0 {
		for j := i + 1; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
			d /= 10
		}
	}
	return d
}
