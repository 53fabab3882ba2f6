package printable_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/printable"
)

// every is each control character, between plain text.
func every() string {
	var b strings.Builder
	b.WriteString("a\tb ")
	for r := rune(0); r < 0x20; r++ {
		b.WriteRune(r)
	}
	b.WriteRune(0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		b.WriteRune(r)
	}
	b.WriteString(" é✓")
	return b.String()
}

func TestText(t *testing.T) {
	got := printable.Text(every())
	for _, r := range got {
		if r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f {
			t.Fatalf("Text left %U in %q", r, got)
		}
	}
	if !strings.Contains(got, `\x1b`) || !strings.Contains(got, `\u009b`) || !strings.HasPrefix(got, "a\tb ") || !strings.HasSuffix(got, " é✓") {
		t.Errorf("Text = %q", got)
	}
	if s := "plain text, tab\tand ünïcode"; printable.Text(s) != s {
		t.Errorf("control: plain text changed: %q", printable.Text(s))
	}
}

func TestLines(t *testing.T) {
	if got := printable.Lines("a\x1b[2J\nb\n"); got != "a\\x1b[2J\nb\n" {
		t.Errorf("Lines = %q", got)
	}
}

func TestJSON(t *testing.T) {
	b, _ := json.Marshal(map[string]string{"t": every()})
	out := printable.JSON(b)
	for i, c := range out {
		if c < 0x20 || c == 0x7f || c == 0xc2 && i+1 < len(out) && out[i+1] <= 0x9f {
			t.Fatalf("JSON left byte %#x at %d: %q", c, i, out)
		}
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil || m["t"] != every() {
		t.Errorf("the escaped JSON decodes to %q (%v); want the same value", m["t"], err)
	}
}
