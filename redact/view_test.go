package redact

import (
	"net/url"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

func canaries() []redacttest.Canary { return redacttest.Captured() }

const ghTok = "ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP"

// Issue 31: a token as a terminal shows it (SGR colour around it, grep --color splitting
// it) and percent-encoded in a URL is redacted; the escapes around it stay.
func TestTerminalAndPercentViews(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"SGR colour", "\x1b[1;32m" + ghTok + "\x1b[0m done", "\x1b[1;32m[REDACTED:github]\x1b[0m done"},
		{"grep --color splits it", "x ghp_R8sT2uV4\x1b[01;31m\x1b[KwX6yZ8\x1b[m\x1b[KaB0cD2eF4gH6iJ8kL0mN2oP\n", "x [REDACTED:github]\n"},
		{"SGR glued to a key id", "\x1b[33mAKIAZ7Q2W3E4R5T6Y7U8\x1b[0m", "\x1b[33m[REDACTED:aws_access_key_id]\x1b[0m"},
		{"OSC title before it", "\x1b]0;title\x07" + ghTok, "\x1b]0;title\x07[REDACTED:github]"},
		{"ESC spelled as JSON in text", `\u001b[1;32m` + ghTok + `\u001b[0m`, `\u001b[1;32m[REDACTED:github]\u001b[0m`},
		{"ESC spelled as in code", `\x1b[31m` + ghTok + `\033[0m`, `\x1b[31m[REDACTED:github]\033[0m`},
		{"percent-encoded assignment", "GET /cb?state=1&redirect=%2Fhome%3Faccess_token%3D" + ghTok + " HTTP/1.1", "GET /cb?state=1&redirect=%2Fhome%3Faccess_token%3D[REDACTED:github] HTTP/1.1"},
		{"percent-encoded line break", "q=hello%0A" + ghTok, "q=hello%0A[REDACTED:github]"},
		{"percent-encoded JSON", "d=%7B%22password%22%3A%22Tr0ub4dor-3x%22%7D", "d=%7B%22password%22%3A%22[REDACTED:assignment]%22%7D"},
		{"percent-encoded base64", "u=aws_secret_access_key%3DwJalrXUtnFEMI%2FK7MDENG%2BbPxRfiCYzz9Kq2Lm4N&x=1", "u=aws_secret_access_key%3D[REDACTED:aws_secret]&x=1"},
		{"no escape, no percent: unchanged", "100% done \\ ok", "100% done \\ ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Captured(tt.in)
			if got != tt.want {
				t.Errorf("Captured(%q) =\n %q, want\n %q", tt.in, got, tt.want)
			}
			if again, n2 := Captured(got); again != got || n2 != nil {
				t.Errorf("a second pass changed %q to %q (%v)", got, again, n2)
			}
			if (n == nil) != (got == tt.in) {
				t.Errorf("counts %v for a change %v", n, got != tt.in)
			}
		})
	}
}

// TestViewsInJSONAndScrub: CapturedJSON (ESC as \u001b in the JSON spelling) and Scrub take
// the same views.
func TestViewsInJSONAndScrub(t *testing.T) {
	doc := `{"stdout":"\u001b[1;32m` + ghTok + `\u001b[0m\nxoxb-123456789012-1234567890123-Ab\u001b[01;31m\u001b[KcD\u001b[m\u001b[KeFgHiJkLmNoP\n","stderr":""}`
	got, n := CapturedJSON(doc)
	if strings.Contains(got, "R8sT2uV4") || strings.Contains(got, "eFgHiJkLmNoP") || n["github"] != 1 || n["slack"] != 1 {
		t.Errorf("CapturedJSON kept a coloured token (%v): %s", n, got)
	}
	if !strings.Contains(got, `\u001b[1;32m[REDACTED:github]\u001b[0m`) {
		t.Errorf("the colour around the token is gone: %s", got)
	}
	if out := Scrub("helper: \x1b[31m" + ghTok + "\x1b[0m"); strings.Contains(out, "R8sT2uV4") {
		t.Errorf("Scrub kept a coloured token: %q", out)
	}
	if out := Scrub("GET /x?q=%26token%3D" + ghTok); strings.Contains(out, "R8sT2uV4") {
		t.Errorf("Scrub kept a percent-encoded token: %q", out)
	}
}

// TestPercentEveryCanary: every canary's line, percent-encoded as a query value is, leaves
// no piece of its secret.
func TestPercentEveryCanary(t *testing.T) {
	for _, c := range canaries() {
		enc := url.QueryEscape(c.Text)
		out, _ := Captured("https://example.com/cb?next=" + enc)
		if sec := url.QueryEscape(c.Secret); strings.Contains(out, sec) || strings.Contains(out, c.Secret) {
			t.Errorf("%s percent-encoded: secret kept in %q", c.Kind, out)
		}
	}
}

// TestEscapedEveryCanary: every canary's line in colour, and split by grep --color in its
// secret's middle, leaves no piece of its secret.
func TestEscapedEveryCanary(t *testing.T) {
	for _, c := range canaries() {
		k := len(c.Secret) / 2
		split := c.Secret[:k] + "\x1b[01;31m\x1b[K" + c.Secret[k:k+2] + "\x1b[m\x1b[K" + c.Secret[k+2:]
		for name, in := range map[string]string{
			"colour": strings.Replace(c.Text, c.Secret, "\x1b[1;32m"+c.Secret+"\x1b[0m", 1),
			"grep":   strings.Replace(c.Text, c.Secret, split, 1),
		} {
			if out, _ := Captured(in); strings.Contains(out, c.Secret[k+2:]) {
				t.Errorf("%s, %s: secret kept in %q", c.Kind, name, out)
			}
		}
	}
}
