package prompt

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Reason says why an answer was salvaged or unusable (§24). runs keeps them and hook stats
// counts them per day, so no answer is lost without one.
type Reason string

// Salvage reasons: something was kept, after a repair or in part.
const (
	ReasonInvalidUTF8    Reason = "invalid_utf8"    // bytes that are not UTF-8 became U+FFFD
	ReasonCodeFence      Reason = "code_fence"      // the blocks came in a ``` fence
	ReasonProseAround    Reason = "prose_around"    // text outside the blocks was ignored
	ReasonUnclosed       Reason = "unclosed_tag"    // a block without its closing tag ended where the next began
	ReasonUnknownType    Reason = "unknown_type"    // a missing or unknown type became the nearest allowed one
	ReasonMissingTitle   Reason = "missing_title"   // the title was taken from the subtitle, narrative or a fact
	ReasonEmptyBlock     Reason = "empty_block"     // a block with nothing in it was dropped
	ReasonExtraSummary   Reason = "extra_summary"   // more than one summary: the first was kept
	ReasonSummaryUnasked Reason = "summary_unasked" // a summary where only observations were asked: kept
	ReasonSummaryMissing Reason = "summary_missing" // no summary where one was asked: asked again later
	ReasonTruncated      Reason = "truncated"       // cut at the output limit: complete blocks kept, the rest re-run
)

// Unusable reasons: nothing could be kept from the answer.
const (
	ReasonEmpty     Reason = "empty"      // no text at all
	ReasonProseOnly Reason = "prose_only" // text without any block or skip
)

// Answer is what Parse made of one observer answer.
type Answer struct {
	Observations []store.Observation
	Summary      *store.Summary
	// Skipped: the answer said, with <skip>, that nothing was worth remembering; SkipWhy
	// is the reason it gave.
	Skipped bool
	SkipWhy string
	// Reasons are the salvage or unusable reasons, each once, in the order found.
	Reasons []Reason
	// Dropped counts the blocks that were not kept: cut at the output limit, or empty.
	Dropped  int
	Warnings []string
}

// Verdict is the answer's verdict: unusable when nothing was kept and no skip was said.
func (a Answer) Verdict() vocab.Verdict {
	switch {
	case len(a.Observations) == 0 && a.Summary == nil && a.Skipped:
		return vocab.VerdictSkipped
	case len(a.Observations) == 0 && a.Summary == nil:
		return vocab.VerdictUnusable
	case len(a.Reasons) > 0:
		return vocab.VerdictSalvaged
	}
	return vocab.VerdictStored
}

// Has reports whether r is one of the answer's reasons.
func (a Answer) Has(r Reason) bool { return slices.Contains(a.Reasons, r) }

// ReasonNames are the reasons as runs stores them.
func (a Answer) ReasonNames() []string {
	out := make([]string, len(a.Reasons))
	for i, r := range a.Reasons {
		out[i] = string(r)
	}
	return out
}

