// Package when reads the times people give commands and the memory tools, one way for both:
// a date YYYY-MM-DD is midnight in the user's local zone (the day they mean), an RFC 3339
// time is that instant, and an age (30m, 12h, 7d, 2w) is that long before now.
package when

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

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

// End is the time s names as an exclusive end: a date includes its whole day (the next
// local midnight), so "until 2026-11-30" keeps the 30th.
func End(s string, now time.Time, loc *time.Location) (time.Time, error) {
	return parse(s, now, loc, true)
}

func parse(s string, now time.Time, loc *time.Location, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if loc == nil {
		loc = time.UTC
	}
	if d, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if m := ageRE().FindStringSubmatch(strings.ToLower(s)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return now.Add(-time.Duration(n) * unit(m[2])), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date: use YYYY-MM-DD (local midnight), an RFC 3339 time, or an age such as 7d, 12h, 2w", s)
}
