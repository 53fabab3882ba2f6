// Package plural words counts for people: "2 observations, 1 summary", one rule for
// every command that says how much it removed, wrote or skipped.
package plural

import (
	"fmt"
	"strings"
)

// Noun is a count of something, with its singular and plural.
type Noun struct {
	N          int
	One, Other string
}

// Of is n of a noun.
func Of(n int, one, other string) Noun { return Noun{n, one, other} }

// Join words the counts as "2 observations, 1 summary", naming only those above zero;
// "nothing" when none is.
func Join(list ...Noun) string {
	var parts []string
	for _, c := range list {
		switch {
		case c.N == 1:
			parts = append(parts, "1 "+c.One)
		case c.N > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Other))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
