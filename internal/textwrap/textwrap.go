// Package textwrap wraps text for a terminal: at spaces, a `quoted` span (a command to
// copy) never broken, and a word wider than the line (a path) on a line of its own.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// Wrap is text in lines of at most width columns where the words allow, each ending in a
// newline: the first line starts with first, the others with rest.
func Wrap(text string, width int, first, rest string) string {
	var b strings.Builder
	line, empty := first, true
	for _, word := range Words(text) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(line + "\n")
			line, empty = rest+word, false
			continue
		}
		if !empty {
			line += " "
		}
		line, empty = line+word, false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Words splits text at spaces, a `quoted` span staying in one word.
func Words(text string) []string {
	var out []string
	for {
		text = strings.TrimLeft(text, " ")
		if text == "" {
			return out
		}
		end := strings.IndexByte(text, ' ')
		if q := strings.IndexByte(text, '`'); q >= 0 && (end < 0 || q < end) {
			if c := strings.IndexByte(text[q+1:], '`'); c >= 0 {
				after := q + 1 + c + 1
				end = strings.IndexByte(text[after:], ' ')
				if end >= 0 {
					end += after
				}
			}
		}
		if end < 0 {
			return append(out, text)
		}
		out, text = append(out, text[:end]), text[end:]
	}
}
