package recordid

import (
	"errors"
	"testing"

	"github.com/claude-mem/claude-mem-go/vocab"
)

func TestFormatParse(t *testing.T) {
	for _, c := range []struct {
		ref         vocab.Ref
		id, label   string
		alsoParsing []string
	}{
		{vocab.Ref{Kind: vocab.KindObservation, ID: 12}, "12", "#12", []string{" 12 ", "012"}},
		{vocab.Ref{Kind: vocab.KindSummary, ID: 3}, "S3", "#S3", []string{"s3", "#s3"}},
		{vocab.Ref{Kind: vocab.KindPrompt, ID: 7}, "P7", "#P7", []string{"p7", "#p7"}},
		{vocab.Ref{Kind: vocab.KindObservation, ID: 9223372036854775807}, "9223372036854775807", "#9223372036854775807", nil},
	} {
		if got := Format(c.ref); got != c.id {
			t.Errorf("Format(%v) = %q, want %q", c.ref, got, c.id)
		}
		if got := Label(c.ref); got != c.label {
			t.Errorf("Label(%v) = %q, want %q", c.ref, got, c.label)
		}
		for _, s := range append([]string{c.id, c.label}, c.alsoParsing...) {
			if got, err := Parse(s); err != nil || got != c.ref {
				t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, c.ref)
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "#", "S", "P", "0", "S0", "-3", "+3", "S-3", "1.5", "X9", "O12", "12S", "S 3", "##1",
		"9223372036854775808", "1e3", "٣"} {
		ref, err := Parse(s)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Text != s || ref != (vocab.Ref{}) {
			t.Errorf("Parse(%q) = %v, %v; want a *SyntaxError and no ref", s, ref, err)
		}
	}
	if got := (&SyntaxError{"X2"}).Error(); got != `"X2" is not a record id: use 12 (observation), S3 (summary) or P7 (prompt)` {
		t.Errorf("message %q", got)
	}
}
