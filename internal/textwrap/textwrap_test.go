package textwrap

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	text := "the memory tools are not allowed — Claude asks at every call, and `claude mcp list --all` shows them in /a/very/long/path/that/does/not/fit/anywhere/at/all/on/a/line"
	for _, width := range []int{20, 40, 80} {
		got := Wrap(text, width, "  ! ", "    ")
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		for i, l := range lines {
			long := utf8.RuneCountInString(l) > width
			if long && !strings.Contains(l, "/a/very") && !strings.Contains(l, "`claude") {
				t.Errorf("width %d: line %d too long: %q", width, i, l)
			}
			if i > 0 && !strings.HasPrefix(l, "    ") {
				t.Errorf("width %d: line %d not indented: %q", width, i, l)
			}
		}
		if !strings.Contains(got, "`claude mcp list --all`") {
			t.Errorf("width %d: the quoted span was broken:\n%s", width, got)
		}
		if strings.Join(strings.Fields(got), " ") != "! "+text {
			t.Errorf("width %d: the words changed:\n%s", width, got)
		}
	}
	if got := Wrap("short", 100, "> ", "  "); got != "> short\n" {
		t.Errorf("a short text: %q", got)
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"a b  c":            {"a", "b", "c"},
		"run `x y` now":     {"run", "`x y`", "now"},
		"(`x y`), and":      {"(`x y`),", "and"},
		"an `unclosed span": {"an", "`unclosed", "span"},
		"":                  nil,
	} {
		if got := Words(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}
