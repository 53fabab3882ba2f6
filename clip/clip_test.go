package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789abcdefghij", 10, "01234\n…[claude-mem: 10 bytes omitted]…\nfghij"},
		{"0123456789abcdefghij", 11, "01234\n…[claude-mem: 10 bytes omitted]…\nfghij"},
		{"ééééé", 5, "é\n…[claude-mem: 6 bytes omitted]…\né"}, // never half a character
	} {
		if got := HeadTail(tc.in, tc.max); got != tc.want {
			t.Errorf("HeadTail(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	long := strings.Repeat("日本語", 1000)
	for max := 1; max < 40; max++ {
		if out := HeadTail(long, max); !utf8.ValidString(out) {
			t.Fatalf("max %d: invalid UTF-8", max)
		}
	}
}
