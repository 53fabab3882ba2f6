// Package redact is the product's one scrubber (DESIGN.md §16, §18): Captured replaces
// credential shapes in captured content before it is journaled, and Scrub, ScrubEnv and
// Writer clean every diagnostic before it is logged, persisted or shown. Both use the one
// rule table in rules.go.
package redact

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Counts is how many values of each kind were redacted. The zero value (nil) is empty.
type Counts map[string]int

// Add merges o into c.
func (c *Counts) Add(o Counts) {
	for k, n := range o {
		if *c == nil {
			*c = Counts{}
		}
		(*c)[k] += n
	}
}

// Total is the number of values redacted, all kinds together.
func (c Counts) Total() int {
	t := 0
	for _, n := range c {
		t += n
	}
	return t
}

// Kinds lists c's kinds in the order of Kinds(), so a display is stable.
func (c Counts) Kinds() []string {
	var ks []string
	for _, k := range Kinds() {
		if c[k] > 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

// String is "anthropic=1 jwt=2" (kinds in the order of Kinds()), or "" when empty.
func (c Counts) String() string {
	var b strings.Builder
	for _, k := range c.Kinds() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", k, c[k])
	}
	return b.String()
}

// Kinds is every kind Captured can report, in the order of the rule table.
func Kinds() []string {
	var ks []string
	for _, r := range rules {
		if r.scope&capture != 0 && !slices.Contains(ks, r.kind) {
			ks = append(ks, r.kind)
		}
	}
	return ks
}

// Captured replaces every credential shape in s with [REDACTED:<kind>] and counts them.
// Counts is nil when nothing was found, and s is then returned as it is.
func Captured(s string) (string, Counts) { return apply(s, capture) }

// Scrub cleans text that is about to be logged, written to health.json or a run file, or
// shown: every known secret of 8 bytes or more becomes its short form (sk-a…(108)), and so
// does every credential shape whose first characters are a published prefix; other shapes,
// URL userinfo, secret-named query values and NAME=value pairs whose name says secret
// (see SensitiveName) become [REDACTED:<kind>].
func Scrub(text string, known ...string) string { return scrub(text, sortKnown(known)) }

// sortKnown keeps the known secrets Scrub replaces, longest first (so a secret that holds
// another is replaced whole), and only those of 8 bytes or more: a shorter value would match
// ordinary words.
func sortKnown(known []string) []string {
	var ks []string
	for _, k := range known {
		if len(k) >= 8 {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool { return len(ks[i]) > len(ks[j]) })
	return ks
}

func scrub(text string, known []string) string {
	for _, k := range known {
		text = strings.ReplaceAll(text, k, Short(k))
	}
	out, _ := apply(text, diag)
	return out
}

// sensitiveParts are the name parts that make an environment variable secret.
var sensitiveParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL"}

// SensitiveName reports whether an environment variable named name holds a secret: its
// name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, AUTH or CREDENTIAL, in any case
// (MY_GATEWAY_KEY, github_token), and it is not CLAUDE_MEM_AUTH_SOURCE, the setting that
// names a source (a settings error must show the value it rejects).
func SensitiveName(name string) bool {
	u := strings.ToUpper(name)
	return u != "CLAUDE_MEM_AUTH_SOURCE" &&
		slices.ContainsFunc(sensitiveParts, func(p string) bool { return strings.Contains(u, p) })
}

// ScrubEnv is the printable form of one environment variable's value: the short form when
// its name is sensitive, else the value through Scrub (a proxy URL with a token in it).
func ScrubEnv(name, value string) string {
	if SensitiveName(name) {
		return Short(value)
	}
	return Scrub(value)
}

const shownPrefix = 4

// Short is a secret's printable form: its first four characters, an ellipsis and its length
// in characters (sk-ant-… → sk-a…(108)); no prefix for a secret of eight characters or fewer,
// which the prefix would half reveal; "" for "".
func Short(s string) string {
	if s == "" {
		return ""
	}
	r := []rune(s)
	n := shownPrefix
	if len(r) <= 2*shownPrefix {
		n = 0
	}
	return fmt.Sprintf("%s…(%d)", string(r[:n]), len(r))
}

// apply runs the rules of scope sc over s, in table order.
func apply(s string, sc scope) (string, Counts) {
	var counts Counts
	lower := "" // s with ASCII lower-cased (same offsets), made when a folding rule needs it
	for i := range rules {
		r := &rules[i]
		if r.scope&sc == 0 {
			continue
		}
		hay := s
		if r.fold {
			if lower == "" {
				lower = lowerASCII(s)
			}
			hay = lower
		}
		if out, n := r.apply(s, hay, sc); n > 0 {
			s, lower = out, ""
			counts.Add(Counts{r.kind: n})
		}
	}
	return s, counts
}

// apply replaces r's matches in s; hay is s or its lower-cased copy, where anchors are found.
func (r *rule) apply(s, hay string, sc scope) (string, int) {
	var at []int // anchor offsets, ascending
	for _, a := range r.anchors {
		for off := 0; ; {
			i := strings.Index(hay[off:], a)
			if i < 0 {
				break
			}
			at = append(at, off+i)
			off += i + len(a)
		}
	}
	if len(at) == 0 {
		return s, 0
	}
	slices.Sort(at)
	var b strings.Builder
	last, n := 0, 0 // last: end of the previous secret replaced
	for _, p := range at {
		if p < last {
			continue
		}
		ws, we := max(p-r.back, last), min(p+r.fwd, len(s))
		for _, m := range r.re.FindAllStringSubmatchIndex(s[ws:we], -1) {
			if ws+m[0] > p {
				break
			}
			if ws+m[1] <= p {
				continue // a match before this anchor was already judged at its own
			}
			lo, hi := m[0], m[1]
			for g := 2; g < len(m); g += 2 {
				if m[g] >= 0 {
					lo, hi = m[g], m[g+1]
					break
				}
			}
			v := s[ws+lo : ws+hi]
			if r.keep != nil && r.keep(v, s[ws+m[0]:ws+m[1]]) {
				break
			}
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last : ws+lo])
			if sc == diag && r.public {
				b.WriteString(Short(v))
			} else {
				b.WriteString("[REDACTED:" + r.kind + "]")
			}
			last, n = ws+hi, n+1
			break
		}
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func lowerASCII(s string) string {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}
