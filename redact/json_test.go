package redact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/clip"
)

func TestCapturedJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"token after an escaped newline", `{"stdout":"ok\nghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP\n","stderr":""}`,
			`{"stdout":"ok\n[REDACTED:github]\n","stderr":""}`},
		{"untouched document keeps its spelling", `{ "b" : [1, 2.5e3, true, null], "a":"\u00e9\/<&>" }`,
			`{ "b" : [1, 2.5e3, true, null], "a":"\u00e9\/<&>" }`},
		{"no HTML escaping added", `{"cmd":"a && b <x>\tAKIAZ7Q2W3E4R5T6Y7U8"}`, `{"cmd":"a && b <x>\t[REDACTED:aws_access_key_id]"}`},
		{"secret-named key, string", `{"password":"correct horse battery staple","user":"bob"}`,
			`{"password":"[REDACTED:assignment]","user":"bob"}`},
		{"secret-named key, number", `{"db":{"PGPASSWORD":12345678}}`, `{"db":{"PGPASSWORD":"[REDACTED:assignment]"}}`},
		{"secret-named key, object", `{"credentials":{"user":"bob","n":[7,"x-y-z-w"]},"ok":true}`,
			`{"credentials":{"user":"[REDACTED:assignment]","n":["[REDACTED:assignment]","[REDACTED:assignment]"]},"ok":true}`},
		{"secret-named key, its known kind", `{"api_key":"sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"}`, `{"api_key":"[REDACTED:anthropic]"}`},
		{"secret-named key, a stand-in stays", `{"token":"${GITHUB_TOKEN}","secret":"","auth":false}`, `{"token":"${GITHUB_TOKEN}","secret":"","auth":false}`},
		{"not a secret name", `{"max_tokens":4096,"token_type":"bearer","secretName":"tls","pwd":"/home/u","oauth":"x"}`,
			`{"max_tokens":4096,"token_type":"bearer","secretName":"tls","pwd":"/home/u","oauth":"x"}`},
		{"JSON in a string", `[{"type":"text","text":"{\"access_token\": 99887766, \"note\": \"x\"}"}]`,
			`[{"type":"text","text":"{\"access_token\": \"[REDACTED:assignment]\", \"note\": \"x\"}"}]`},
		{"not JSON: text rules", `{"stdout": "DB_PASSWORD=hunter2xyz`, `{"stdout": "DB_PASSWORD=[REDACTED:assignment]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := CapturedJSON(tt.in)
			if got != tt.want {
				t.Errorf("CapturedJSON(%s) =\n %s, want\n %s", tt.in, got, tt.want)
			}
			if (n == nil) != (got == tt.in) {
				t.Errorf("counts %v for a change %v", n, got != tt.in)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Errorf("output is not JSON: %s", got)
			}
		})
	}
}

func TestSecretKey(t *testing.T) {
	for _, k := range []string{"password", "DB_PASSWORD", "passwd", "client_secret", "clientSecret", "api_key", "apiKey", "X-Api-Key",
		"access_token", "refreshToken", "token", "SessionToken", "SecretAccessKey", "aws_secret_access_key", "private_key", "privateKey",
		"DB_PASS", "MYSQL_PWD", "auth", "basic_auth", "Authorization", "proxy-authorization", "credentials", "STRIPE_KEY", "secret_key", "passphrase"} {
		if !secretKey(k) {
			t.Errorf("secretKey(%q) = false", k)
		}
	}
	for _, k := range []string{"max_tokens", "input_tokens", "token_type", "tokenizer", "secretName", "secret_name", "pwd", "PWD", "OLDPWD", "pass",
		"bypass", "oauth", "author", "AccessKeyId", "private_key_id", "sort_key", "primary_key", "public_key", "keys", "tokens", "secrets", "id"} {
		if secretKey(k) {
			t.Errorf("secretKey(%q) = true", k)
		}
	}
}

// FuzzCapturedJSON: valid JSON stays valid, and redacting again changes nothing.
func FuzzCapturedJSON(f *testing.F) {
	f.Add(`{"stdout":"a\nghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP","password":1}`)
	f.Add(`["\ud83d\ude00", "\ud800", {"x": [[]]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		out, _ := CapturedJSON(in)
		if json.Valid([]byte(in)) && !json.Valid([]byte(out)) {
			t.Fatalf("%s became %s", in, out)
		}
		if again, n := CapturedJSON(out); again != out {
			t.Fatalf("second pass %v: %s → %s", n, out, again)
		}
	})
}

// TestClipped: a field is stored as it would be were it redacted whole and then cut, for a
// field within 8 × max exactly, and for a longer one (whose middle is never read) in every
// byte around the marker; no secret of it is kept either way.
func TestClipped(t *testing.T) {
	const max = 1 << 10
	var lines []string
	for i := 0; len(strings.Join(lines, "\n")) < 200<<10; i++ {
		lines = append(lines, fmt.Sprintf("%d DB_PASSWORD=hunter2xyz%d ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0m%04d done", i, i, i%10000))
	}
	all := strings.Join(lines, "\n")
	secrets := regexp.MustCompile(`hunter2xyz\d|ghp_R8`)
	for _, n := range []int{100, 2 * max, 8 * max, 9 * max, 64 * max, len(all)} {
		text := all[:strings.LastIndexByte(all[:n], '\n')+1]
		for _, doc := range []struct {
			s    string
			json bool
		}{
			{text, false},
			{`{"stdout":` + quote(text) + `,"stderr":""}`, true},
			{`{"lines":[` + strings.Join(strings.Split(quote(text), `\n`), `","`) + `]}`, true},
		} {
			got, c := Clipped(doc.s, doc.json, max)
			whole, wc := Captured(doc.s)
			if doc.json {
				whole, wc = CapturedJSON(doc.s)
			}
			want := clip.HeadTail(whole, max)
			if secrets.MatchString(got) {
				t.Errorf("%d bytes, json %v: a secret is kept: %s", n, doc.json, got)
			}
			if len(doc.s) <= 8*max {
				if got != want || c.Total() != wc.Total() {
					t.Errorf("%d bytes, json %v: Clipped differs from redacting whole then cutting:\n got %q\nwant %q", n, doc.json, got, want)
				}
				continue
			}
			gh, gt := aroundMarker(got)
			wh, wt := aroundMarker(want)
			if gh != wh || gt != wt {
				t.Errorf("%d bytes, json %v: head or tail differs:\n got %q … %q\nwant %q … %q", n, doc.json, gh, gt, wh, wt)
			}
		}
	}
}

var marker = regexp.MustCompile(`\n…\[claude-mem: \d+ bytes omitted\]…\n`)

func aroundMarker(s string) (head, tail string) {
	loc := marker.FindStringIndex(s)
	if loc == nil {
		return s, ""
	}
	return s[:loc[0]], s[loc[1]:]
}
