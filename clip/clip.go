// Package clip is the one rule for shortening text. What is kept, stored, logged or sent to
// the model is bounded in bytes (Head, Words, HeadTail, Tail); what a person reads in a
// terminal line or table column is bounded in characters, its width (Line, Middle). Either
// way a cut falls only between characters, never inside a UTF-8 sequence, and is marked:
// "…" where the text goes on, or, in HeadTail, a marker that says how many bytes went.
// A captured tool field or an observed value keeps its head and tail (where a command's
// name and its outcome usually are).
package clip

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ellipsis marks a cut that Head, Words, Line and Middle make.
const ellipsis = "…"

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
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut < 0 {
		return ""
	}
	return s[:cut] + ellipsis
}

// Words is Head cut at a word: at the last space in the kept half, trailing punctuation
// dropped, then "…", max bytes in all: a title made from a longer field.
func Words(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head := strings.TrimSuffix(Head(s, max), ellipsis)
	if i := strings.LastIndexByte(head, ' '); i > max/2 {
		head = head[:i]
	}
	return strings.TrimRight(head, " ,;:") + ellipsis
}

// Tail returns the last bytes of s, at most n, starting at a character: a file's tail
// read from an offset may begin inside one.
func Tail(s string, n int) string {
	i := max(len(s)-n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// Middle returns s when it shows at most max characters; otherwise its first and last
// characters around "…", max in all: two names that share a prefix stay apart by their
// ends in a table column.
func Middle(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := (max - 1) / 2
	return string(r[:head]) + ellipsis + string(r[len(r)-(max-1-head):])
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
			out := s[:cut] + ellipsis
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
