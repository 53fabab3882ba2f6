package nesting_test

import (
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/nesting"
)

func TestOver(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, false},
		{`{"a":[1,{"b":2}]}`, 2, true},
		{`{"a":"[[[[[[[[[["}`, 2, false}, // brackets in a string are text
		{`{"a":"\"[[[[[["}`, 1, false},   // an escaped quote does not end the string
		{strings.Repeat("[", 513), 512, true},
		{strings.Repeat("[]", 10000), 1, false}, // wide, not deep
	} {
		if got := nesting.Over([]byte(tc.in), tc.max); got != tc.want {
			t.Errorf("Over(%.40q, %d) = %v; want %v", tc.in, tc.max, got, tc.want)
		}
	}
}
