package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// Issue 21: every credential of ruleCases, with every separator before and after it, in
// every form a captured field takes, is gone from what the redactor returns; every near miss
// in the same places comes back as it went in.

// separators are what may stand next to a shape, on each side.
var separators = redacttest.Separators

// forms are the captured field shapes: the text alone (a prompt, a note), as a JSON
// document's string value, deeper in JSON that a string holds (an MCP tool's content), with
// every byte of its JSON spelling escaped, and as a secret-named key's value.
type form struct {
	name   string
	redact func(string) (string, Counts)
	wrap   func(string) string
}

var forms = []form{
	{"text", Captured, func(s string) string { return s }},
	{"JSON string value", CapturedJSON, func(s string) string {
		return `{"stdout":` + quote(s) + `,"stderr":"","interrupted":false}`
	}},
	{"nested JSON", CapturedJSON, func(s string) string {
		return `{"content":[{"type":"text","text":` + quote(`{"result":{"log":[`+quote(s)+`]}}`) + `}],"isError":false}`
	}},
	{"JSON, all \\u-escaped", CapturedJSON, func(s string) string {
		var b strings.Builder
		b.WriteString(`{"output":"`)
		for _, r := range s {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		b.WriteString(`"}`)
		return b.String()
	}},
	{"secret-named key", CapturedJSON, func(s string) string { return `{"env":{"DB_PASSWORD":` + quote(s) + `}}` }},
}

// decodedStrings is every string in a JSON document, with the strings of JSON held in a
// string, so a check sees the text as it reads.
func decodedStrings(t *testing.T, doc string) string {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
			if looksJSON(x) {
				b.WriteString(decodedStrings(t, x))
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// atCut puts s across the head cut of a 16 KiB field of form f, redacts the field and clips
// it as hook mode does.
func atCut(f form, s string) string {
	pad := strings.Repeat("filler text, ", (8<<10)/13)
	out, _ := f.redact(f.wrap(pad[:8<<10-len(s)/2] + s + pad))
	return clip.HeadTail(out, 16<<10)
}

func TestMatrixCredentials(t *testing.T) {
	cells, fails := 0, 0
	for _, tc := range ruleCases {
		if tc.secret == "" {
			continue
		}
		for _, f := range forms {
			check := func(where, out string) {
				cells++
				if strings.Contains(out, tc.secret) || strings.Contains(decodedStrings(t, out), tc.secret) {
					if fails++; fails <= 20 {
						t.Errorf("%s, %s, %s: secret %q kept:\n in: %q\nout: %q", tc.kind, f.name, where, tc.secret, tc.in, out)
					}
				}
			}
			for _, b := range separators {
				for _, a := range separators {
					in := f.wrap(b.Before + tc.in + a.After)
					out, _ := f.redact(in)
					check(b.Name+" / "+a.Name, out)
				}
			}
			if f.name != "JSON, all \\u-escaped" { // cut, it is no JSON to read the secret in
				check("at the 16 KiB cut", atCut(f, tc.in))
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d cells keep a secret", fails, cells)
	}
	t.Logf("%d cells: %d credentials × %d separators before × %d after × %d forms, and %d forms at the 16 KiB cut",
		cells, countCases(true), len(separators), len(separators), len(forms), len(forms)-1)
}

// TestMatrixControl: unredacted, every credential cell holds its secret where the matrix
// looks (the raw output or its decoded strings), so each absence asserted there can fail.
func TestMatrixControl(t *testing.T) {
	cells, found := 0, 0
	for _, tc := range ruleCases {
		if tc.secret == "" {
			continue
		}
		for _, f := range forms {
			for _, b := range separators {
				for _, a := range separators {
					cells++
					if in := f.wrap(b.Before + tc.in + a.After); strings.Contains(in, tc.secret) || strings.Contains(decodedStrings(t, in), tc.secret) {
						found++
					}
				}
			}
		}
	}
	if found != cells {
		t.Errorf("the check finds %d of %d unredacted secrets", found, cells)
	}
}

func TestMatrixNearMisses(t *testing.T) {
	cells, fails := 0, 0
	for _, tc := range ruleCases {
		if tc.secret != "" {
			continue
		}
		for _, f := range forms {
			if f.name == "secret-named key" { // its value is redacted whatever it is
				continue
			}
			for _, b := range separators {
				for _, a := range separators {
					cells++
					// The separator ends the near miss's last word: glued to it, text
					// would make another value (password=null=x, password=null/q).
					after := strings.Replace(a.After, "x", " x", 1)
					if a.Name == "in a URL" || a.Name == "in base64" {
						after = " " + a.After
					}
					in := f.wrap(b.Before + tc.in + after)
					if out, n := f.redact(in); out != in || n != nil {
						if fails++; fails <= 20 {
							t.Errorf("%s, %s, %s / %s: near miss changed (%v):\n in: %q\nout: %q", tc.kind, f.name, b.Name, a.Name, n, in, out)
						}
					}
				}
			}
			cells++
			if out := atCut(f, tc.in); strings.Contains(out, "[REDACTED:") {
				fails++
				t.Errorf("%s, %s, at the 16 KiB cut: near miss redacted: %q", tc.kind, f.name, tc.in)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d near-miss cells changed", fails, cells)
	}
	t.Logf("%d cells: %d near misses × %d separators before × %d after × %d forms, and each at the 16 KiB cut",
		cells, countCases(false), len(separators), len(separators), len(forms)-1)
}

func countCases(secret bool) int {
	n := 0
	for _, tc := range ruleCases {
		if (tc.secret != "") == secret {
			n++
		}
	}
	return n
}

// TestCanaryVariants: the black-box matrix gives each cell its own canary secret; every
// variant is still its kind's credential, and no two are alike.
func TestCanaryVariants(t *testing.T) {
	for _, c := range redacttest.Captured() {
		seen := map[string]bool{}
		for n := range 2000 {
			v := c.Variant(n)
			if seen[v.Secret] || !strings.Contains(v.Text, v.Secret) {
				t.Fatalf("%s variant %d: %q repeats or is not in %q", c.Kind, n, v.Secret, v.Text)
			}
			seen[v.Secret] = true
			if out, k := Captured(v.Text); strings.Contains(out, v.Secret) || k[c.Kind] == 0 {
				t.Fatalf("%s variant %d kept or miscounted (%v): %q", c.Kind, n, k, out)
			}
		}
	}
}
