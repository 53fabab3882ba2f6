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

func TestHead(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer title", 10, "a longe…"}, // 7 bytes and the 3 of …
		{"ééééé", 8, "éé…"},                // 10 bytes: a cut inside the third é backs off to the second
	} {
		if got := Head(c.in, c.max); got != c.want || len(got) > c.max {
			t.Errorf("Head(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
