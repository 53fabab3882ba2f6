package auth

import (
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	const key = "sk-ant-api03-SCRUBSECRETSCRUBSECRET"
	const opaque = "opaque-token-1234567890"
	for _, in := range []string{
		"error: invalid key " + key + " rejected",
		"apiKeyHelper: echo " + key,
		"token=" + opaque + "\n",
	} {
		out := Scrub(in, Secret(opaque))
		if strings.Contains(out, key) || strings.Contains(out, opaque) {
			t.Errorf("Scrub(%q) = %q still holds a secret", in, out)
		}
		if !strings.Contains(out, "…(") {
			t.Errorf("Scrub(%q) = %q shows no redaction mark", in, out)
		}
	}
	if got := Scrub("nothing secret here", Secret("abc")); got != "nothing secret here" {
		t.Errorf("ordinary text changed: %q", got)
	}
}
