// Package redact is the product's one scrubber (DESIGN.md §16, §18): Captured replaces
// credential shapes in captured content before it is journaled, and Scrub, ScrubEnv and
// Writer clean every diagnostic before it is logged, persisted or shown. Both use the one
// rule table in rules.go.
package redact

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/envname"
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
	for _, r := range rules() {
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
// (MY_GATEWAY_KEY, github_token), and it is not one of the settings whose names only sound
// so: CLAUDE_MEM_AUTH_SOURCE names a source and CLAUDE_MEM_REDACT_SECRETS is a switch (a
// settings error must show the value it rejects).
func SensitiveName(name string) bool {
	u := strings.ToUpper(name)
	return u != envname.AuthSource && u != envname.RedactSecrets &&
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
	n := utf8.RuneCountInString(s) // as len([]rune(s)): a byte that is no UTF-8 counts one
	prefix := ""
	if n > 2*shownPrefix {
		// Without converting the whole secret (diagnostics shorten a secret at every match).
		prefix = string([]rune(s[:min(len(s), shownPrefix*utf8.UTFMax)])[:shownPrefix])
	}
	return prefix + "…(" + strconv.Itoa(n) + ")"
}

// apply redacts s for scope sc as it reads: on a terminal (escape sequences left out, see
// escView) and, where it holds percent-encoding, decoded as well (see pctView). A secret
// found in a view replaces its bytes in s, with the escape sequences inside it; those
// around it stay. Text with neither costs no view.
func apply(s string, sc scope) (string, Counts) {
	out, counts := s, Counts(nil)
	if v := escView(s); v != nil {
		out, counts = v.redact(sc)
	} else if found, c := spans(s, sc, nil); found != nil {
		out, counts = render(s, found), c
	}
	if v := pctView(out); v != nil {
		var c Counts
		out, c = v.redact(sc)
		counts.Add(c)
	}
	return out, counts
}

// spans runs the rules of scope sc over s, in table order, all on s as it is: a match that
// overlaps a secret an earlier rule took is left alone (the earlier, more specific rule
// has it), as if the earlier rule's marker stood there. gap, when set, reports bytes left
// out of s before s[p] (a word ends there).
func spans(s string, sc scope, gap func(int) bool) ([]span, Counts) {
	at := scan(s, sc)
	if at == nil {
		return nil, nil
	}
	var taken []span // sorted by lo
	var counts Counts
	rules := rules()
	for i := range rules {
		if len(at[i]) > 0 {
			if found := rules[i].find(s, at[i], taken, sc, gap); len(found) > 0 {
				counts.Add(Counts{rules[i].kind: len(found)})
				taken = merge(taken, found)
			}
		}
	}
	return taken, counts
}

// render is s with each span replaced.
func render(s string, taken []span) string {
	if len(taken) == 0 {
		return s
	}
	n := len(s)
	for _, t := range taken {
		n += len(t.repl) - (t.hi - t.lo)
	}
	var b strings.Builder
	b.Grow(n)
	last := 0
	for _, t := range taken {
		b.WriteString(s[last:t.lo])
		b.WriteString(t.repl)
		last = t.hi
	}
	b.WriteString(s[last:])
	return b.String()
}

// span is a secret at s[lo:hi] and what replaces it.
type span struct {
	lo, hi int
	repl   string
}

// merge returns the spans of a and b (each sorted, none overlapping another) sorted.
func merge(a, b []span) []span {
	if len(a) == 0 { // the first rule's: nothing to copy
		return b
	}
	out := make([]span, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].lo < b[0].lo {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// anchorRef is one anchor of rules[rule].
type anchorRef struct {
	rule int
	lit  string
	fold bool
}

// pairs indexes the anchors by their first two bytes, lower-cased (every match is longer than
// a byte, and a one-byte anchor is listed under every pair it begins): one pass over a text
// then finds every rule's anchors, and most offsets cost two table look-ups.
var pairs = sync.OnceValue(func() *pairTable {
	x := new(pairTable)
	add := func(k int, ref anchorRef) {
		if x.at[k] == 0 {
			x.refs = append(x.refs, nil)
			x.at[k] = uint16(len(x.refs))
		}
		x.refs[x.at[k]-1] = append(x.refs[x.at[k]-1], ref)
	}
	for i, r := range rules() {
		for _, a := range r.anchors {
			k := int(lower[a[0]]) << 8
			if len(a) > 1 {
				add(k|int(lower[a[1]]), anchorRef{i, a, r.fold})
				continue
			}
			for c := range 256 {
				if lower[c] == byte(c) {
					add(k|c, anchorRef{i, a, r.fold})
				}
			}
		}
	}
	return x
})

// pairTable is pairs' index.
type pairTable struct {
	at   [1 << 16]uint16 // 1 + index in refs; 0: no anchor begins so
	refs [][]anchorRef
}

// lower maps a byte to its ASCII lower case.
var lower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// scan finds, in one pass, where each rule of scope sc has an anchor in s: at[i] lists
// rules[i]'s offsets, ascending; nil when no rule has one (most short strings: nothing is
// allocated).
func scan(s string, sc scope) [][]int {
	var at [][]int
	if len(s) < 2 {
		return nil
	}
	pairs, rules := pairs(), rules()
	k := uint16(lower[s[0]])
	for p := 0; p+1 < len(s); p++ {
		k = k<<8 | uint16(lower[s[p+1]]) // the pair at p
		i := pairs.at[k]
		if i == 0 {
			continue
		}
		for _, a := range pairs.refs[i-1] {
			if rules[a.rule].scope&sc != 0 && hasPrefix(s[p:], a.lit, a.fold) {
				if at == nil {
					at = make([][]int, len(rules))
				}
				if l := at[a.rule]; len(l) == 0 || l[len(l)-1] != p {
					at[a.rule] = append(l, p)
				}
			}
		}
	}
	return at
}

// hasPrefix is strings.HasPrefix, ASCII case-insensitive when fold (lit is lower case).
func hasPrefix(s, lit string, fold bool) bool {
	if len(s) < len(lit) {
		return false
	}
	if !fold {
		return s[:len(lit)] == lit
	}
	for i := 0; i < len(lit); i++ {
		if lower[s[i]] != lit[i] {
			return false
		}
	}
	return true
}

// find returns r's secrets in s, from its anchors at offsets at, sorted, leaving out every
// match that overlaps a span of taken. It costs O(len(s)) whatever s holds: each regexp
// runs on a window that a later attempt of r does not examine again (see rule.body and
// rule.until), and the line ends, runs and literals it looks for are found once.
func (r *rule) find(s string, at []int, taken []span, sc scope, gap func(int) bool) []span {
	var found []span
	marker := "[REDACTED:" + r.kind + "]"
	last := 0 // end of the previous secret found, or of the run an attempt found none in
	prev := 0 // end of the last secret of taken before the anchor
	nl := -1  // the next line break at or after the anchor (len(s): none)
	run := runs{class: r.cls}
	val := runs{class: r.cls} // from the values' starts, which do not ascend with the anchors
	next := -1                // the next r.until at or after the anchor (len(s): none)
	for _, p := range at {
		if p < last || r.bound && p > 0 && isWord(s[p-1]) && !afterEscape(s, p) && (gap == nil || !gap(p)) {
			continue
		}
		for len(taken) > 0 && taken[0].hi <= p {
			prev, taken = taken[0].hi, taken[1:]
		}
		if len(taken) > 0 && taken[0].lo <= p { // an earlier rule has it
			last = taken[0].hi
			continue
		}
		if r.sep != "" {
			v := sepFollows(s, p, r.sep)
			if v < 0 || r.vmin > 0 && val.end(s, v)-v < r.vmin {
				continue
			}
		}
		end := min(p+r.fwd, len(s))
		if len(taken) > 0 { // a match reaching into an earlier rule's secret is left alone
			end = min(end, taken[0].lo)
		}
		if !r.lines {
			if nl < p {
				if nl = strings.IndexByte(s[p:], '\n'); nl < 0 {
					nl = len(s)
				} else {
					nl += p
				}
			}
			end = min(end, nl)
		}
		if run.class != nil && r.sep == "" {
			e := run.end(s, p)
			if e-p < r.min {
				continue
			}
			if !r.beyond {
				end = min(end, e+1)
			}
		}
		if r.until != "" {
			if next < p {
				if next = strings.Index(s[p:], r.until); next < 0 {
					next = len(s)
				} else {
					next += p
				}
			}
			if next+len(r.until) > end {
				continue
			}
		}
		e := p
		if r.pre != nil && run.class != nil {
			e = run.end(s, p)
		}
		lo := 0
		if r.back != nil { // the secret is what stands before the match
			if lo = r.back(s, p, max(last, prev)); p-lo < 16 {
				continue
			}
		}
		m := r.match(s, p, e, end)
		if m == nil {
			if run.class != nil { // no anchor in this run (within the window) begins one
				last = min(run.end(s, p), end)
			}
			continue
		}
		if len(taken) > 0 && taken[0].lo < p+m[1] {
			continue
		}
		hi := p
		if r.back == nil {
			lo, hi = m[0], m[1]
			for g := 2; g < len(m); g += 2 {
				if m[g] >= 0 {
					lo, hi = m[g], m[g+1]
					break
				}
			}
			lo, hi = p+lo, p+hi
		}
		if r.keep != nil && r.spare(s, wordStart(s, p), lo, hi, p+m[1]) {
			last = max(last, p+m[1]) // the anchors the match holds find it again
			continue
		}
		repl := marker
		if sc == diag && r.public {
			repl = Short(s[lo:hi])
		}
		found = append(found, span{lo, hi, repl})
		last = max(hi, p+m[1])
	}
	return found
}

// match is r's regexp at s[p:end] (nil: none), run on the window r.pre leaves (the run of
// r.body from p ends at e), and a match that reaches that window's end continued by
// r.tail.
func (r *rule) match(s string, p, e, end int) []int {
	win := end
	if r.pre != nil {
		if win = r.pre(s, p, e, end); win < 0 {
			return nil
		}
	}
	m := r.re().FindStringSubmatchIndex(s[p:win])
	if m == nil || r.tail == nil || p+m[1] != win || win == end {
		return m
	}
	hi := r.tail(s, win, end) - p
	for g := 3; g < len(m); g += 2 { // a group that ends the match goes on with it
		if m[g] == m[1] {
			m[g] = hi
		}
	}
	m[1] = hi
	return m
}

// runs finds the end of the run of class bytes holding an offset, scanning each byte of s
// once over ascending offsets.
type runs struct {
	class    *[256]bool
	from, to int // s[from:to] is a run; s[to] is not in class
}

// end is where the run of class bytes from s[p] ends (p itself when s[p] is not in it).
func (r *runs) end(s string, p int) int {
	if p >= r.from && p < r.to {
		return r.to
	}
	i := p // past r.to: offsets ascend
	for i < len(s) && r.class[s[i]] {
		i++
	}
	r.from, r.to = p, i
	return i
}

// trailing is punctuation that ends a sentence or a call rather than a value: a value
// that is no secret without it (Password: required, / f(password=null)) is spared. A secret
// of five characters and one of these is spared with it: no less than placeholder spares.
const trailing = "),:;.!?=\x00"

// spare reports whether r.keep spares the secret s[lo:hi] of the match s[ws:end] (ws the
// start of its first word), as it stands or, when it ends the match, without its trailing
// punctuation.
func (r *rule) spare(s string, ws, lo, hi, end int) bool {
	if r.keep(s[lo:hi], siteOf(s, ws, end)) {
		return true
	}
	t := s[lo:hi] // strings.TrimRight, without building its set at every match
	for t != "" && strings.IndexByte(trailing, t[len(t)-1]) >= 0 {
		t = t[:len(t)-1]
	}
	cut := hi - lo - len(t)
	return hi == end && cut > 0 && t != "" && r.keep(t, siteOf(s, ws, end-cut))
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// sepFollows is where the value begins when, past the word at s[p:] (its first byte, then
// letters, digits, _ and -), a quote (escaped or not) and blanks, the next byte is one of
// sep: past that byte, blanks and an opening quote; -1 when not.
func sepFollows(s string, p int, sep string) int {
	i := sepAt(s, p, sep)
	if i < 0 {
		return -1
	}
	for i++; i < len(s) && strings.IndexByte(" \t\\\"'", s[i]) >= 0; i++ {
	}
	return i
}

// sepAt is where sepFollows finds the byte of sep, -1 when not.
func sepAt(s string, p int, sep string) int {
	i := p + 1
	for i < len(s) && (isWord(s[i]) || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '\\' { // a JSON-encoded string's \"
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) && strings.IndexByte(" \t\r\n\f", s[i]) >= 0 {
		i++
	}
	if i >= len(s) || strings.IndexByte(sep, s[i]) < 0 {
		return -1
	}
	return i
}

// afterEscape reports a JSON escape just before s[p] (\n, \t, \u000a): in text that holds
// JSON's spelling (a pasted event, a JSON document in a string), it ends the word before.
func afterEscape(s string, p int) bool {
	if p >= 2 && s[p-2] == '\\' && strings.IndexByte("nrtbf", s[p-1]) >= 0 {
		return true
	}
	if p < 6 || s[p-6] != '\\' || s[p-5] != 'u' {
		return false
	}
	for _, c := range []byte(s[p-4 : p]) {
		if !('0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

// siteOf is the site of the match s[lo:hi], lo the start of its first word.
func siteOf(s string, lo, hi int) site {
	at := site{match: s[lo:hi]}
	i := lo
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	if i > 0 && s[i-1] == '-' && (i == 1 || strings.IndexByte(" \t\n", s[i-2]) >= 0) { // a YAML list item
		i--
		for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
			i--
		}
	}
	if i > 0 && s[i-1] != '\n' {
		return at
	}
	j := hi
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
		j++
	}
	at.lineKey = j == len(s) || s[j] == '\n'
	return at
}

// wordStart is where the word holding s[p] begins, looking back 64 bytes at most; a JSON
// escape (\nDB_PASSWORD) ends the word before.
func wordStart(s string, p int) int {
	i := p
	for i > 0 && p-i < 64 && isWord(s[i-1]) && !afterEscape(s, i) {
		i--
	}
	return i
}
