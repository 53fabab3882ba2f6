package redact

import "strings"

// view is a text as it reads, made from a source text: text[i] is src[start[i]:end[i]].
type view struct {
	src, text  string
	start, end []int32
	// gaps: bytes were left out of src (escape sequences), and a word ends at each gap.
	gaps bool
}

// redact is what apply does through v: the secrets of v.text replace their bytes in src.
func (v *view) redact(sc scope) (string, Counts) {
	var gap func(int) bool
	if v.gaps {
		gap = func(p int) bool { return p > 0 && v.start[p] != v.end[p-1] }
	}
	found, c := spans(v.text, sc, gap)
	if found == nil {
		return v.src, nil
	}
	for i := range found {
		found[i].lo, found[i].hi = int(v.start[found[i].lo]), int(v.end[found[i].hi-1])
	}
	return render(v.src, found), c
}

// builder builds a view of src.
type builder struct {
	v    view
	text []byte
}

func newBuilder(src string) *builder {
	return &builder{v: view{src: src, start: make([]int32, 0, len(src)), end: make([]int32, 0, len(src))},
		text: make([]byte, 0, len(src))}
}

// add appends c, read from src[lo:hi].
func (b *builder) add(c byte, lo, hi int) {
	b.text = append(b.text, c)
	b.v.start = append(b.v.start, int32(lo))
	b.v.end = append(b.v.end, int32(hi))
}

func (b *builder) view() *view {
	b.v.text = string(b.text)
	return &b.v
}

// escView is s as a terminal shows it: every escape sequence left out (CSI, SGR among them;
// OSC, DCS and the other strings up to BEL or ST; two-byte forms), whether ESC is the byte
// itself or its spelling in text that holds JSON or code (\u001b, \x1b, \033). nil when s
// has none (the common case: nothing is allocated).
func escView(s string) *view {
	first := firstAt(s, "\x1b\\", func(i int) bool { return escLen(s, i) > 0 })
	if first < 0 || len(s) > 1<<31-1 {
		return nil
	}
	b := newBuilder(s)
	b.v.gaps = true
	for i := 0; i < len(s); {
		if i >= first {
			if n := escLen(s, i); n > 0 {
				i += n
				continue
			}
		}
		b.add(s[i], i, i+1)
		i++
	}
	return b.view()
}

// introducer is the length of an ESC at s[i]: the byte, or \u001b, \x1b, \033 spelled out.
func introducer(s string, i int) int {
	switch {
	case s[i] == 0x1b:
		return 1
	case s[i] != '\\':
		return 0
	case hasPrefix(s[i:], `\u001b`, true):
		return 6
	case hasPrefix(s[i:], `\x1b`, true), strings.HasPrefix(s[i:], `\033`):
		return 4
	}
	return 0
}

// maxString bounds an OSC or other string sequence left unterminated: a terminal would
// swallow the text after it up to a terminator; text is kept past this or a line break.
const maxString = 4 << 10

// escLen is the length of the escape sequence at s[i], 0 when none begins there (ECMA-48:
// ESC [ parameters intermediates final; ESC ] P X ^ _ strings up to BEL or ST; ESC with
// intermediates and a final byte). A lone ESC is one too.
func escLen(s string, i int) int {
	n := introducer(s, i)
	if n == 0 {
		return 0
	}
	j := i + n
	if j >= len(s) {
		return n
	}
	switch c := s[j]; {
	case c == '[':
		j++
		for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
			j++
		}
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			j++
		}
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		for j++; j < len(s) && j-i < maxString; j++ {
			if s[j] == 0x07 || s[j] == '\n' {
				return j + 1 - i
			}
			if m := introducer(s, j); m > 0 && j+m < len(s) && s[j+m] == '\\' {
				return j + m + 1 - i
			}
			if hasPrefix(s[j:], `\u0007`, true) {
				return j + 6 - i
			}
			if strings.HasPrefix(s[j:], `\a`) {
				return j + 2 - i
			}
		}
	case c >= 0x20 && c <= 0x2f:
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
	case c >= 0x30 && c <= 0x7e:
		j++
	}
	return j - i
}

// pctView is s with its percent-encoding decoded (%3D, %0A, %2B: a secret in a URL, a
// form body, a redirect's query), each %XX one byte and each + a space;
// nil when s holds none.
func pctView(s string) *view {
	first := firstAt(s, "%", func(i int) bool { return pct(s, i) >= 0 })
	if first < 0 || len(s) > 1<<31-1 {
		return nil
	}
	b := newBuilder(s)
	for i := 0; i < len(s); {
		if i >= first && s[i] == '%' {
			if c := pct(s, i); c >= 0 {
				b.add(byte(c), i, i+3)
				i += 3
				continue
			}
		}
		c := s[i]
		if c == '+' { // a space, in a form or a query (a + itself is %2B)
			c = ' '
		}
		b.add(c, i, i+1)
		i++
	}
	return b.view()
}

// pct is the byte %XX at s[i] encodes, -1 when none.
func pct(s string, i int) int {
	if i+2 >= len(s) {
		return -1
	}
	h, l := unhex(s[i+1]), unhex(s[i+2])
	if h < 0 || l < 0 {
		return -1
	}
	return h<<4 | l
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c|0x20 && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

// firstAt is the first offset of s that holds one of chars and passes at, or -1.
func firstAt(s, chars string, at func(i int) bool) int {
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], chars)
		if j < 0 {
			return -1
		}
		if i += j; at(i) {
			return i
		}
		i++
	}
	return -1
}
