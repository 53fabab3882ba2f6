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
	return s[:head] + "\n…[claude-mem: " + strconv.Itoa(tail-head) + " bytes omitted]…\n" + s[tail:]
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
