package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// scope says which of the two jobs a rule serves.
type scope uint8

const (
	capture scope = 1 << iota // captured content (Captured)
	diag                      // diagnostics (Scrub)
	both    = capture | diag
)

// rule is one credential shape. Every match begins with one of the rule's anchors (literals):
// one pass over a text finds every rule's anchors, and each anchor found costs one regexp
// run anchored there (^), which fails within a few bytes on ordinary text.
type rule struct {
	kind    string
	scope   scope
	anchors []string // literals every match begins with
	fold    bool     // anchors are lower case and searched case-insensitively
	bound   bool     // an anchor counts only at the start of a word (ghp_…, not xghp_…)
	// sep, when set, is a cheap test before the regexp, for a name and its separator: past
	// the anchor's word (letters, digits, _ and -), a quote and blanks, one of these
	// bytes comes next.
	sep   string
	fwd   int  // the longest match, in bytes
	lines bool // a match may span lines (else it ends at the line's end)
	// body, when set, is the class of the rule's run (its anchor's bytes among them): an
	// attempt at p that is not kept says no anchor inside the run of body bytes from p
	// begins a secret of its own (the run holds it: ghp_…, eyJ…, a command up to its end),
	// so those anchors are not tried again, and min is the least length of that run a match
	// has (shorter: no regexp runs). It keeps redaction linear (issue 31: eyJ- repeated).
	body string
	min  int
	// beyond: a match may go past the run of body bytes it begins with (else the regexp
	// reads the run and the byte after it, no further).
	beyond bool
	// vmin, for a rule with sep: the least length of the run of body bytes its value
	// begins with (shorter: no regexp runs).
	vmin int
	// until, when set, is a literal every match holds: where it does not occur within the
	// window, the regexp is not run (a PEM block's END line).
	until string
	// back, when set, extends a secret back from its start (a PEM body before its END line),
	// never before lo.
	back func(s string, at, lo int) int
	// pre, when set, is a cheaper test than re of s[p:end], which a match passes (e is where
	// the run of body bytes from p ends, p without body): -1 where it fails (re is not run,
	// as if it found none), else the end of the window re is run on, past every match's end
	// (and the byte after it), or, with tail, cut where the match's tail has begun.
	pre func(s string, p, e, end int) int
	// tail, when set, is where the match's last part, a greedy run the regexp ends with (a
	// token's class, a PEM body's lines), goes on from at, not past end: a match that
	// reaches the end of pre's window is continued by it (as the regexp would on s[p:end],
	// over every byte again).
	tail func(s string, at, end int) int
	cls  *[256]bool // body's bytes
	// re matches the shape from an anchor (it begins with ^). The secret is its first
	// capturing group that took part, or the whole match when it has none; only the
	// secret is replaced.
	// Compiled at its first use: most hooks meet no anchor of most rules, and compiling
	// the table at start-up was a tenth of a capturing hook's time.
	re func() *regexp.Regexp
	// keep spares a value v that is no secret (a placeholder, a variable, code), found at
	// site. nil: none.
	keep func(v string, at site) bool
	// public: the secret's first four characters are the kind's published prefix
	// (sk-a, ghp_, AKIA, eyJh), so diagnostics may show the short form (sk-a…(108))
	// instead of the kind label without revealing anything.
	public bool
}

// site is where a match stands, for a keep function.
type site struct {
	match string // the whole match, from the start of the word its anchor stands in
	// lineKey: only blanks (or a YAML list's "- ") come before that word on its line, and
	// only blanks after the match.
	lineKey bool
}

func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// secretName is one word of the vocabulary of names whose value is a secret.
type secretName struct {
	word string // lower case; a _ in it may also be - or left out (api_key, api-key, apiKey)
	// afterSep: the word ends a longer name after a _ or - (DB_PASS, MYSQL_PWD, basic_auth),
	// and is no secret's name alone (PWD is the working directory, pass a test count).
	afterSep bool
	// keyAlone: afterSep, and yet alone it names a secret as a JSON key (a docker
	// config's "auth").
	keyAlone bool
	// keyOnly: a JSON key only; in text the word is code (fetch's credentials: 'include')
	// or has its own rule (the Authorization header, see bearer).
	keyOnly bool
}

// secretNames is the one vocabulary of secret names: the assignment rule's keys in text
// (DB_PASSWORD=…, password: …, "api_key": "…") and the JSON keys whose value CapturedJSON
// redacts whole. A name ends in a word, optionally followed by key (SECRET_KEY, tokenKey):
// a longer name (token_type, max_tokens, secret_name) is none.
var secretNames = []secretName{
	{word: "password"}, {word: "passwd"}, {word: "passphrase"}, {word: "secret"},
	{word: "token"}, {word: "api_key"}, {word: "access_key"}, {word: "private_key"},
	{word: "pass", afterSep: true}, {word: "pwd", afterSep: true},
	{word: "auth", afterSep: true, keyAlone: true},
	{word: "credentials", keyOnly: true}, {word: "authorization", keyOnly: true},
}

// assignment is the assignment rule's view of secretNames: where a name may end (its last
// word's first part: "api" of api_key) and the name's pattern.
func assignment() (anchors []string, expr string) {
	var alts []string
	for _, n := range secretNames {
		if n.keyOnly {
			continue
		}
		first, _, _ := strings.Cut(n.word, "_")
		alt := strings.ReplaceAll(n.word, "_", "[_-]?")
		if n.afterSep {
			anchors = append(anchors, "_"+first, "-"+first)
			alt = "[_-]" + alt
		} else {
			anchors = append(anchors, first)
		}
		alts = append(alts, alt)
	}
	return anchors, "(?i:" + strings.Join(alts, "|") + ")(?i:[_-]?key)?"
}