// Parse reads the observer's answer: every <observation> block, the first <summary> and a
// <skip>. It is tolerant, since the answer is a model's, and counts every tolerance as a
// reason: code fences and text around the blocks are ignored, a missing closing tag ends
// where the next element opens, tag case and whitespace do not matter, entities (&lt; …) are
// unescaped and CDATA is taken as it is, an unknown type becomes the nearest allowed one, a
// missing title is taken from the block's other fields. final says a summary was asked;
// truncated that the answer was cut at the output limit, so a block it did not close is
// dropped rather than kept half-written.
func Parse(text string, final, truncated bool) Answer {
	var a Answer
	reason := func(r Reason) {
		if !slices.Contains(a.Reasons, r) {
			a.Reasons = append(a.Reasons, r)
		}
	}
	warn := func(format string, args ...any) { a.Warnings = append(a.Warnings, fmt.Sprintf(format, args...)) }
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		reason(ReasonInvalidUTF8)
		warn("the answer is not valid UTF-8: invalid bytes replaced")
	}
	text = uncdata(text)
	if truncated {
		reason(ReasonTruncated)
	}
	rest := text // what is left outside the blocks, to tell prose around them
	// cutOff takes blk out of rest and reports whether it was cut at the output limit (it
	// runs to the end of a truncated answer unclosed): dropped, not kept half-written.
	cutOff := func(blk element, what string) bool {
		rest = strings.Replace(rest, text[blk.start:blk.end], "", 1)
		switch {
		case blk.closed:
		case truncated && blk.end == len(text):
			a.Dropped++
			warn("%s was cut at the output limit: dropped", what)
			return true
		default:
			reason(ReasonUnclosed)
		}
		return false
	}

	blocks := elements(text, "observation", []string{"summary", "skip"})
	for i, blk := range blocks {
		if cutOff(blk, fmt.Sprintf("observation %d of %d", i+1, len(blocks))) {
			continue
		}
		o, ok := observation(blk.inner)
		if !ok {
			a.Dropped++
			reason(ReasonEmptyBlock)
			warn("observation %d of %d is empty: dropped", i+1, len(blocks))
			continue
		}
		if raw := strings.ToLower(field(blk.inner, "type", true)); raw != o.Type {
			reason(ReasonUnknownType)
			warn("observation %q has type %q: stored as %s", o.Title, raw, o.Type)
		}
		if field(blk.inner, "title", true) == "" {
			reason(ReasonMissingTitle)
			warn("observation %d of %d has no title: titled %q", i+1, len(blocks), o.Title)
		}
		a.Observations = append(a.Observations, o)
	}

	sums := elements(text, "summary", []string{"observation", "skip"})
	for _, blk := range sums {
		if cutOff(blk, "the summary") {
			continue
		}
		s := summary(blk.inner)
		switch {
		case s == (store.Summary{}):
			a.Dropped++
			reason(ReasonEmptyBlock)
			warn("the summary is empty: dropped")
		case a.Summary != nil:
			a.Dropped++
			reason(ReasonExtraSummary)
			warn("%d summaries: the first is kept", len(sums))
		default:
			a.Summary = &s
		}
	}
	switch {
	case final && a.Summary == nil:
		reason(ReasonSummaryMissing)
	case !final && a.Summary != nil:
		reason(ReasonSummaryUnasked)
	}

	if m := skipRe().FindStringSubmatchIndex(text); m != nil {
		a.Skipped = true
		whole := text[m[0]:m[1]]
		if r := reasonAttrRe().FindStringSubmatch(whole); r != nil {
			a.SkipWhy = clean(r[1], true)
		}
		if c := tagRes()["skip"].close.FindStringIndex(text[m[1]:]); c != nil && !strings.HasSuffix(whole, "/>") {
			inner := text[m[1] : m[1]+c[0]]
			whole = text[m[0] : m[1]+c[1]]
			if a.SkipWhy == "" {
				a.SkipWhy = clean(inner, true)
			}
		}
		rest = strings.Replace(rest, whole, "", 1)
	}

	if len(blocks) == 0 && len(sums) == 0 && !a.Skipped {
		if strings.TrimSpace(text) == "" {
			reason(ReasonEmpty)
		} else {
			reason(ReasonProseOnly)
		}
		return a
	}
	if fenceRe().MatchString(rest) {
		reason(ReasonCodeFence)
		rest = fenceRe().ReplaceAllString(rest, "")
	}
	if strings.TrimSpace(rest) != "" {
		reason(ReasonProseAround)
	}
	return a
}

// observation reads one block; ok is false when it holds nothing to keep.
func observation(blk string) (store.Observation, bool) {
	o := store.Observation{
		Type:          nearestType(field(blk, "type", true)),
		Title:         field(blk, "title", true),
		Subtitle:      field(blk, "subtitle", true),
		Narrative:     field(blk, "narrative", false),
		Facts:         list(blk, "facts", "fact"),
		Concepts:      list(blk, "concepts", "concept"),
		FilesRead:     list(blk, "files_read", "file"),
		FilesModified: list(blk, "files_modified", "file"),
	}
	if o.Title == "" {
		from := o.Subtitle
		if from == "" {
			from = firstSentence(o.Narrative)
		}
		if from == "" && len(o.Facts) > 0 {
			from = o.Facts[0]
		}
		o.Title = clip.Words(from, titleBytes)
	}
	return o, o.Title != ""
}

func summary(blk string) store.Summary {
	return store.Summary{
		Request:      field(blk, "request", false),
		Investigated: field(blk, "investigated", false),
		Learned:      field(blk, "learned", false),
		Completed:    field(blk, "completed", false),
		NextSteps:    field(blk, "next_steps", false),
		Notes:        field(blk, "notes", false),
	}
}

// typeSynonyms are what models write instead of an allowed type, by the nearest one; a
// word that starts with a key maps like the key ("features", "decisions").
var typeSynonyms = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"bug": "bugfix", "fix": "bugfix", "hotfix": "bugfix", "regression": "bugfix",
		"feat": "feature", "enhancement": "feature", "addition": "feature", "implementation": "feature",
		"refactoring": "refactor", "cleanup": "refactor", "restructur": "refactor", "rename": "refactor",
		"discover": "discovery", "learning": "discovery", "insight": "discovery", "finding": "discovery",
		"investigat": "discovery", "research": "discovery", "observation": "discovery", "note": "discovery", "info": "discovery",
		"decid": "decision", "choice": "decision", "design": "decision", "architecture": "decision", "tradeoff": "decision",
		"config": "change", "dependenc": "change", "update": "change", "chore": "change", "doc": "change",
		"test": "change", "modif": "change", "upgrade": "change",
	}
})

