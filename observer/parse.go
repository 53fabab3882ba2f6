package observer

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/claude-mem/claude-mem-go/store"
)

// Parse reads the observer's answer: every <observation> block and the first <summary>. It
// is tolerant, since the answer is a model's: code fences and text around the blocks are
// ignored, a missing closing tag ends where the next element opens, tag case and whitespace
// do not matter, entities (&lt; …) are unescaped. What it cannot use is reported in
// warnings: an unknown type (stored as change), a block without a title (skipped), more than
// one summary.
func Parse(text string) (obs []store.Observation, sum *store.Summary, warnings []string) {
	warn := func(format string, a ...any) { warnings = append(warnings, fmt.Sprintf(format, a...)) }
	blocks := elements(text, "observation", []string{"summary"})
	for i, blk := range blocks {
		o := store.Observation{
			Type:          strings.ToLower(field(blk, "type", true)),
			Title:         field(blk, "title", true),
			Subtitle:      field(blk, "subtitle", true),
			Narrative:     field(blk, "narrative", false),
			Facts:         list(blk, "facts", "fact"),
			Concepts:      list(blk, "concepts", "concept"),
			FilesRead:     list(blk, "files_read", "file"),
			FilesModified: list(blk, "files_modified", "file"),
		}
		if o.Title == "" {
			warn("observation %d of %d has no title: skipped", i+1, len(blocks))
			continue
		}
		if !slices.Contains(ObservationTypes, o.Type) {
			warn("observation %q has type %q: stored as change", o.Title, o.Type)
			o.Type = "change"
		}
		obs = append(obs, o)
	}
	sums := elements(text, "summary", []string{"observation"})
	if len(sums) > 1 {
		warn("%d summaries: the first is kept", len(sums))
	}
	if len(sums) > 0 {
		blk := sums[0]
		s := store.Summary{
			Request:      field(blk, "request", false),
			Investigated: field(blk, "investigated", false),
			Learned:      field(blk, "learned", false),
			Completed:    field(blk, "completed", false),
			NextSteps:    field(blk, "next_steps", false),
			Notes:        field(blk, "notes", false),
		}
		if s == (store.Summary{}) {
			warn("the summary is empty: skipped")
		} else {
			sum = &s
		}
	}
	return obs, sum, warnings
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
	return clean(vals[0], oneLine)
}

// list is the items of <wrapper><item>…</item>…</wrapper>.
func list(block, wrapper, item string) []string {
	var out []string
	for _, w := range elements(block, wrapper, fieldTags) {
		for _, v := range elements(w, item, nil) {
			if v = clean(v, true); v != "" {
				out = append(out, v)
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

// elements returns the inner text of every <tag> element of s, in order. An element ends at
// its closing tag; without one, where the next <tag> or one of stops opens, or at the end.
func elements(s, tag string, stops []string) []string {
	re := tagRes()[tag]
	opens := re.open.FindAllStringIndex(s, -1)
	var out []string
	for i, o := range opens {
		end := len(s)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		inner := s[o[1]:end]
		if c := re.close.FindStringIndex(inner); c != nil {
			inner = inner[:c[0]]
		} else {
			for _, st := range stops {
				if st == tag {
					continue
				}
				if c := tagRes()[st].open.FindStringIndex(inner); c != nil {
					inner = inner[:c[0]]
				}
			}
		}
		out = append(out, inner)
	}
	return out
}
