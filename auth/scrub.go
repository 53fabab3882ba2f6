package auth

import (
	"regexp"
	"strings"
)

// tokenRe matches Anthropic credential shapes (sk-ant-api03-…, sk-ant-oat01-…) wherever
// they stand in free text: a child's stderr, an apiKeyHelper command line.
var tokenRe = regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{8,}`)

// Scrub redacts, in text that is about to be logged or shown, every known secret and every
// substring shaped like an Anthropic credential.
func Scrub(text string, known ...Secret) string {
	for _, k := range known {
		if len(k) >= 8 { // a short value would match ordinary words
			text = strings.ReplaceAll(text, string(k), k.String())
		}
	}
	return tokenRe.ReplaceAllStringFunc(text, func(m string) string { return Secret(m).String() })
}