// secretSpellings are secretNames with each word as a key may spell it: api_key, apikey,
// api-key. Built at first use, as the tables below: `hook version` pays for none.
var secretSpellings = sync.OnceValue(func() (out []secretName) {
	for _, n := range secretNames {
		for _, w := range []string{n.word, strings.ReplaceAll(n.word, "_", ""), strings.ReplaceAll(n.word, "_", "-")} {
			if m := n; !slices.ContainsFunc(out, func(o secretName) bool { return o.word == w }) {
				m.word = w
				out = append(out, m)
			}
		}
	}
	return out
})

// envKey ends an environment variable's upper-case name that says secret (STRIPE_KEY), in
// text and as a JSON key, besides secretNames.
const envKey = "_KEY"

// secretKey reports a JSON object key that names a secret (see secretNames); an upper-case
// one is an environment variable's name and also does when it ends in envKey.
func secretKey(k string) bool {
	if len(k) < 3 || len(k) > 128 {
		return false
	}
	l := strings.ToLower(k)
	if l != k && strings.ToUpper(k) == k && strings.HasSuffix(k, envKey) {
		return true
	}
	for _, trim := range []bool{false, true} {
		if trim { // a trailing key: SECRET_KEY, tokenKey
			t := strings.TrimSuffix(l, "key")
			if len(t) == len(l) {
				break
			}
			l = strings.TrimRight(t, "_-")
		}
		for _, n := range secretSpellings() {
			if !strings.HasSuffix(l, n.word) {
				continue
			}
			switch before := len(l) - len(n.word); {
			case before == 0:
				if !n.afterSep || n.keyAlone {
					return true
				}
			case !n.afterSep || l[before-1] == '_' || l[before-1] == '-':
				return true
			}
		}
	}
	return false
}

// rules is the one table of credential shapes, applied in order: specific shapes before the
// generic ones, so a key is counted under its own kind and a later rule sees only the
// [REDACTED:…] marker where it stood (no rule matches a marker).
var rules = sync.OnceValue(func() []rule {
	rs := table()
	for i := range rs {
		if rs[i].body != "" {
			rs[i].cls = classOf(rs[i].body)
		}
	}
	return rs
})

// classOf is the set of bytes of a class spelled as in a regexp's brackets: ranges a-z and
// bytes, all of them negated by a leading ^.
func classOf(spec string) *[256]bool {
	var c [256]bool
	neg := strings.HasPrefix(spec, "^")
	spec = strings.TrimPrefix(spec, "^")
	for i := 0; i < len(spec); i++ {
		lo, hi := spec[i], spec[i]
		if i+2 < len(spec) && spec[i+1] == '-' {
			hi = spec[i+2]
			i += 2
		}
		for b := int(lo); b <= int(hi); b++ {
			c[b] = true
		}
	}
	if neg {
		for b := range c {
			c[b] = !c[b]
		}
	}
	return &c
}

