package viewer

import (
	"html/template"
	"strings"
	"unicode"
)

// queryWords are the query's words, folded, cut the way store.Search cuts them.
func queryWords(q string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, notWordRune) {
		words[strings.ToLower(w)] = true
	}
	return words
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
}

// highlight escapes text, then wraps each whole word that is one of words in <mark>. The
// stored text is never trusted as markup: only the <mark> tags added here are.
func highlight(text string, words map[string]bool) template.HTML {
	var b strings.Builder
	for len(text) > 0 {
		// Split off the run up to the next word, then the word.
		i := strings.IndexFunc(text, func(r rune) bool { return !notWordRune(r) })
		if i < 0 {
			i = len(text)
		}
		b.WriteString(template.HTMLEscapeString(text[:i]))
		text = text[i:]
		j := strings.IndexFunc(text, notWordRune)
		if j < 0 {
			j = len(text)
		}
		w := text[:j]
		if words[strings.ToLower(w)] {
			b.WriteString("<mark>" + template.HTMLEscapeString(w) + "</mark>")
		} else {
			b.WriteString(template.HTMLEscapeString(w))
		}
		text = text[j:]
	}
	return template.HTML(b.String())
}
