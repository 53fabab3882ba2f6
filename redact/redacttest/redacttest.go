// Package redacttest holds a canary credential of every kind package redact knows, for
// black-box tests: whatever took them in (the database, an export, the observer's stdin, a
// log) must hold none of their Secret bytes afterwards.
package redacttest

import (
	"bytes"
	"slices"
	"strings"
)

// Canary is one credential as a tool or a user might show it.
type Canary struct {
	Kind   string // the redact kind that catches it
	Text   string // the line holding it
	Secret string // the bytes that must never be kept
}

// Captured is one canary per kind redact.Captured reports.
func Captured() []Canary { return slices.Clone(captured) }

// Diagnostic is Captured plus the shapes only redact.Scrub removes: a token as a URL's whole
// userinfo (http://TOKEN@proxy:8080) and a NAME=value whose name alone says secret.
func Diagnostic() []Canary { return append(Captured(), diagnostic...) }

// Leaks lists the canaries of cs whose Secret is in b.
func Leaks(b []byte, cs []Canary) []Canary {
	var out []Canary
	for _, c := range cs {
		if bytes.Contains(b, []byte(c.Secret)) {
			out = append(out, c)
		}
	}
	return out
}

const pemBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCanaryPemKey0\n" +
	"q8Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pA8sD4fG7hJ1kL3zX5cV9bN\n" +
	"7mQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX2cV4bN6mQ8wE0rT2yU4iO6pA8sD0fG2\n"

