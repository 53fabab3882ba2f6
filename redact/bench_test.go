package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// sample is ordinary tool output: code, JSON and log lines full of the rules' anchor words
// (token, password, secret, key, Bearer, ://) and near misses, but no credential.
const sample = `func (c *Client) refreshToken(ctx context.Context) (string, error) {
	token, err := c.store.Token(ctx, c.userID) // the password is never stored here
	if err != nil || token == "" {
		return "", fmt.Errorf("refresh token for %s: %w", c.userID, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.Get("https://api.example.com/v1/items?page=2&sort=desc")
{"session_id":"7c9e6679-7425-40de-944b-e07fc1f97b1c","usage":{"input_tokens":1234,"output_tokens":567},"secret_name":"prod/db"}
2026-11-30T10:00:00Z INFO commit 3f9a1c2e7b8d4f6a0c5e9b1d2f3a4c5e6b7d8f90 pushed to ssh://git@github.com/acme/app.git
"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR6zXVH+3tSeZ1aAQ=="
API keys go in the environment: export API_KEY=YOUR_API_KEY, password=<your-password>, task-sk-list.
`

// field16K is a 16 KiB field of sample, with the canaries spliced in when secrets is set.
func field16K(secrets bool) string {
	var b strings.Builder
	for i := 0; b.Len() < 16<<10; i++ {
		b.WriteString(sample)
		if cs := redacttest.Captured(); secrets && i%4 == 0 && i/4 < 4 {
			b.WriteString(cs[i/4*3%len(cs)].Text + "\n")
		}
	}
	return b.String()[:16<<10]
}

func BenchmarkCaptured(b *testing.B) {
	for _, bc := range []struct {
		name    string
		secrets bool
	}{{"16KiB-clean", false}, {"16KiB-4-secrets", true}} {
		s := field16K(bc.secrets)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Captured(s)
			}
		})
	}
}

func BenchmarkScrub16KiB(b *testing.B) {
	s := field16K(true)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Scrub(s, "opaque-token-1234567890")
	}
}

// TestSample16KClean keeps the benchmark honest: its clean field has nothing to redact and
// its other field has the four secrets.
func TestSample16KClean(t *testing.T) {
	if out, n := Captured(field16K(false)); n != nil {
		t.Errorf("clean field redacted %v:\n%s", n, out)
	}
	if _, n := Captured(field16K(true)); n.Total() != 4 {
		t.Errorf("field with secrets: counts %v, want 4", n)
	}
}

// BenchmarkCapturedJSON is a 16 KiB tool response (Bash's stdout with line breaks, as JSON
// spells them), the hot path of PostToolUse.
func BenchmarkCapturedJSON(b *testing.B) {
	for _, bc := range []struct {
		name    string
		secrets bool
	}{{"16KiB-clean", false}, {"16KiB-4-secrets", true}} {
		doc := `{"stdout":` + quote(field16K(bc.secrets)) + `,"stderr":"","interrupted":false,"isImage":false}`
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				CapturedJSON(doc)
			}
		})
	}
}

// BenchmarkAdversarial is redaction of text made of every rule's anchors (issue 31: linear,
// 1 MB under 100 ms), from 16 KB to 1 MB.
func BenchmarkAdversarial(b *testing.B) {
	unit := strings.Join(adversarial, " ")
	for _, n := range []int{16 << 10, 256 << 10, 1 << 20} {
		s := repeatTo(unit, n)
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Captured(s)
			}
		})
	}
}
