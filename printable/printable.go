// Package printable makes captured text safe to print on a terminal: a control character
// (C0, DEL, C1) in a prompt, a tool's output or a project's name would otherwise retitle
// the window, clear the screen or plant a link (OSC 8) when `hook search` prints it.
package printable

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Text is s with every control character but tab written as an escape (\x1b, \x07, \x7f,
// \u009b), so what a terminal shows is what was captured, inert. Every human-readable
// command prints captured text through it, one call per field.
func Text(s string) string {
	if strings.IndexFunc(s, control) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !control(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Lines is Text of each line of s, its newlines kept: for a report rendered whole (doctor),
// whose values quote paths, reasons and settings.
func Lines(s string) string {
	if strings.IndexFunc(s, control) < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

// JSONWriter is w with JSON applied to each Write: for a json.Encoder, whose every Encode
// is one Write of whole values, so no escape is split between two writes.
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func control(r rune) bool {
	return r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f
}

// JSON is encoded JSON with DEL and the C1 controls also escaped (\u007f, \u0080–\u009f):
// encoding/json escapes only what JSON requires (below 0x20), and a terminal may act on
// the others. Outside strings JSON has no such byte, so the value is unchanged.
func JSON(b []byte) []byte {
	if bytes.IndexByte(b, 0x7f) < 0 && bytes.IndexByte(b, 0xc2) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == 0x7f:
			out = append(out, `\u007f`...)
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
		default:
			out = append(out, b[i])
		}
	}
	return out
}