// nearestType is typ when it is allowed, else the allowed type nearest to it, else change.
func nearestType(typ string) string {
	typ = strings.ToLower(typ)
	if slices.Contains(vocab.ObservationTypes, typ) {
		return typ
	}
	word := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return r
		}
		return -1
	}, typ)
	if slices.Contains(vocab.ObservationTypes, word) {
		return word
	}
	best, bestLen := "change", 0
	for k, t := range typeSynonyms() {
		if strings.HasPrefix(word, k) && len(k) > bestLen {
			best, bestLen = t, len(k)
		}
	}
	return best
}

// titleBytes bounds a title taken from another field (the prompt asks for under 80
// characters; stored text is bounded in bytes, package clip).
const titleBytes = 80

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.IndexAny(s, ".!?"); i > 0 {
		return s[:i]
	}
	return s
}

// fieldTags are the children of an observation or summary: one of them opening ends a
// field whose closing tag is missing.
var fieldTags = []string{
	"type", "title", "subtitle", "facts", "narrative", "concepts", "files_read", "files_modified",
	"request", "investigated", "learned", "completed", "next_steps", "notes",
}

// field is the value of the first <name> element; oneLine collapses its whitespace.
func field(block, name string, oneLine bool) string {
	vals := elements(block, name, fieldTags)
	if len(vals) == 0 {
		return ""
	}
	return clean(vals[0].inner, oneLine)
}

// list is the items of <wrapper><item>…</item>…</wrapper>.
func list(block, wrapper, item string) []string {
	var out []string
	for _, w := range elements(block, wrapper, fieldTags) {
		for _, v := range elements(w.inner, item, nil) {
			if s := clean(v.inner, true); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func clean(s string, oneLine bool) string {
	s = html.UnescapeString(strings.TrimSpace(s))
	if oneLine {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// uncdata replaces every CDATA section by its content, escaped like any other value (so a
// "</title>" in it stays text), for clean to unescape.
func uncdata(s string) string {
	for {
		i := strings.Index(s, "<![CDATA[")
		if i < 0 {
			return s
		}
		body := s[i+len("<![CDATA["):]
		j := strings.Index(body, "]]>")
		end := len(s)
		if j >= 0 {
			end = i + len("<![CDATA[") + j + len("]]>")
		} else {
			j = len(body)
		}
		s = s[:i] + html.EscapeString(body[:j]) + s[end:]
	}
}

type tagRe struct{ open, close *regexp.Regexp }

// tagRes is built once, at the first Parse (not at start-up: hook mode never parses).
var tagRes = sync.OnceValue(func() map[string]tagRe {
	m := map[string]tagRe{}
	for _, t := range structuralTags {
		m[t] = tagRe{
			open:  regexp.MustCompile(`(?i)<` + t + `(?:\s[^>]*)?>`),
			close: regexp.MustCompile(`(?i)</` + t + `\s*>`),
		}
	}
	return m
})

var (
	// skipRe is an explicit skip, <skip reason="…"/> or <skip>…</skip>; <skip_summary
	// reason="…"/> is what the original claude-mem's observer writes.
	skipRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<skip(?:_summary)?(?:\s[^>]*)?/?>`) })
	reasonAttrRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)reason\s*=\s*"([^"]*)"`) })
	fenceRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)^[ \t]*```[A-Za-z]*[ \t]*$") })
)

// element is one <tag> element of a text: its inner text, where the whole element starts
// and ends, and whether its closing tag was there.
type element struct {
	inner      string
	start, end int
	closed     bool
}

// elements returns every <tag> element of s, in order. An element ends at its closing tag;
// without one, where the next <tag> or one of stops opens, or at the end.
func elements(s, tag string, stops []string) []element {
	re := tagRes()[tag]
	opens := re.open.FindAllStringIndex(s, -1)
	var out []element
	for i, o := range opens {
		end := len(s)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		e := element{inner: s[o[1]:end], start: o[0], end: end}
		if c := re.close.FindStringIndex(e.inner); c != nil {
			e.inner, e.end, e.closed = e.inner[:c[0]], o[1]+c[1], true
		} else {
			for _, st := range stops {
				if st == tag {
					continue
				}
				if c := tagRes()[st].open.FindStringIndex(e.inner); c != nil {
					e.inner, e.end = e.inner[:c[0]], o[1]+c[0]
				}
			}
		}
		out = append(out, e)
	}
	return out
}
