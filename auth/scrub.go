package auth

import "github.com/claude-mem/claude-mem-go/redact"

// Scrub redacts, in text that is about to be logged or shown, every known secret and every
// credential shape redact knows (redact.Scrub).
func Scrub(text string, known ...Secret) string {
	ks := make([]string, len(known))
	for i, k := range known {
		ks[i] = string(k)
	}
	return redact.Scrub(text, ks...)
}
