package rank

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// term is one FTS5 query term: a word, a quoted phrase's words, or a prefix. A prefix
// the index spelled out (Index.Words) is matched as those words: any of them.
type term struct {
	words  []string
	prefix bool
	any    []string
}

func (t term) fts() string {
	if len(t.any) > 0 {
		s := `"` + strings.Join(t.any, `" OR "`) + `"`
		if len(t.any) > 1 {
			s = "(" + s + ")"
		}
		return s
	}
	s := `"` + strings.Join(t.words, " ") + `"`
	if t.prefix {
		s += "*"
	}
	return s
}

// query is a parsed search query: terms any of which may match, and terms none of which
// may.
type query struct {
	terms, not []term
}

// parseQuery reads a query as words, never as FTS5 syntax. Words are cut at every rune
// that is not a letter, number or combining mark, and ORed. Three forms keep their
// meaning: "a quoted phrase" matches those words in that order, -word (or -"phrase")
// excludes the records holding it, and word* matches every word it begins. Stop words
// ("the", "did", "what") are dropped unless the query holds nothing else. A word in a
// script written without spaces (Han, Kana, Hangul) is matched as a prefix, since the
// index keeps a run of such letters as one word.
func parseQuery(q string) query {
	var out query
	var plain []term
	seen := map[string]bool{}
	add := func(t term, neg bool) {
		key := strings.ToLower(t.fts())
		if len(t.words) == 0 || seen[key] || len(out.terms)+len(plain)+len(out.not) >= maxTerms {
			return
		}
		seen[key] = true
		switch {
		case neg:
			out.not = append(out.not, t)
		case len(t.words) == 1 && !t.prefix:
			plain = append(plain, t)
		default:
			out.terms = append(out.terms, t)
		}
	}
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		neg := false
		if r == '-' && (i == 0 || isSpaceBefore(q, i)) && i+n < len(q) {
			next, _ := utf8.DecodeRuneInString(q[i+n:])
			if next == '"' || isWordRune(next) {
				neg = true
				i += n
				r, n = utf8.DecodeRuneInString(q[i:])
			}
		}
		switch {
		case r == '"':
			end := strings.IndexByte(q[i+1:], '"')
			inner := q[i+1:]
			if end >= 0 {
				inner = q[i+1 : i+1+end]
				i += end + 2
			} else {
				i = len(q)
			}
			add(term{words: searchWords(inner)}, neg)
		case isWordRune(r):
			j := i + strings.IndexFunc(q[i:], func(r rune) bool { return !isWordRune(r) })
			if j < i {
				j = len(q)
			}
			w := q[i:j]
			prefix := j < len(q) && q[j] == '*' || spaceless(w)
			add(term{words: []string{w}, prefix: prefix}, neg)
			i = j
		default:
			i += n
		}
	}
	var content []term
	for _, t := range plain {
		if !stopWords()[strings.ToLower(t.words[0])] {
			content = append(content, t)
		}
	}
	if len(content) == 0 && len(out.terms) == 0 {
		content = plain
	}
	out.terms = append(content, out.terms...)
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

func isSpaceBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) || r == '('
}

// spaceless: w holds a letter of a script written without spaces between words.
func spaceless(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
	}) >= 0
}

// searchWords cuts text into words the way the index does before stemming.
func searchWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

func joinTerms(ts []term) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.fts()
	}
	return strings.Join(s, " OR ")
}

// stopWords are English words too common to tell records apart: a query's plain words
// among them are not searched. Built at first use, as every table of the binary, since
// every hook starts it.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves what which who
whom this that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so than
too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven
isn ma mightn mustn needn shan shouldn wasn weren won wouldn`) {
		m[w] = true
	}
	return m
})
