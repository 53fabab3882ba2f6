package main

import (
	"fmt"
	"time"
)

// parseDate reads a command's DATE: YYYY-MM-DD (midnight in loc, the user's day) or an
// RFC 3339 time.
func parseDate(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date: YYYY-MM-DD (local midnight) or an RFC 3339 time", s)
}