func table() []rule {
	assignAnchors, assignKey := assignment()
	return []rule{
		{kind: "gcp_private_key", scope: both, anchors: []string{`"private_key"`}, fwd: 16 << 10,
			// The whole JSON string value; a truncated field may have lost its closing quote.
			re: lazy(`^"private_key"\s*:\s*"(-----BEGIN[^"]*)`), pre: pemValue, tail: over(`^"`)},
		// The whole block, when its END line is in reach. A block is tried once per window:
		// a BEGIN that finds no END there says the BEGINs after it within it find none either.
		{kind: "private_key", scope: both, anchors: []string{"-----BEGIN"}, fwd: 16 << 10, lines: true,
			body: "\x00-\xff", until: "-----END",
			re: lazy(`^-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)},
		// Without its END line (a field cut in the middle) the body up to the first character
		// that cannot be base64 or a (JSON-escaped) line break.
		{kind: "private_key", scope: both, anchors: []string{"-----BEGIN"}, fwd: 16 << 10, lines: true,
			re:  lazy(`^-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s\\:,-]*`),
			pre: pemHeader, tail: func(s string, at, end int) int { return skip(s, at, end, pemClass) }},
		// Without its BEGIN line (a Read with offset and limit): the base64 lines before the
		// END line.
		{kind: "private_key", scope: both, anchors: []string{"-----END"}, fwd: 64, lines: true,
			re: lazy(`^-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`), back: pemBodyBefore},
		// Without BEGIN or END: a body whose first line is a private key's (the DER of PKCS#1,
		// PKCS#8, SEC1 or an OpenSSH key begins with a version number where a certificate or a
		// public key has a sequence), and the base64 lines after it. A body's later lines
		// alone are any base64, and stay.
		{kind: "private_key", scope: both, anchors: []string{"MII", "MIG", "MHcCAQEE", "MC4CAQAw", "b3BlbnNzaC1rZXktdjE"},
			bound: true, fwd: 16 << 10, lines: true, beyond: true, body: "A-Za-z0-9+/", min: 46,
			re: lazy(`^(?:MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)|MIG[A-Za-z0-9+/]AgE[AB]|MHcCAQEE|MC4CAQAw|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{38,}=*` +
				`(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/]{16,}=*)*`),
			pre: func(s string, p, e, end int) int { return min(e, end) }, tail: pemLines},
		// The same block base64-encoded (a kubeconfig's client-key-data, a Kubernetes secret):
		// "-----BEGIN" encodes to LS0tLS1CRUdJTi, and the header must decode to a private key's.
		{kind: "private_key", scope: both, anchors: []string{"LS0tLS1CRUdJTi"}, bound: true, fwd: 16 << 10, lines: true,
			body: "A-Za-z0-9+/=", min: 54,
			re:   lazy(`^LS0tLS1CRUdJTi[A-Za-z0-9+/=]{40,}`),
			keep: value(func(v string) bool { return !base64PrivateKey(v) })},
		{kind: "anthropic", scope: both, anchors: []string{"sk-ant-"}, fwd: 512, body: "A-Za-z0-9_-", min: 23,
			re: lazy(`^sk-ant-[A-Za-z0-9_-]{16,}`), pre: prefixed(32), tail: over("A-Za-z0-9_-"), keep: value(placeholder), public: true},
		{kind: "openai", scope: both, anchors: []string{"sk-"}, bound: true, fwd: 512, body: "A-Za-z0-9_-", min: 23,
			re: lazy(`^sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), pre: prefixed(32), tail: over("A-Za-z0-9_-"),
			keep: value(notMixed), public: true},
		{kind: "github", scope: both, anchors: []string{"gh", "github_pat_"}, bound: true, fwd: 512, body: "A-Za-z0-9_", min: 33,
			re: lazy(`^(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`), keep: value(placeholder), public: true},
		// aws … --output text prints a key's secret in a later column of its id's row
		// (CREDENTIALS, id, expiry, secret, session token), and so do the credentials.csv and
		// accessKeys.csv the console downloads (a comma's column); before the id's rule, which
		// takes the id alone.
		{kind: "aws_secret", scope: both, anchors: []string{"AKIA", "ASIA"}, bound: true, fwd: 256, beyond: true, body: "A-Z0-9", min: 20,
			re: lazy(`^(?:AKIA|ASIA)[A-Z0-9]{16}(?:[\t,][^\t,\r\n]*){0,3}?[\t,]([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), pre: secretColumn},
		{kind: "aws_access_key_id", scope: both, anchors: []string{"AKIA", "ASIA"}, bound: true, fwd: 32, body: "A-Z0-9", min: 20,
			re: lazy(`^(?:AKIA|ASIA)[A-Z0-9]{16}\b`), keep: value(placeholder), public: true},
		{kind: "aws_secret", scope: both, anchors: []string{"secret"}, fold: true, sep: ":=|", fwd: 96,
			// 40 characters exactly: the trailing class keeps a longer run from matching. A |
			// is --output table's column.
			re:  lazy(`^(?i:secret[_-]?access[_-]?key)["']?\s*[:=|]\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`),
			pre: awsSecretKey},
		// An STS session token (get-session-token, assume-role, SSO), by the prefixes its
		// encoding begins with, in whatever form aws prints it.
		{kind: "aws_session_token", scope: both, anchors: []string{"IQoJb3JpZ2lu", "FwoGZXIvYXdz", "FQoGZXIvYXdz", "AgoJb3JpZ2lu", "AQoDYXdz"},
			bound: true, fwd: 8 << 10, body: "A-Za-z0-9/+=", min: 72, re: lazy(`^[A-Za-z0-9]{8,12}[A-Za-z0-9/+=]{64,}`), public: true},
		{kind: "google_api_key", scope: both, anchors: []string{"AIza"}, bound: true, fwd: 64, body: "0-9A-Za-z_-", min: 39,
			re: lazy(`^AIza[0-9A-Za-z_-]{35}`), keep: value(placeholder), public: true},
		// Bot, user and legacy tokens (xox?-), and app-level tokens (xapp-1-…).
		{kind: "slack", scope: both, anchors: []string{"xox", "xapp-"}, bound: true, fwd: 256, body: "0-9A-Za-z-", min: 15,
			re:  lazy(`^(?:xox[abposre]-[0-9A-Za-z-]{10,}|xapp-\d-[0-9A-Za-z-]{10,})`),
			pre: prefixed(32), tail: over("0-9A-Za-z-"), keep: value(placeholder), public: true},
		{kind: "stripe", scope: both, anchors: []string{"sk_live_", "rk_live_"}, bound: true, fwd: 256, body: "0-9A-Za-z_", min: 24,
			re: lazy(`^[sr]k_live_[0-9A-Za-z]{16,}`), keep: value(placeholder), public: true},
		// Tokens known by their published prefix (the shapes of gitleaks' rules).
		{kind: "gitlab", scope: both, anchors: []string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glimt-", "glsoat-", "glffct-", "glagent-", "gloas-"},
			bound: true, fwd: 512, body: "0-9A-Za-z_.-", min: 25,
			re:   lazy(`^(?:gl(?:pat|ptt|dt|rt|ft|imt|soat|ffct|agent|oas)-|glcbt-[0-9A-Za-z]{1,5}_)[0-9A-Za-z_-]{20,}(?:\.[0-9a-z]{9})?`),
			keep: value(placeholder), public: true},
		{kind: "npm", scope: both, anchors: []string{"npm_"}, bound: true, fwd: 128, body: "A-Za-z0-9_", min: 40,
			re: lazy(`^npm_[A-Za-z0-9]{36,}`), keep: value(placeholder), public: true},
		{kind: "sendgrid", scope: both, anchors: []string{"SG."}, bound: true, fwd: 128, body: "A-Za-z0-9_.=-", min: 69,
			re: lazy(`^SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`), keep: value(placeholder)},
		{kind: "huggingface", scope: both, anchors: []string{"hf_", "api_org_"}, bound: true, fwd: 128, body: "A-Za-z0-9_", min: 37,
			re: lazy(`^(?:hf|api_org)_[A-Za-z0-9]{34,}`), keep: value(placeholder)},
		{kind: "digitalocean", scope: both, anchors: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, bound: true, fwd: 128, body: "a-z0-9_", min: 71,
			re: lazy(`^do[por]_v1_[a-f0-9]{64}`), public: true},
		{kind: "shopify", scope: both, anchors: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, bound: true, fwd: 64, body: "A-Za-z0-9_", min: 38,
			re: lazy(`^shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), public: true},
		{kind: "pypi", scope: both, anchors: []string{"pypi-AgEIcHlwaS5vcmc"}, bound: true, fwd: 2 << 10, body: "A-Za-z0-9_-", min: 70,
			re: lazy(`^pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`), public: true},
		{kind: "twilio", scope: both, anchors: []string{"SK"}, bound: true, fwd: 64, body: "A-Za-z0-9", min: 34,
			re: lazy(`^SK[0-9a-fA-F]{32}\b`), keep: value(placeholder)},
		{kind: "mailgun", scope: both, anchors: []string{"key-"}, bound: true, fwd: 64, body: "a-z0-9-", min: 36,
			re: lazy(`^key-[a-f0-9]{32}\b`), public: true},
		{kind: "atlassian", scope: both, anchors: []string{"ATATT3"}, bound: true, fwd: 512, body: "A-Za-z0-9_=-", min: 186,
			re: lazy(`^ATATT3[A-Za-z0-9_=-]{180,}`), public: true},
		{kind: "linear", scope: both, anchors: []string{"lin_api_"}, bound: true, fwd: 128, body: "A-Za-z0-9_", min: 48,
			re: lazy(`^lin_api_[A-Za-z0-9]{40,}`), keep: value(placeholder), public: true},
		{kind: "doppler", scope: both, anchors: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct."}, bound: true, fwd: 128, body: "A-Za-z0-9.", min: 46,
			re: lazy(`^dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}`), keep: value(placeholder), public: true},
		{kind: "postman", scope: both, anchors: []string{"PMAK-"}, bound: true, fwd: 128, body: "A-Za-z0-9-", min: 64,
			re: lazy(`^PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`), public: true},
		{kind: "age", scope: both, anchors: []string{"AGE-SECRET-KEY-1"}, bound: true, fwd: 128, body: "A-Z0-9-", min: 74,
			re: lazy(`^AGE-SECRET-KEY-1[0-9A-Z]{58}`), public: true},
		{kind: "databricks", scope: both, anchors: []string{"dapi"}, bound: true, fwd: 64, body: "a-z0-9-", min: 36,
			re: lazy(`^dapi[a-f0-9]{32}(?:-\d)?`), public: true},
		{kind: "jwt", scope: both, anchors: []string{"eyJ"}, bound: true, fwd: 8 << 10, beyond: true, body: "A-Za-z0-9_-", min: 13,
			re:  lazy(`^eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`),
			pre: jwtDots, tail: over("A-Za-z0-9_-"), public: true},
		{kind: "bearer", scope: both, anchors: []string{"authorization"}, fold: true, bound: true, sep: ":=", fwd: 2 << 10,
			// Any scheme of the Authorization header (Bearer, Basic, token, Digest); just the
			// credential when the scheme is named.
			re:  lazy(`^(?i)authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?([A-Za-z0-9\-._~+/]{8,}=*)`),
			pre: authValue, keep: value(placeholder)},
		{kind: "bearer", scope: both, anchors: []string{"bearer"}, fold: true, bound: true, fwd: 2 << 10,
			re:  lazy(`^(?i)bearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`),
			pre: bearerValue, keep: value(notRandom)},
		// A password on a command line: curl -u user:pass (--user), mysql -pPASS (no blank: -p
		// alone asks), sshpass -p PASS. A value of digits is a uid:gid (docker run -u 1000:1000).
		{kind: "cli_password", scope: both, anchors: []string{"-u"}, bound: true, fwd: 512, beyond: true, body: "^\t\n\r :\"'",
			re:  lazy(`^-u(?:ser)?(?:=|\s+)(?:"[^":\s]*:([^"]+)"|'[^':\s]*:([^']+)'|[^\s:"']*:([^\s"']+))`),
			pre: cliUser, keep: value(func(v string) bool { return standIn(v) || digits(v) })},
		{kind: "cli_password", scope: both, anchors: []string{"mysql", "mariadb", "sshpass"}, bound: true, fwd: 1 << 10,
			beyond: true, body: "^\n|;&", until: "-p", // a command: the first -p in it is what every anchor in it finds
			re: lazy(`^(?:(?:mysql|mariadb)[a-z-]*[^\n|;&]*?\s-p|sshpass[^\n|;&]*?\s-p\s*)` +
				`(?:\\?"([^"\\]+)\\?"|\\?'([^'\\]+)\\?'|([^\s"'\\]+))`),
			keep: value(standIn)},
		// URL userinfo: the whole of it (a username may be the token: https://TOKEN:x-oauth-basic@,
		// https://x-access-token:ghp_…@), so the URL keeps its host and stays usable. A username
		// alone is kept when it does not look generated (ssh://git@host, https://alice@host)…
		{kind: "url_userinfo", scope: both, anchors: []string{"://"}, fwd: 512,
			re: lazy(`^://([^\s/?#@"'<>\[\]]+)@[A-Za-z0-9\[]`), pre: userinfo,
			keep: value(func(v string) bool { return !strings.Contains(v, ":") && (len(v) < 16 || notRandom(v)) })},
		// … except in a diagnostic (issue 12: http://TOKEN@proxy:8080 leaked).
		{kind: "url_userinfo", scope: diag, anchors: []string{"://"}, fwd: 512,
			re: lazy(`^://([^\s/?#@"'<>\[\]]+)@[A-Za-z0-9\[]`), pre: userinfo},
		{kind: "url_query", scope: both, anchors: urlQueryAnchors(), fold: true, sep: "=", body: "^&#\t\n\r \"'<>[]\\", vmin: 1, fwd: 1 << 10,
			re:  lazy(`^[?&](?i:api[_-]?key|apikey|key|access[_-]?token|id[_-]?token|refresh[_-]?token|token|sig|signature|password|secret|client[_-]?secret|auth)=([^&#\s"'<>\[\]\\]+)`),
			pre: urlValue, tail: func(s string, at, end int) int { return skip(s, at, end, urlClass) }, keep: value(placeholder)},
		// Assignments, in env, shell, ini, JSON, YAML and code forms (see keepAssignment), also
		// inside a JSON-encoded string (\"api_key\": \"…\", DB_PASSWORD=…\n): no value holds a
		// backslash.
		{kind: "assignment", scope: both, anchors: assignAnchors, fold: true, sep: ":=", fwd: 320,
			re: lazy(`^` + assignKey + assignValue), pre: assignWindow, tail: bareValue, keep: keepAssignment},
		// An environment variable whose upper-case name ends in _KEY (STRIPE_KEY=…): the other
		// suffixes of a secret's name (_PASS, _PWD, _SECRET, _TOKEN) are secretNames'. (A
		// diagnostic's env rule takes any such name.)
		{kind: "assignment", scope: capture, anchors: []string{envKey}, sep: ":=", fwd: 320,
			re: lazy(`^` + envKey + assignValue), pre: assignWindow, tail: bareValue,
			keep: func(v string, at site) bool {
				name := at.match[:strings.Index(at.match, envKey)]
				return name == "" || strings.ToUpper(name) != name || keepAssignment(v, at)
			}},
		// Any other name that ends in key, token or secret (encryption_key, signingKey,
		// X-Token) with a value that reads as generated: 32 or more hex digits (letters and
		// digits both) or base64 characters (upper and lower case and digits).
		{kind: "assignment", scope: both, anchors: []string{"key", "token", "secret"}, fold: true, sep: ":=", fwd: 2 << 10,
			body: "A-Za-z0-9+/_-", vmin: 32,
			re:   lazy(`^(?i:key|token|secret)\\?["']?\s*[:=]\s*(?:\\?["'])?(` + keyedClass + `)`),
			keep: value(func(v string) bool { return !keyedValue(v) })},
		// Diagnostics: any NAME=value (or "NAME": "value") whose name says it holds a secret
		// (MY_GATEWAY_KEY=…), as SensitiveName does for a name on its own.
		{kind: "env", scope: diag, anchors: sensitiveParts, fwd: 2 << 10, beyond: true, body: "A-Z0-9_",
			re:  lazy(`^(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL)[A-Z0-9_]*(?:=|"\s*:\s*")([^\s"']+)`),
			pre: envValue, tail: func(s string, at, end int) int { return skip(s, at, end, wordClass) },
			keep: func(v string, at site) bool {
				return redacted(v) || !SensitiveName(at.match[:strings.IndexAny(at.match, `="`)])
			}},
	}
}

// urlQueryAnchors are the url_query rule's: ? or & and the first part of a name.
func urlQueryAnchors() []string {
	var as []string
	for _, n := range []string{"api", "key", "access", "id", "refresh", "token", "sig", "password", "secret", "client", "auth"} {
		as = append(as, "?"+n, "&"+n)
	}
	return as
}

// secretColumn is aws_secret's row rule's pre: one of the four columns after the key id's
// begins with 40 characters of a secret's class, and no more.
func secretColumn(s string, p, _, end int) int {
	i := p + 20
	for range 4 {
		if i >= end || s[i] != '\t' && s[i] != ',' {
			return -1
		}
		j := i + 1
		for j < end && (isWord(s[j]) && s[j] != '_' || s[j] == '/' || s[j] == '+') {
			j++
		}
		if j-i-1 == 40 && (j == end || s[j] != '=') {
			return end
		}
		for j < end && s[j] != '\t' && s[j] != ',' && s[j] != '\r' && s[j] != '\n' {
			j++
		}
		i = j
	}
	return -1
}

// userinfo is url_userinfo's pre: after ://, a run of userinfo's bytes and an @.
func userinfo(s string, p, _, end int) int {
	i := p + 3
	for i < end && strings.IndexByte("\t\n\v\f\r /?#@\"'<>[]", s[i]) < 0 {
		i++
	}
	if i > p+3 && i < end && s[i] == '@' {
		return min(end, i+2)
	}
	return -1
}

// keyedClass is what keyedValue takes: hex digits, or base64 (either alphabet) with its
// padding.
const keyedClass = `[A-Za-z0-9+/_-]{32,}={0,2}`

// keyedValue reports a value that reads as generated (see the rule of names ending in key,
// token or secret): 32 or more hex digits, letters and digits both, or base64 characters
// with upper and lower case and digits; not a stand-in.
func keyedValue(v string) bool {
	if len(v) < 32 || standIn(v) {
		return false
	}
	var up, low, digit, hex = false, false, false, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
		hex = hex && ('0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f')
	}
	return digit && (up || low) && (hex || up && low)
}

// keyedName reports a JSON key that ends in key, token or secret (whose value keyedValue
// tests).
func keyedName(k string) bool {
	l := strings.ToLower(k)
	return len(l) > 3 && (strings.HasSuffix(l, "key") || strings.HasSuffix(l, "token") || strings.HasSuffix(l, "secret"))
}

// pemBodyBefore is where the base64 lines before s[at:] (a PEM END line) begin, not before
// lo: whole lines of base64 (the one nearest the END line may be short), each after a line
// break as text or JSON spells it; at itself when there are none.
func pemBodyBefore(s string, at, lo int) int {
	start, j := at, at
	for first := true; ; first = false {
		k := breakBefore(s, j, lo)
		if k == j { // no line break before the END line or this line
			return start
		}
		j = k
		for k > lo && isBase64(s[k-1]) && !(k-2 >= lo && s[k-2] == '\\' && (s[k-1] == 'n' || s[k-1] == 'r')) {
			k--
		}
		if j-k < 4 || !first && j-k < 16 || k > lo && breakBefore(s, k, lo) == k {
			return start
		}
		start, j = k, k
	}
}

// breakBefore is where the line break ending just before s[j] begins (\n, \r\n, or JSON's
// \n, \r\n), not before lo; j when there is none.
func breakBefore(s string, j, lo int) int {
	k := j
	if k-1 >= lo && s[k-1] == '\n' {
		k--
		if k-1 >= lo && s[k-1] == '\r' {
			k--
		}
	} else if k-2 >= lo && s[k-2] == '\\' && s[k-1] == 'n' {
		k -= 2
		if k-2 >= lo && s[k-2] == '\\' && s[k-1] == 'r' {
			k -= 2
		}
	}
	return k
}

func isBase64(c byte) bool { return isWord(c) && c != '_' || c == '+' || c == '/' || c == '=' }

// base64PrivateKey reports base64 text whose first line decodes to a PEM private key's header.
func base64PrivateKey(v string) bool {
	head, _ := base64.StdEncoding.DecodeString(v[:min(len(v), 64)/4*4])
	line, _, _ := strings.Cut(string(head), "\n")
	return strings.HasPrefix(line, "-----BEGIN") && strings.Contains(line, "PRIVATE KEY")
}

// value makes a test of the value alone a keep function.
func value(f func(v string) bool) func(v string, _ site) bool {
	return func(v string, _ site) bool { return f(v) }
}

// redacted reports a value an earlier rule has already replaced.
func redacted(v string) bool {
	return strings.HasPrefix(v, "[REDACTED:") || strings.Contains(v, "…(")
}

// placeholderWords are values that stand for a secret in docs, templates and tests.
var placeholderWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"password": true, "passwd": true, "secret": true, "token": true, "apikey": true, "api_key": true,
		"changeme": true, "change_me": true, "change-me": true, "null": true, "nil": true, "none": true,
		"undefined": true, "true": true, "false": true, "string": true, "str": true, "bytes": true,
		"number": true, "boolean": true, "object": true, "optional": true, "required": true,
		"redacted": true, "hidden": true, "masked": true, "dummy": true, "example": true, "sample": true,
		"placeholder": true, "test": true, "testing": true, "foobar": true, "secret123": true,
		"password123": true, "hunter2": true,
	}
})

