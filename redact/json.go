package redact

import (
	"strconv"

	"github.com/claude-mem/claude-mem-go/clip"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds how deep CapturedJSON walks (objects, arrays, and JSON held in a string):
// a deeper document is redacted as text, which costs no stack.
const maxDepth = 512

// CapturedJSON redacts a JSON document (a tool's input or response) as its text reads: every
// string value, decoded, passes Captured's rules, so a token after a newline (the two bytes
// \n in the JSON spelling) is seen after a line break; a string that is itself a JSON
// document is walked the same way; and the value of a key that names a secret (see
// secretKey) is redacted whatever its shape, every string and number in it. The document
// keeps its key order and spelling: only a string that changed is written again (without
// HTML escaping). Text that is not valid JSON is redacted as Captured does.
func CapturedJSON(raw string) (string, Counts) {
	if out, c, ok := walk(walker{src: raw}, 0, false); ok {
		return out, c
	}
	return Captured(raw)
}

// Clipped is a captured field as it is stored: redacted (CapturedJSON when json, else
// Captured), then cut to max bytes by clip.HeadTail (max 0: kept whole). Only what the cut
// can keep is read, so a 16 MiB field costs about what 8 × max does: of a text, its first
// and last 4 × max bytes; of a JSON document, every value but the strings that lie wholly
// between those ends (left out, as the cut would), and of a string longer than 8 × max, its
// own first and last 4 × max bytes. (Redaction may shorten text; what shortens 4 × max bytes
// of it to less than max/2 brings the text around that first cut into view, and the cut
// leaves no piece of a token there either.)
func Clipped(s string, json bool, max int) (string, Counts) {
	if max <= 0 {
		if json {
			return CapturedJSON(s)
		}
		return Captured(s)
	}
	win := 4 * max
	out, c, ok := "", Counts(nil), false
	if json {
		out, c, ok = walk(walker{src: s, win: win, midLo: win, midHi: len(s) - win}, 0, false)
	}
	if !ok {
		out, c = Captured(clip.HeadTail(s, 2*win))
	}
	return clip.HeadTail(out, max), c
}

// walk redacts w's JSON document, found depth levels down; secret says every value in it
// is. ok is false when it is not JSON (or is too deep).
func walk(w walker, depth int, secret bool) (out string, c Counts, ok bool) {
	w.ws()
	if !w.value(depth, secret) {
		return "", nil, false
	}
	if w.ws(); w.pos != len(w.src) {
		return "", nil, false
	}
	if !w.changed {
		return w.src, nil, true
	}
	w.out.WriteString(w.src[w.last:])
	return w.out.String(), w.counts, true
}

// redactText is what CapturedJSON does to one decoded string: walked when it holds a JSON
// object or array, else Captured.
func redactText(s string, depth int) (string, Counts) {
	if looksJSON(s) {
		if out, c, ok := walk(walker{src: s}, depth, false); ok {
			return out, c
		}
	}
	return Captured(s)
}

// looksJSON: an object or array, first and last bytes past blanks.
func looksJSON(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= 2 && (s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']')
}

// walker validates and redacts one JSON text in one pass. The output is built only once a
// value changes: src[last:] is what is still to be copied as it is.
type walker struct {
	src     string
	pos     int
	out     strings.Builder
	last    int
	changed bool
	counts  Counts
	// A string value wholly within src[midLo:midHi] is left out (Clipped), and a string
	// longer than 2 × win is cut to its ends first; win 0: every value read whole.
	win, midLo, midHi int
	// keyed: the value about to be walked is a key's that ends in key, token or secret
	// (keyedName), so a string value that reads as generated is a secret.
	keyed bool
}

func (w *walker) ws() {
	for w.pos < len(w.src) {
		switch w.src[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value walks the value at pos; secret says a key above it names a secret.
func (w *walker) value(depth int, secret bool) bool {
	keyed := w.keyed
	w.keyed = false
	if w.pos >= len(w.src) || depth >= maxDepth {
		return false
	}
	switch c := w.src[w.pos]; {
	case c == '{':
		return w.object(depth+1, secret)
	case c == '[':
		return w.array(depth+1, secret)
	case c == '"':
		lo := w.pos
		if w.win > 0 && lo >= w.midLo {
			if !w.skipStr() {
				return false
			}
			if w.pos <= w.midHi {
				w.replace(lo, `""`, nil)
				return true
			}
			w.pos = lo
		}
		s, ok := w.str()
		if !ok {
			return false
		}
		cut := w.win > 0 && len(s) > 2*w.win
		if cut {
			s = clip.HeadTail(s, 2*w.win)
		}
		if keyed && !secret && keyedValue(s) {
			w.replace(lo, `"[REDACTED:assignment]"`, Counts{"assignment": 1})
			return true
		}
		w.text(lo, s, depth, secret, cut)
		return true
	case c == 't':
		return w.lit("true")
	case c == 'f':
		return w.lit("false")
	case c == 'n':
		return w.lit("null")
	default:
		lo := w.pos
		if !w.number() {
			return false
		}
		if secret {
			w.replace(lo, `"[REDACTED:assignment]"`, Counts{"assignment": 1})
		}
		return true
	}
}

func (w *walker) object(depth int, secret bool) bool {
	return w.members('}', func() bool {
		if w.pos >= len(w.src) || w.src[w.pos] != '"' {
			return false
		}
		lo := w.pos
		k, ok := w.str()
		if !ok {
			return false
		}
		w.text(lo, k, depth, false, false) // a key is text too: a map may be keyed by tokens
		w.ws()
		if w.pos >= len(w.src) || w.src[w.pos] != ':' {
			return false
		}
		w.pos++
		w.ws()
		w.keyed = keyedName(k)
		return w.value(depth, secret || secretKey(k))
	})
}

func (w *walker) array(depth int, secret bool) bool {
	return w.members(']', func() bool { return w.value(depth, secret) })
}

// members walks an object or array from its opening byte to its closing one, member
// walking each member.
func (w *walker) members(closing byte, member func() bool) bool {
	w.pos++
	w.ws()
	if w.pos < len(w.src) && w.src[w.pos] == closing {
		w.pos++
		return true
	}
	for {
		if !member() {
			return false
		}
		w.ws()
		if w.pos >= len(w.src) {
			return false
		}
		switch w.src[w.pos] {
		case ',':
			w.pos++
			w.ws()
		case closing:
			w.pos++
			return true
		default:
			return false
		}
	}
}

func (w *walker) lit(l string) bool {
	if !strings.HasPrefix(w.src[w.pos:], l) {
		return false
	}
	w.pos += len(l)
	return true
}

// number checks the JSON number grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (w *walker) number() bool {
	s, i := w.src, w.pos
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	w.pos = i
	return true
}

// Unquote decodes the JSON string token q (its quotes included) as CapturedJSON reads one:
// q's own bytes when it holds no escape, else one copy. ok is false unless q is exactly one
// valid string token.
func Unquote(q string) (s string, ok bool) {
	if q == "" || q[0] != '"' {
		return "", false
	}
	w := walker{src: q}
	s, ok = w.str()
	return s, ok && w.pos == len(q)
}

// str reads the string token at pos and returns it decoded: the source itself when it holds
// no escape.
func (w *walker) str() (string, bool) {
	s, start := w.src, w.pos
	i := start + 1
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
		i++
	}
	if i < len(s) && s[i] == '"' {
		w.pos = i + 1
		return s[start+1 : i], true
	}
	// The decoded text is no longer than the token: sized once, a 15 MB prompt is not
	// copied again and again as its buffer grows.
	n := i - start + 64
	if e := (walker{src: s, pos: start}); e.skipStr() {
		n = e.pos - start
	}
	b := make([]byte, 0, n)
	b = append(b, s[start+1:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			w.pos = i + 1
			return unsafe.String(unsafe.SliceData(b), len(b)), true // b is never written again
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s, i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					i += 6
					r = d
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return "", false
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i:i+4], 16, 32)
	return rune(n), err == nil
}

// text redacts the string token src[lo:w.pos], decoded s: under a key that names a secret
// the whole value, unless it only stands for one; else its text. cut: s was shortened, so
// it is written even when nothing in it is redacted.
func (w *walker) text(lo int, s string, depth int, secret, cut bool) {
	if secret && looksJSON(s) { // a document, every value secret
		if out, c, ok := walk(walker{src: s}, depth+1, true); ok {
			if c != nil || cut {
				w.replace(lo, quote(out), c)
			}
			return
		}
	}
	if secret {
		if standIn(s) {
			if cut {
				w.replace(lo, quote(s), nil)
			}
			return
		}
		kind := "assignment"
		_, c := Captured(s)
		if ks := c.Kinds(); len(ks) > 0 {
			kind = ks[0]
		} else {
			c = Counts{kind: 1}
		}
		w.replace(lo, `"[REDACTED:`+kind+`]"`, c)
		return
	}
	if r, c := redactText(s, depth+1); c != nil || cut {
		w.replace(lo, quote(r), c)
	}
}

// replace writes repl for src[lo:w.pos] and counts c.
func (w *walker) replace(lo int, repl string, c Counts) {
	if !w.changed {
		w.out.Grow(min(len(w.src), 1<<20))
		w.changed = true
	}
	w.out.WriteString(w.src[w.last:lo])
	w.out.WriteString(repl)
	w.last = w.pos
	w.counts.Add(c)
}

// skipStr moves past the string token at pos, checking its escapes, without decoding it.
func (w *walker) skipStr() bool {
	s := w.src
	for i := w.pos + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			w.pos = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					return false
				}
				i += 5
			default:
				return false
			}
		}
	}
	return false
}

// quote is s as a JSON string the way JSON.stringify writes it: only ", \ and control
// characters escaped (no HTML escaping).
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[last:i])
		last = i + 1
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		}
	}
	b.WriteString(s[last:])
	b.WriteByte('"')
	return b.String()
}