var captured = []Canary{
	{"gcp_private_key", `  "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqCanaryGcpKey7Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6u\n-----END PRIVATE KEY-----\n",`,
		`MIIEvgIBADANBgkqCanaryGcpKey7Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6u`},
	{"private_key", "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----", "CanaryPemKey0"},
	{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-CanaryAnthropic7Zq9xW2vB7nM4kL1pR8tY6uI3oP5aS0dF2gH4jK6lZ8xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9gAA",
		"CanaryAnthropic7Zq9xW2vB7nM4kL1pR8tY6uI3oP5aS0dF2gH4jK6lZ8xC1vB3nM5"},
	{"openai", `client = OpenAI(api_key="sk-proj-CanaryOpenAI4kT9mW2xQ7vB5nL8pR3sY6uZ1cA0dF4gH7jK2")`,
		"CanaryOpenAI4kT9mW2xQ7vB5nL8pR3sY6uZ1cA0dF4gH7jK2"},
	{"github", "remote: https://github.com/settings/tokens ghp_CanaryGitHub0a1B2c3D4e5F6g7H8i9J0kLm", "ghp_CanaryGitHub0a1B2c3D4e5F6g7H8i9J0kLm"},
	{"aws_access_key_id", "aws_access_key_id = AKIACANARY7Q2W3E4R5T", "AKIACANARY7Q2W3E4R5T"},
	{"aws_secret", "aws_secret_access_key = CanaryAwsSecret/K7MDENG+bPxRfiCY01234567", "CanaryAwsSecret/K7MDENG+bPxRfiCY01234567"},
	{"google_api_key", "https://maps.googleapis.com/maps/api/js?callback=init&v=3 AIzaSyCanaryGoogle0123456789abcdefghijk", "AIzaSyCanaryGoogle0123456789abcdefghijk"},
	{"slack", "SLACK_BOT=xoxb-123456789012-1234567890123-CanaryS1ackB0tT0ken", "CanaryS1ackB0tT0ken"},
	{"stripe", "Stripe::API.key = 'sk_live_CanaryStripe51H8xY2zQ9wE4rT6y'", "CanaryStripe51H8xY2zQ9wE4rT6y"},
	{"jwt", "id_token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjYW5hcnkiLCJpYXQiOjE3MDAwMDAwMDB9.CanaryJwtSig_4kT9mW2xQ7vB5nL8pR3sY6",
		"eyJzdWIiOiJjYW5hcnkiLCJpYXQiOjE3MDAwMDAwMDB9.CanaryJwtSig_4kT9mW2xQ7vB5nL8pR3sY6"},
	{"bearer", `curl -H "Authorization: Bearer CanaryBearer0123456789abcdefXYZ" https://api.example.com/v1/me`, "CanaryBearer0123456789abcdefXYZ"},
	{"url_userinfo", "DATABASE_URL=postgres://app:CanaryDbPass-9x7Q@db.internal:5432/app", "CanaryDbPass-9x7Q"},
	{"url_query", "GET https://api.example.com/v2/items?page=2&api_key=CanaryQueryKey0123456789 HTTP/1.1", "CanaryQueryKey0123456789"},
	{"assignment", "DB_PASSWORD=CanaryPw-7f3a9c2e", "CanaryPw-7f3a9c2e"},
	{"aws_session_token", "aws_session_token = IQoJb3JpZ2luX2VjECanarySessionTok3nQ9xW2vB7nM4kL1pR8tY6uI3oP5aS0dF2gH4jK6lZ8xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9g",
		"ECanarySessionTok3nQ9xW2vB7nM4kL1pR8tY6uI3oP5aS0dF2gH4jK6lZ8xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9g"},
	{"cli_password", "curl -fsS -u deploy:CanaryCurlPw-4kT9 https://ci.example.com/api/json", "CanaryCurlPw-4kT9"},
	// Issue 31's families. A hex secret ends in digits, so its variants stay hex.
	{"gitlab", "GITLAB_TOKEN: glpat-CanaryGitLab7Q2w3E4r", "glpat-CanaryGitLab7Q2w3E4r"},
	{"npm", "//registry.npmjs.org/:_authToken=npm_CanaryNpm0a1B2c3D4e5F6g7H8i9J0kLm1N2o", "npm_CanaryNpm0a1B2c3D4e5F6g7H8i9J0kLm1N2o"},
	{"sendgrid", "SENDGRID_API_KEY=SG.CanarySendGrid0a1B2c3D.CanarySendGridSecret0a1B2c3D4e5F6g7H8i9J0kL", "CanarySendGridSecret0a1B2c3D4e5F6g7H8i9J0kL"},
	{"huggingface", "HF_TOKEN=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", "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"},
	{"digitalocean", "export DIGITALOCEAN_TOKEN=dop_v1_ca0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d71234", "ca0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d71234"},
	{"shopify", "X-Shopify-Access-Token: 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", "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"},
	{"pypi", "password = pypi-AgEIcHlwaS5vcmcCanaryPyPI0a1B2c3D4e5F6g7H8i9J0kLm1N2oP3qR4sT5uV6wX7yZ8", "CanaryPyPI0a1B2c3D4e5F6g7H8i9J0kLm1N2oP3qR4sT5uV6wX7yZ8"},
	{"twilio", "TWILIO_API_KEY=SKca0a1b2c3d4e5f60718293a4b5c61234", "SKca0a1b2c3d4e5f60718293a4b5c61234"},
	{"mailgun", "curl -s --user api:key-ca0a1b2c3d4e5f60718293a4b5c61234 https://api.mailgun.net/v3", "key-ca0a1b2c3d4e5f60718293a4b5c61234"},
	{"atlassian", "JIRA_API_TOKEN=ATATT3CanaryAtlassian" + strings.Repeat("Qm7Zp2Lx9Vb4Nc8Kd1Jf", 9) + "=A1B2C3D4",
		"CanaryAtlassianQm7Zp2Lx9Vb4Nc8Kd1JfQm7Zp2Lx9Vb4Nc8Kd1Jf"},
	{"linear", "LINEAR_API_KEY=lin_api_CanaryLinear0a1B2c3D4e5F6g7H8i9J0kLm1N2o", "lin_api_CanaryLinear0a1B2c3D4e5F6g7H8i9J0kLm1N2o"},
	{"doppler", "DOPPLER_TOKEN=dp.pt.CanaryDoppler0a1B2c3D4e5F6g7H8i9J0kLm1N2oP3qR", "CanaryDoppler0a1B2c3D4e5F6g7H8i9J0kLm1N2oP3qR"},
	{"postman", "x-api-key: PMAK-ca0a1b2c3d4e5f60718293a4-b5c6d7e8f90a1b2c3d4e5f60718293a41234", "PMAK-ca0a1b2c3d4e5f60718293a4-b5c6d7e8f90a1b2c3d4e5f60718293a41234"},
	{"age", "# public key: age1qqq\nAGE-SECRET-KEY-1CANARYAGEQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3J1234", "AGE-SECRET-KEY-1CANARYAGEQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3J1234"},
	{"databricks", "DATABRICKS_TOKEN=dapica0a1b2c3d4e5f60718293a4b5c61234", "dapica0a1b2c3d4e5f60718293a4b5c61234"},
}

// Separator is what may stand next to a secret, on each side of it: Before ends with it
// and After begins with it, and each holds an x beyond it, so cells can be put one after
// another and each secret still has its separator next to it.
type Separator struct{ Name, Before, After string }