// placeholder reports a value that stands for a secret rather than being one: too short to
// be one, a variable or template reference ($X, ${X}, %s, <x>, {{ x }}), a redaction marker,
// a masked value (xxx, ***), an upper-case constant name (YOUR_API_KEY, GITHUB_TOKEN), all
// digits (max_tokens: 100000), or a word of the placeholder list or one that says so
// (your-api-key-here, example-token).
func placeholder(v string) bool {
	return len(v) < 6 || standIn(v) || digits(v)
}

func digits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v != ""
}

// standIn reports a value that only stands for a secret, whatever its length: empty, a
// reference, a marker, a mask, a constant's name or a word that says so (placeholder's
// list, or a word holding your, example…); text with blanks only when it is one template
// ({{ .Values.token }}, <your token>). It is what a value under a name that says secret may
// be and stay.
func standIn(v string) bool {
	if hasByte(v, " \t\r\n") { // text: a stand-in only when it is one template
		return !hasByte(v, "\r\n") &&
			(strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}") || v[0] == '<' && v[len(v)-1] == '>')
	}
	if v == "" || strings.ContainsAny(v[:1], "$%*") || enclosed(v, "<>") || enclosed(v, "{}") || enclosed(v, "[]") {
		return true
	}
	if saysStandIn(v) {
		return true
	}
	masked, upperConst := true, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		masked = masked && strings.IndexByte("xX*.-_#", c) >= 0
		upperConst = upperConst && (c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
	}
	return masked || upperConst && strings.Contains(v, "_")
}

