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
		{"aaaaabbbbbcccccddddd", 10, "aaaaa\n…[claude-mem: 10 bytes omitted]…\nddddd"},
		{"aaaaabbbbbcccccddddd", 11, "aaaaa\n…[claude-mem: 10 bytes omitted]…\nddddd"},
		{"0123456789abcdefghij", 10, "\n…[claude-mem: 20 bytes omitted]…\n"}, // one token: no piece kept
		{"key 0123456789abcdefghij ok", 10, "key \n…[claude-mem: 20 bytes omitted]…\n ok"},
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

// TestHeadTailDropsATokenAtTheCut (issue 21): a token across either cut leaves no piece of
// itself, while ordinary words and runs of one kind are cut as before.
func TestHeadTailDropsATokenAtTheCut(t *testing.T) {
	const token = "ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP"
	blank := strings.Repeat(" ", 1000)
	for off := 1; off < len(token); off++ {
		// max 2000: the head's cut (at 1000) falls off bytes into one token, the tail's
		// (1000 from the end) off bytes into another.
		s := blank[:1000-off] + token + blank + blank + token + blank[:1000-off]
		out := HeadTail(s, 2000)
		head, tail, _ := strings.Cut(out, "\n…")
		if strings.Trim(head, " ") != "" || strings.Trim(tail[strings.Index(tail, "…\n")+len("…\n"):], " ") != "" {
			t.Fatalf("offset %d: a piece of a token is kept at a cut: %q", off, out)
		}
		if head != blank[:1000-off] {
			t.Fatalf("offset %d: the blanks before the token are not all kept", off)
		}
	}
	// Control: the same cut through ordinary words keeps every byte up to it.
	s := strings.Repeat("abcdefghij", 300)
	if out := HeadTail(s, 2000); !strings.HasPrefix(out, s[:1000]+"\n…") {
		t.Errorf("a run of letters was cut back: %q", out[:40])
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

func TestLine(t *testing.T) {
	bold, off := "\x1b[1m", "\x1b[0m"
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789", 10, "0123456789"},
		{"0123456789a", 10, "012345678…"},
		{"ééééééééééé", 10, "ééééééééé…"}, // characters, not bytes
		{"a " + bold + "word" + off + " after", 10, "a " + bold + "word" + off + " af…"},
		{"a " + bold + "longwordhere" + off, 10, "a " + bold + "longwor…" + off}, // a cut in bold ends it
		{bold + "0123456789" + off, 10, bold + "0123456789" + off},               // escapes take no room
		{"\x1b[31x0123456789", 10, "\x1b[31x0123…"},                              // not SGR: characters
	} {
		if got := Line(tc.in, tc.max); got != tc.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	long := strings.Repeat("w", 100<<10)
	if got := Line(long, MaxLine); utf8.RuneCountInString(got) != MaxLine || !strings.HasSuffix(got, "…") {
		t.Errorf("a 100 KB word: %d characters, want %d ending in …", utf8.RuneCountInString(got), MaxLine)
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short title", 20, "short title"},
		{"the flaky refund test, fixed at last", 20, "the flaky refund…"}, // at a word, its comma dropped
		{"averyveryverylongword and more", 12, "averyvery…"},              // no space in the kept half: as Head
		{"déjà vu, encore une fois", 12, "déjà vu…"},                      // bytes: "é" and "à" count 2
		{"ééééééééé", 8, "éé…"},                                           // never half a character
	} {
		got := Words(tc.in, tc.max)
		if got != tc.want || len(got) > tc.max || !utf8.ValidString(got) {
			t.Errorf("Words(%q, %d) = %q (%d bytes), want %q", tc.in, tc.max, got, len(got), tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789", 4, "6789"},
		{"aéb", 2, "b"}, // the offset falls inside "é": its second byte is not kept
		{"aéb", 3, "éb"},
	} {
		if got := Tail(tc.in, tc.n); got != tc.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestMiddle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"payments", 8, "payments"},
		{"payments-api-staging", 9, "paym…ging"},
		{"платежи-сервис", 7, "пла…вис"}, // characters, not bytes: a column's width
	} {
		if got := Middle(tc.in, tc.max); got != tc.want || utf8.RuneCountInString(got) > tc.max {
			t.Errorf("Middle(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
