// Package clip shortens text at UTF-8 boundaries: a captured tool field or an observed value
// keeps its head and tail (where a command's name and its outcome usually are) around a
// marker that says how much was cut.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// HeadTail returns s when it is at most max bytes; otherwise its first and last bytes (about
// at most max/2 each, never half a character) around the marker "…[claude-mem: N bytes omitted]…".
// A cut never leaves part of a token: when it falls in a run of token bytes that holds a
// letter and a digit (a key, a hash, base64), the run's piece on each side of the cut is
// omitted too, so no secret's head (or tail) is kept that the redactor could not see whole.
func HeadTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max/2, len(s)-max/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	if head > 0 && tokenByte(s[head-1]) && tokenByte(s[head]) {
		i := head
		for i > 0 && tokenByte(s[i-1]) {
			i--
		}
		if generated(s, i, head) {
			head = i
		}
	}
	if tail < len(s) && tokenByte(s[tail-1]) && tokenByte(s[tail]) {
		j := tail
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		if generated(s, tail, j) {
			tail = j
		}
	}
	return s[:head] + "\n…[claude-mem: " + strconv.Itoa(tail-head) + " bytes omitted]…\n" + s[tail:]
}

// tokenByte: a byte a credential may hold (letters, digits, and the symbols of base64,
// base64url, JWTs and prefixed keys).
func tokenByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.'
}

// generated reports a run of token bytes around s[lo:hi] (the piece a cut would keep) that
// could be a credential: with what the cut would take, looking 256 bytes each way, it holds
// a letter and a digit (a run of one letter, or of digits, is no key).
func generated(s string, lo, hi int) bool {
	for lo > 0 && hi-lo < 256 && tokenByte(s[lo-1]) {
		lo--
	}
	for end := min(len(s), hi+256); hi < end && tokenByte(s[hi]); {
		hi++
	}
	var letter, digit bool
	for i := lo; i < hi; i++ {
		c := s[i]
		letter = letter || 'a' <= c|0x20 && c|0x20 <= 'z'
		digit = digit || '0' <= c && c <= '9'
	}
	return letter && digit
}

// Head returns s when it is at most max bytes; otherwise its first bytes (never half a
// character) and "…", max bytes in all: a one-line value such as a title.
func Head(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut < 0 {
		return ""
	}
	return s[:cut] + ellipsis
}

// MaxLine is the most characters a line printed for a person holds (search hits, forget's
// titles): one long word in a stored title would otherwise print a line of any length.
const MaxLine = 200

// Line returns s when it shows at most max characters; otherwise the first max-1 and "…".
// An SGR sequence (ESC [ … m, the bold a terminal shows marks in) takes no room and is
// never cut, and a cut inside bold ends it, so the terminal's later text is not bold.
func Line(s string, max int) string {
	shown, open := 0, false
	cut, cutOpen := 0, false
	for i := 0; i < len(s); {
		if n := sgr(s[i:]); n > 0 {
			code := s[i+2 : i+n-1]
			open = code != "" && code != "0"
			i += n
			continue
		}
		switch shown {
		case max - 1:
			cut, cutOpen = i, open
		case max: // a character past max
			out := s[:cut] + "…"
			if cutOpen {
				out += "\x1b[0m"
			}
			return out
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
		shown++
	}
	return s
}

// sgr is the length of the SGR sequence s starts with (ESC [ digits and ; m), 0 for none.
func sgr(s string) int {
	if len(s) < 3 || s[0] != '\x1b' || s[1] != '[' {
		return 0
	}
	for j := 2; j < len(s); j++ {
		switch c := s[j]; {
		case c == 'm':
			return j + 1
		case c != ';' && (c < '0' || c > '9'):
			return 0
		}
	}
	return 0
}
