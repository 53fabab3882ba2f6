package rank

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// Snippet marks: a hit's snippet is plain text with where its matched words are
// (Hit.Marks); each renderer marks them its own way, or not at all.
const (
	snippetCut   = "…"
	snippetWords = 16
	markOpen     = "\x02"
	markClose    = "\x03"
)

// Span is a byte range [Start, End) of a hit's Snippet: a word the query matched.
type Span struct{ Start, End int }

// snippetsOf fills each hit's Snippet and Marks: up to snippetWords words of its field that
// holds the most of the query's words, around where they are densest, or the start of its
// body when none does (a hit found by its context). It reads the fields at once and picks
// the words in Go: FTS5's snippet(), a statement per hit that tokenized every field again,
// was a sixth of a whole `hook search`. A word is marked when it has a query word's stem
// (sameStem), as the porter tokenizer matched it.
func snippetsOf(ctx context.Context, idx Index, hits []Hit, terms []term) error {
	var words []string
	var prefixes []bool
	for _, t := range terms {
		for _, w := range t.words {
			words, prefixes = append(words, strings.ToLower(w)), append(prefixes, t.prefix)
		}
	}
	refs := make([]vocab.Ref, len(hits))
	for i, h := range hits {
		refs[i] = vocab.Ref{Kind: h.Kind, ID: h.ID}
	}
	texts, err := idx.Texts(ctx, refs)
	if err != nil {
		return err
	}
	for i, r := range refs {
		if t, ok := texts[r]; ok {
			hits[i].Snippet, hits[i].Marks = snippetOf(t, words, prefixes)
		}
	}
	return nil
}

// snippetOf is the snippet of a record's text for the query's words.
func snippetOf(t Text, words []string, prefixes []bool) (string, []Span) {
	fields := t.Columns
	best, bestN := -1, 0
	split := make([][]string, len(fields))
	for i, f := range fields {
		split[i] = strings.Fields(f)
		n := 0
		for _, tok := range split[i] {
			if markedToken(tok, words, prefixes) != tok {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return unmark(leadWords(fields[t.Body], snippetWords))
	}
	toks := split[best]
	start := 0
	if len(toks) > snippetWords {
		hit := make([]int, len(toks)+1) // hit[i]: matched tokens before i
		for i, tok := range toks {
			hit[i+1] = hit[i]
			if markedToken(tok, words, prefixes) != tok {
				hit[i+1]++
			}
		}
		most := -1
		for i := 0; i+snippetWords <= len(toks); i++ {
			if n := hit[i+snippetWords] - hit[i]; n > most {
				start, most = i, n
			}
		}
	}
	end := min(start+snippetWords, len(toks))
	var b strings.Builder
	if start > 0 {
		b.WriteString(snippetCut)
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte(' ')
		}
		b.WriteString(markedToken(toks[i], words, prefixes))
	}
	if end < len(toks) {
		b.WriteString(snippetCut)
	}
	return unmark(b.String())
}

// markedToken is tok with each of its words that a query word matches between markOpen and
// markClose.
func markedToken(tok string, words []string, prefixes []bool) string {
	var b strings.Builder
	i := 0
	for i < len(tok) {
		r, n := utf8.DecodeRuneInString(tok[i:])
		if !isWordRune(r) {
			b.WriteString(tok[i : i+n])
			i += n
			continue
		}
		j := i
		for j < len(tok) {
			r, n := utf8.DecodeRuneInString(tok[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		w := tok[i:j]
		if matchesWord(strings.ToLower(w), words, prefixes) {
			b.WriteString(markOpen + w + markClose)
		} else {
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

func matchesWord(w string, words []string, prefixes []bool) bool {
	for i, q := range words {
		if prefixes[i] && strings.HasPrefix(w, q) || sameStem(w, q) {
			return true
		}
	}
	return false
}

// sameStem approximates the porter stemmer's "these two words are one": equal, or sharing
// a prefix of at least four letters that leaves at most three of the query word (fail,
// failing, failed; configure, configuration). It only decides which words a snippet marks.
func sameStem(w, q string) bool {
	if w == q {
		return true
	}
	if len(q) < 4 || len(w) < 4 {
		return false
	}
	p := 0
	for p < len(w) && p < len(q) && w[p] == q[p] {
		p++
	}
	return p >= 4 && p >= len(q)-3
}

// leadWords is text's first n words, with the cut mark when there were more.
func leadWords(text string, n int) string {
	f := strings.Fields(text)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + snippetCut
}

// unmark takes snippet()'s marks out of s and returns where they were. A snippet is one
// line: every run of spaces and line breaks becomes one space.
func unmark(s string) (string, []Span) {
	var b strings.Builder
	var marks []Span
	start, space := -1, false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case string(r) == markOpen:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			start = b.Len()
		case string(r) == markClose:
			if start >= 0 {
				marks = append(marks, Span{start, b.Len()})
				start = -1
			}
		case unicode.IsSpace(r):
			space = true
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}

// Marked is s with each of marks (sorted, not overlapping) wrapped in open and close, and
// every part of s passed through esc (nil: as it is): how a renderer that shows marks
// (a terminal, HTML) writes a hit's Snippet.
func Marked(s string, marks []Span, open, close string, esc func(string) string) string {
	if esc == nil {
		esc = func(s string) string { return s }
	}
	var b strings.Builder
	last := 0
	for _, m := range marks {
		if m.Start < last || m.End > len(s) || m.Start > m.End {
			continue
		}
		b.WriteString(esc(s[last:m.Start]) + open + esc(s[m.Start:m.End]) + close)
		last = m.End
	}
	b.WriteString(esc(s[last:]))
	return b.String()
}
