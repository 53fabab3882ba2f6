// Package printable makes captured text inert wherever it leaves the product. A control
// character (C0, DEL, C1) in a prompt, a tool's output or a project's name would otherwise
// retitle the window, clear the screen or plant a link (OSC 8) when `hook search` prints it;
// a bidi override or a zero-width character makes what is shown differ from what is there
// (text reordered, words hidden or split); and a tag in a stored title could close or open
// the block the model reads it in (`</system-reminder>`). Text, Lines and JSON are for a
// terminal or a file, Inert for what a model reads (SessionStart's context and the memory
// tools' answers). One predicate, hidden, says which characters are escaped, for all.
package printable

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text is s with every hidden character written as an escape (\x1b, \x07, \x7f, \u009b,
// \u202e, \u200b, \U000e0041), so what is shown is what was captured, inert. Every
// human-readable command prints captured text through it, one call per field.
func Text(s string) string {
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidden(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// Lines is Text of each line of s, its line breaks ("\n", "\r\n") kept: for a report
// rendered whole (doctor), whose values quote paths, reasons and settings.
func Lines(s string) string {
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i < len(lines)-1 && strings.HasSuffix(l, "\r") {
			lines[i] = Text(l[:len(l)-1]) + "\r"
		} else {
			lines[i] = Text(l)
		}
	}
	return strings.Join(lines, "\n")
}

// TagMark stands for the "<" of a tag-like sequence in Inert's output: it reads as an angle
// bracket, and no parser takes it for one.
const TagMark = "‹"

// Inert is Lines(s) with the "<" of every tag-like sequence ("<b", "</system-reminder",
// "<!--", "<?xml") written as TagMark: text a model reads inside a block (Claude Code wraps
// SessionStart's context in <system-reminder>) can then neither close it nor open another,
// whatever was stored. Newlines are kept: a caller that places s on one line folds it
// first. Ordinary text, "a < b" and "<=" included, is returned unchanged, and Inert of its
// own output changes nothing.
func Inert(s string) string {
	s = Lines(s)
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if tagLike(s[i+1:]) {
			b.WriteString(TagMark)
		} else {
			b.WriteByte('<')
		}
		s = s[i+1:]
	}
}

// tagLike reports whether rest, what follows a "<", starts a tag, a closing tag, a
// declaration (a comment, CDATA, a doctype) or a processing instruction as HTML and XML
// read one: an ASCII letter, after a "/" or not, or "!" or "?".
func tagLike(rest string) bool {
	rest = strings.TrimPrefix(rest, "/")
	if rest == "" {
		return false
	}
	c := rest[0] | 0x20 // lower case, for a letter
	return 'a' <= c && c <= 'z' || rest[0] == '!' || rest[0] == '?'
}

// hidden reports whether r is written as an escape: a control but tab (C0 with newline,
// DEL, C1), a format character (bidi embeddings, overrides and isolates, zero-width
// space, joiners and marks, word joiner, BOM, soft hyphen, the invisible tag characters
// that spell text a model reads and a person does not), or a line or paragraph separator,
// which some readers break a line at.
func hidden(r rune) bool {
	if r < 0x7f {
		return r < 0x20 && r != '\t'
	}
	return r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
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

// JSON is encoded JSON with every hidden character that encoding/json leaves raw (DEL, C1,
// format characters) also escaped (\u007f, \u0085, \u202e, \udb40\udc41): encoding/json
// escapes only what JSON requires (below 0x20, and U+2028 and U+2029), and a terminal or
// a viewer may act on the others. The value decodes unchanged; outside strings JSON has no
// such character, so nothing else changes.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		switch {
		case r < 0x7f || r == utf8.RuneError && n == 1 || !hidden(r): // below DEL: JSON's own escapes, or its whitespace
			out = append(out, b[i:i+n]...)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}