// Separators are the separators of issue 21's matrix: in the text as it reads (a line break,
// a quote) and as JSON spells it inside text that holds JSON (\n, \u000a).
var Separators = []Separator{
	{"start/end of text", "", ""},
	{"space", "x ", " x"},
	{"newline", "x\n", "\nx"},
	{"CRLF", "x\r\n", "\r\nx"},
	{"tab", "x\t", "\tx"},
	{`"`, `x"`, `"x`},
	{"'", "x'", "'x"},
	{"=", "x=", "=x"},
	{":", "x:", ":x"},
	{"(", "x(", ")x"},
	{",", "x,", ",x"},
	{`\`, `x\`, `\x`},
	{"NUL", "x\x00", "\x00x"},
	{`literal \n`, `x\n`, `\nx`},
	{`literal \r\n`, `x\r\n`, `\r\nx`},
	{`literal \t`, `x\t`, `\tx`},
	{`literal \u000a`, `x\u000a`, `\u000ax`},
	{`literal \u0000`, `x\u0000`, `\u0000x`},
	{"in a URL", "see https://example.com/p/", "/q?page=2 for it"},
	{"in base64", "QUJDREVGR0hJSktM+", "+TU5PUFFSU1RVVldY=="},
	// Issue 31: coloured output, as Claude Code passes it through (the m of SGR glues onto
	// what follows), and as JSON spells it.
	{"in SGR colour", "x \x1b[1;32m", "\x1b[0m x"},
	{`in SGR colour, \u001b`, `x \u001b[1;32m`, `\u001b[0m x`},
}

// Variant is c with a secret of its own, numbered n: the secret's last four letters and
// digits become n's, each of its class, so a leak names the cell it came from.
func (c Canary) Variant(n int) Canary {
	b := []byte(c.Secret)
	for i, left := len(b)-1, 4; i >= 0 && left > 0; i-- {
		switch ch := b[i]; {
		case ch >= '0' && ch <= '9':
			b[i], n = byte('0'+n%10), n/10
		case ch >= 'a' && ch <= 'z':
			b[i], n = byte('a'+n%26), n/26
		case ch >= 'A' && ch <= 'Z':
			b[i], n = byte('A'+n%26), n/26
		default:
			continue
		}
		left--
	}
	v := string(b)
	return Canary{Kind: c.Kind, Text: strings.Replace(c.Text, c.Secret, v, 1), Secret: v}
}

var diagnostic = []Canary{
	{"url_userinfo", "HTTPS_PROXY=http://CanaryProxyToken@proxy:8080", "CanaryProxyToken"},
	{"env", "MY_GATEWAY_KEY=CanaryGatewayValue", "CanaryGatewayValue"},
}

// Adversarial are units that, repeated, make a text of one rule's anchors (with the least
// filler that keeps each a fresh attempt): issue 31 found `eyJ-` repeated cost 0.1 s per
// KB. Redaction must be linear in them.
var Adversarial = []string{
	"eyJ-", "eyJa.", "sk-", "sk-a", "sk-ant-", "gh", "ghp_", "github_pat_", "AKIA", "ASIA", "AKIAABCDEFGHIJKLMNOP\t",
	"IQoJb3JpZ2lu", "AIza", "xox", "xoxb-", "sk_live_", "rk_live_", "authorization: ", "Authorization=Bearer ",
	"bearer ", "Bearer a", "-u ", "-u a:", "--user=", "mysql -p", "mysql ", "sshpass ", "://", "://a", "://a:b",
	"?a=", "?token=", "&key=", "password=", "password: ", "token=", "_KEY=", "secret=", "api_key=",
	"-----BEGIN", "-----BEGIN PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----!", "LS0tLS1CRUdJTi",
	`"private_key"`, `"private_key": "-----BEGIN`, "secret_access_key=", "KEY=", "TOKEN=", "%3D", "%", "%2",
	"\x1b[1m", "\x1b[", "\x1b]0;", "\x1b", `\u001b[1m`, `\u001b`, "\\n", "\\u000a", "-----END PRIVATE KEY-----",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCanaryPemKey0\n",
}

// Repeat is unit repeated to n bytes.
func Repeat(unit string, n int) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }

// AdversarialText is n bytes of every unit of Adversarial in turn, each repeated.
func AdversarialText(n int) string {
	var b strings.Builder
	per := n/len(Adversarial) + 1
	for _, a := range Adversarial {
		b.WriteString(Repeat(a, per))
	}
	return b.String()[:n]
}
