package redact

import (
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

func TestScrub(t *testing.T) {
	const opaque = "opaque-token-1234567890"
	tests := []struct {
		name, in string
		known    []string
		want     string
	}{
		{"known value", "helper printed " + opaque + " and exited 1", []string{opaque}, "helper printed opaq…(23) and exited 1"},
		{"known too short to replace", "token abc1234 seen", []string{"abc1234"}, "token abc1234 seen"},
		{"longest known first", "key=abcdefgh12345678", []string{"abcdefgh12", "abcdefgh12345678"}, "key=abcd…(16)"},
		{"published prefix keeps the short form", "invalid key sk-ant-api03-SCRUBSECRETSCRUBSECRET rejected", nil, "invalid key sk-a…(35) rejected"},
		{"username-only proxy token (issue 12)", "HTTPS_PROXY=http://TOKEN@proxy:8080", nil, "HTTPS_PROXY=http://[REDACTED:url_userinfo]@proxy:8080"},
		{"user and password", "proxy http://user:password@proxy:8080 refused", nil, "proxy http://[REDACTED:url_userinfo]@proxy:8080 refused"},
		{"secret-named query value (issue 12)", "ANTHROPIC_BASE_URL=https://gw/v1?api_key=gw-0123456789", nil, "ANTHROPIC_BASE_URL=https://gw/v1?api_key=[REDACTED:url_query]"},
		{"secret-named env var (issue 12)", "pass env MY_GATEWAY_KEY=abc", nil, "pass env MY_GATEWAY_KEY=[REDACTED:env]"},
		{"secret-named env var in JSON", `{"MY_GATEWAY_KEY": "gateway-value"}`, nil, `{"MY_GATEWAY_KEY": "[REDACTED:env]"}`},
		{"credential variable keeps its short form", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-AbCdEfGhIjKlMnOpQrSt", nil, "CLAUDE_CODE_OAUTH_TOKEN=sk-a…(33)"},
		{"auth source is a setting, not a secret", "settings error — CLAUDE_MEM_AUTH_SOURCE=keychian: unknown source", nil, "settings error — CLAUDE_MEM_AUTH_SOURCE=keychian: unknown source"},
		{"redaction's switch is a setting, not a secret", "settings error — CLAUDE_MEM_REDACT_SECRETS=nah: not a boolean", nil, "settings error — CLAUDE_MEM_REDACT_SECRETS=nah: not a boolean"},
		{"notice", "claude-mem: auth failed — apiKey: ANTHROPIC_API_KEY rejected (401); observations paused, nothing lost", nil, "claude-mem: auth failed — apiKey: ANTHROPIC_API_KEY rejected (401); observations paused, nothing lost"},
		{"expiry reason", "credentials.json token expired 2026-11-29 10:00; open Claude Code to refresh your login", nil, "credentials.json token expired 2026-11-29 10:00; open Claude Code to refresh your login"},
		{"plain url", "ANTHROPIC_BASE_URL=http://127.0.0.1:8080/v1", nil, "ANTHROPIC_BASE_URL=http://127.0.0.1:8080/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scrub(tt.in, tt.known...); got != tt.want {
				t.Errorf("Scrub(%q) =\n %q, want\n %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestScrubEnv(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"MY_GATEWAY_KEY", "gw-secret-value", "gw-s…(15)"},
		{"github_token", "abc", "…(3)"},
		{"DB_PASSWD", "hunter2xyz", "hunt…(10)"},
		{"X_AUTH", "", ""},
		{"AWS_CREDENTIAL_FILE", "/home/u/.aws/c", "/hom…(14)"},
		{"HTTPS_PROXY", "http://TOKEN@proxy:8080", "http://[REDACTED:url_userinfo]@proxy:8080"},
		{"CLAUDE_MEM_AUTH_SOURCE", "keychain", "keychain"},
		{"CLAUDE_MEM_REDACT_SECRETS", "false", "false"},
		{"PATH", "/usr/bin:/bin", "/usr/bin:/bin"},
	}
	for _, tt := range tests {
		if got := ScrubEnv(tt.name, tt.value); got != tt.want {
			t.Errorf("ScrubEnv(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

func TestShort(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abcdefgh", "…(8)"}, // a prefix would reveal half of it
		{"abcdefghi", "abcd…(9)"},
		{"ключ-секрет-1", "ключ…(13)"}, // characters, not bytes
	}
	for _, tt := range tests {
		if got := Short(tt.in); got != tt.want {
			t.Errorf("Short(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanaries(t *testing.T) {
	for _, c := range redacttest.Captured() {
		out, n := Captured(c.Text)
		if len(redacttest.Leaks([]byte(out), []redacttest.Canary{c})) > 0 || n[c.Kind] == 0 {
			t.Errorf("Captured canary %s: %q (%v)", c.Kind, out, n)
		}
	}
	for _, c := range redacttest.Diagnostic() {
		if out := Scrub(c.Text); strings.Contains(out, c.Secret) {
			t.Errorf("Scrub canary %s: %q", c.Kind, out)
		}
	}
	var all strings.Builder
	for _, c := range redacttest.Diagnostic() {
		all.WriteString(c.Text + "\n")
	}
	if out := Scrub(all.String()); len(redacttest.Leaks([]byte(out), redacttest.Diagnostic())) > 0 {
		t.Errorf("Scrub of every canary at once leaks: %s", out)
	}
}

func TestCounts(t *testing.T) {
	var c Counts
	c.Add(nil)
	if c != nil || c.Total() != 0 || c.String() != "" {
		t.Fatalf("empty Counts: %v", c)
	}
	c.Add(Counts{"jwt": 1, "anthropic": 2})
	c.Add(Counts{"jwt": 1})
	if got, want := c.String(), "anthropic=2 jwt=2"; got != want {
		t.Errorf("String() = %q, want %q (table order)", got, want)
	}
	if c.Total() != 4 {
		t.Errorf("Total() = %d", c.Total())
	}
	_, n := Captured("a=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt b=AKIAZ7Q2W3E4R5T6Y7U8 c=sk-ant-api03-ZyXwVuTsRqPoNmLkJiHg")
	if got, want := n.String(), "anthropic=2 aws_access_key_id=1"; got != want {
		t.Errorf("Captured counts %q, want %q", got, want)
	}
}