// assignValue is an assignment's operator and value, after the name: quoted (also as a
// JSON-encoded string spells it, \"…\") or a word.
const assignValue = `(?:\\?["'])?\s*(?::=|=>|==?|:)\s*(?:\\?"([^"\\\r\n]+)\\?"|\\?'([^'\\\r\n]+)\\?'|([^\s"'` + "`" + `,;&|<>{}\[\]\\]+))`

// keepAssignment spares an assignment's value v (match is the whole assignment) that is no
// secret. A quoted value is data: a secret unless a placeholder. An unquoted one after = (env,
// shell, ini, flags) is a secret unless a placeholder or code. An unquoted one after a colon
// (headers, prose) must also hold a digit or a symbol, so "Password: required" stays, unless
// it is a YAML line's (a lower-case key alone on its line: "  token: abcdefghij").
func keepAssignment(v string, at site) bool {
	match := at.match
	if !strings.HasSuffix(match, v) { // a closing quote follows
		return placeholder(v)
	}
	op := strings.IndexAny(match, ":=")
	if match[op] == '=' {
		return codeOrPlaceholder(v)
	}
	if at.lineKey && strings.ToLower(match[:op]) == match[:op] { // YAML: a value, not code
		return placeholder(v)
	}
	return codeOrPlaceholder(v) || onlyLetters(v)
}

// codeOrPlaceholder also spares an unquoted value that reads as code: a call (getToken()),
// a dotted path (self.token, os.environ), or a camelCase identifier (accessToken).
func codeOrPlaceholder(v string) bool {
	if placeholder(v) {
		return true
	}
	if strings.Contains(v, "(") { // a call: getpass.getpass(), std::env::var(
		return true
	}
	v = strings.TrimSuffix(v, ")") // an argument: f(token: TokenService)
	ident, dotted, camel := true, false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			dotted = true
		case c >= 'a' && c <= 'z', c == '_':
		case c >= 'A' && c <= 'Z':
			camel = camel || i > 0 && v[i-1] >= 'a' && v[i-1] <= 'z'
		default:
			ident = false
		}
	}
	return ident && (dotted || camel)
}

// hasByte is strings.ContainsAny for an ASCII set, without building the set at each call.
func hasByte(v, set string) bool {
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(set, v[i]) >= 0 {
			return true
		}
	}
	return false
}

// standInWords are what a value that says it stands for a secret holds, in lower case.
var standInWords = []string{"your", "example", "placeholder", "changeme", "xxxx", "...", "…"}

// saysStandIn reports v, lower-cased, as a word of placeholderWords or holding one of
// standInWords. A short ASCII v is lowered without strings.ToLower's copy (text dense with
// matches tests a value at each); any other the same way ToLower does.
func saysStandIn(v string) bool {
	var buf [64]byte
	ascii := len(v) <= len(buf)
	for i := 0; ascii && i < len(v); i++ {
		ascii = v[i] < utf8.RuneSelf
	}
	if !ascii {
		l := strings.ToLower(v)
		return placeholderWords()[l] || slices.ContainsFunc(standInWords, func(w string) bool { return strings.Contains(l, w) })
	}
	l := buf[:len(v)]
	for i := range l {
		l[i] = lower[v[i]]
	}
	if placeholderWords()[string(l)] {
		return true
	}
	for i, c := range l {
		if !standInFirst[c] {
			continue
		}
		for _, w := range standInWords {
			if w[0] == c && i+len(w) <= len(l) && string(l[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return false
}

// standInFirst are the first bytes of standInWords.
var standInFirst = func() (t [256]bool) {
	for _, w := range standInWords {
		t[w[0]] = true
	}
	return t
}()

// enclosed: v begins with pair[0] and ends with pair[1] (<token>, {password}).
func enclosed(v, pair string) bool {
	return len(v) >= 2 && v[0] == pair[0] && v[len(v)-1] == pair[1]
}

func onlyLetters(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// notMixed spares what lacks the upper case, lower case and digits of a generated key
// (sk-circle-bounce-delay1 is a CSS class).
func notMixed(v string) bool {
	var up, low, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	return !up || !low || !digit || placeholder(v)
}

// notRandom spares what does not look generated (a token has letters and digits: "Bearer
// authentication" is prose) and placeholders.
func notRandom(v string) bool {
	var letter, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter = letter || c|0x20 >= 'a' && c|0x20 <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	return !letter || !digit || placeholder(v)
}

// The classes the pre and tail functions below read, as their regexps spell them.
var (
	tokenClass  = classOf("A-Za-z0-9._~+/-")                   // a bearer credential
	bareClass   = classOf("^\t\n\f\r \"'`,;&|<>{}[]\\")        // an unquoted assignment's value
	wordClass   = classOf("^\t\n\f\r \"'")                     // env's value, cli_password's password
	pemClass    = classOf("A-Za-z0-9+/=\t\n\f\r \\:,-")        // a PEM body cut from its END
	base64Class = classOf("A-Za-z0-9+/")                       // a PEM body's line
	pemHeaders  = []string{"PRIVATE KEY", "PRIVATE KEY BLOCK"} // what a BEGIN line ends with
)

// bareValue is the assignment rules' tail: an unquoted value's run.
func bareValue(s string, at, end int) int { return skip(s, at, end, bareClass) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// skip is where the run of class bytes from s[i] ends, not past end.
func skip(s string, i, end int, class *[256]bool) int {
	for i < end && class[s[i]] {
		i++
	}
	return i
}

func skipSpace(s string, i, end int) int {
	for i < end && isSpace(s[i]) {
		i++
	}
	return i
}

// over is a tail: the run of class bytes (as spec spells them, see classOf).
func over(spec string) func(s string, at, end int) int {
	class := classOf(spec)
	return func(s string, at, end int) int { return skip(s, at, end, class) }
}

// prefixed is a pre for a token of a published prefix and a class's run (its tail): the
// window holds n bytes, the prefix and the run's least length.
func prefixed(n int) func(s string, p, _, end int) int {
	return func(s string, p, _, end int) int { return min(end, p+n) }
}

// jwtDots is jwt's pre: the header (the run from the anchor) ends in a dot, and the payload
// of 10 or more in another; the window ends there, before the signature (the tail).
func jwtDots(s string, p, e, end int) int {
	if e >= end || s[e] != '.' {
		return -1
	}
	j := e + 1
	for j < end && (isWord(s[j]) || s[j] == '-') {
		j++
	}
	if j-e-1 < 10 || j >= end || s[j] != '.' {
		return -1
	}
	return j + 1
}

// bearerValue is the bearer rule's pre: blanks after the word and a credential of 8 or
// more.
func bearerValue(s string, p, _, end int) int {
	i := p + len("bearer")
	j := skipSpace(s, i, end)
	k := skip(s, j, end, tokenClass)
	if j == i || k-j < 8 {
		return -1
	}
	for k < end && s[k] == '=' {
		k++
	}
	return min(end, k+1)
}

// authValue is the Authorization rule's pre: a quote, blanks, : or =, blanks and a quote,
// then a credential of 8 or more, alone or after a scheme and blanks.
func authValue(s string, p, _, end int) int {
	i := p + len("authorization")
	if i < end && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	if i = skipSpace(s, i, end); i >= end || s[i] != ':' && s[i] != '=' {
		return -1
	}
	if i = skipSpace(s, i+1, end); i < end && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	k := skip(s, i, end, tokenClass)
	long := k-i >= 8
	if j := skipSpace(s, k, end); j > k { // a scheme's blanks, and the credential
		if l := skip(s, j, end, tokenClass); l-j >= 8 {
			long, k = true, l
		}
	}
	if !long {
		return -1
	}
	for k < end && s[k] == '=' {
		k++
	}
	return min(end, k+1)
}

// cliUser is cli_password's pre for -u: -u or -user, = or blanks, then a value with a colon
// in it (user:pass, "user:pass", 'user:pass'); the window ends with it.
func cliUser(s string, p, _, end int) int {
	i := p + len("-u")
	if i > end {
		return -1
	}
	if strings.HasPrefix(s[i:end], "ser") {
		i += len("ser")
	}
	if i < end && s[i] == '=' {
		i++
	} else if j := skipSpace(s, i, end); j > i {
		i = j
	} else {
		return -1
	}
	if i >= end {
		return -1
	}
	if q := s[i]; q == '"' || q == '\'' {
		j := i + 1
		for j < end && s[j] != q && s[j] != ':' && !isSpace(s[j]) {
			j++
		}
		if j >= end || s[j] != ':' {
			return -1
		}
		if k := strings.IndexByte(s[j+1:end], q); k >= 1 {
			return j + k + 2
		}
		return -1
	}
	j := i
	for j < end && s[j] != ':' && wordClass[s[j]] {
		j++
	}
	if j >= end || s[j] != ':' {
		return -1
	}
	if k := skip(s, j+1, end, wordClass); k > j+1 {
		return min(end, k+1)
	}
	return -1
}

// pemValue is gcp_private_key's pre: blanks, a colon, blanks and a quote before -----BEGIN;
// the window ends with it, before the tail.
func pemValue(s string, p, _, end int) int {
	i := skipSpace(s, p+len(`"private_key"`), end)
	if i >= end || s[i] != ':' {
		return -1
	}
	if i = skipSpace(s, i+1, end); i >= end || s[i] != '"' || !strings.HasPrefix(s[i+1:end], "-----BEGIN") {
		return -1
	}
	return i + 1 + len("-----BEGIN")
}

// pemHeader is the pre of a PEM block cut from its END: a BEGIN line of a private key's
// (the letters, digits and blanks after BEGIN end in one of pemHeaders, and -----
// follows); the window ends with it, before the body (the tail).
func pemHeader(s string, p, _, end int) int {
	i := p + len("-----BEGIN")
	j := i
	for j < end && ('A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9' || s[j] == ' ') {
		j++
	}
	if !slices.ContainsFunc(pemHeaders, func(h string) bool { return strings.HasSuffix(s[i:j], h) }) ||
		!strings.HasPrefix(s[j:end], "-----") {
		return -1
	}
	return j + len("-----")
}

// pemLines is the tail of a PEM body found without BEGIN or END: its first line's padding,
// then each line break and a line of 16 or more, as the rule's regexp spells them (its
// \\r?\\n reads \r\n or \\n).
func pemLines(s string, at, end int) int {
	for {
		for at < end && s[at] == '=' {
			at++
		}
		n := 0
		for _, br := range []string{"\r\n", "\n", `\r\n`, `\\n`} {
			if strings.HasPrefix(s[at:end], br) {
				n = len(br)
				break
			}
		}
		l := skip(s, at+n, end, base64Class)
		if n == 0 || l-at-n < 16 {
			return at
		}
		at = l
	}
}

// envValue is the diagnostic env rule's pre: the name (the run from the anchor) ends in =
// or in a quote, a colon and a quote (blanks around it), and a value follows; the window
// ends with its first byte, before the tail.
func envValue(s string, p, e, end int) int {
	if e >= end || s[e] != '=' && s[e] != '"' {
		return -1
	}
	v := e + 1
	if s[e] == '"' {
		if v = skipSpace(s, v, end); v >= end || s[v] != ':' {
			return -1
		}
		if v = skipSpace(s, v+1, end); v >= end || s[v] != '"' {
			return -1
		}
		v++
	}
	if v >= end || !wordClass[s[v]] {
		return -1
	}
	return v + 1
}

// urlValue is url_query's pre: the name is followed by = and a value; the window ends with
// its first byte, before the tail.
func urlValue(s string, p, _, end int) int {
	i := p + 1
	for i < end && (isWord(s[i]) || s[i] == '-') {
		i++
	}
	if i+1 >= end || s[i] != '=' || !urlClass[s[i+1]] {
		return -1
	}
	return i + 2
}

var urlClass = classOf("^&#\t\n\f\r \"'<>[]\\")

// awsSecretKey is aws_secret's pre for secret_access_key: the name's other words, a quote,
// blanks, the separator, blanks and a quote, then 40 characters of the secret's class and
// no 41st; the window ends past them and the byte after them.
func awsSecretKey(s string, p, _, end int) int {
	i := p + len("secret")
	for _, w := range []string{"access", "key"} {
		if i < end && (s[i] == '_' || s[i] == '-') {
			i++
		}
		if i > end || !hasPrefix(s[i:end], w, true) {
			return -1
		}
		i += len(w)
	}
	if i < end && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	if i = skipSpace(s, i, end); i >= end || strings.IndexByte(":=|", s[i]) < 0 {
		return -1
	}
	if i = skipSpace(s, i+1, end); i < end && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	if skip(s, i, min(end, i+41), awsClass) != i+40 {
		return -1
	}
	return min(end, i+41)
}

var awsClass = classOf("A-Za-z0-9/+=") // an AWS secret access key

// assignWindow is the assignment rules' pre (see assignValue): past the operator at the
// name's separator and blanks, a quoted value's window ends past its closing quote, and an
// unquoted one's with its first byte, before the tail; the operator's first byte alone
// (= of :=) may also begin an unquoted value, when the value after the operator is none.
func assignWindow(s string, p, _, end int) int {
	o := sepAt(s, p, ":=")
	if o < 0 || o >= end {
		return -1
	}
	win := -1
	if k := skip(s, o+1, end, bareClass); k > o+1 {
		win = k + 1
	}
	i := o + 1
	if i < end && (s[i] == '=' || s[i] == '>') {
		i++
	}
	i = skipSpace(s, i, end)
	q := i
	if q+1 < end && s[q] == '\\' {
		q++
	}
	switch {
	case q < end && (s[q] == '"' || s[q] == '\''):
		c := q + 1
		for c < end && s[c] != s[q] && s[c] != '\\' && s[c] != '\r' && s[c] != '\n' {
			c++
		}
		if c > q+1 && c < end && (s[c] == s[q] || s[c] == '\\' && c+1 < end && s[c+1] == s[q]) { // closed
			win = max(win, c+3)
		}
	case i < end && bareClass[s[i]]:
		return i + 1
	}
	return min(end, win)
}
