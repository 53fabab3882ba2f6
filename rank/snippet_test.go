package rank

import (
	"strconv"
	"strings"
	"testing"
)

// A snippet is cut from the field holding the most query words, around where they are
// densest, each word marked that shares a query word's stem; a hit matching no word shows
// the start of its body (the control).
func TestSnippetOf(t *testing.T) {
	long := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen the webhook signature verification failed on retry"
	text := Text{Columns: []string{"Webhook retries", "", long, "", "", ""}, Body: 2}
	snip, marks := snippetOf(text, []string{"signature", "failing"}, []bool{false, false})
	if got := Marked(snip, marks, "[", "]", nil); got != "…four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen the webhook [signature] verification [failed] on retry" &&
		!strings.Contains(got, "[signature] verification [failed]") {
		t.Errorf("snippet %q", got)
	}
	if snip, marks := snippetOf(text, []string{"zebra"}, []bool{false}); len(marks) != 0 || !strings.HasPrefix(snip, "one two three") {
		t.Errorf("no match: %q %v, want the body's start unmarked", snip, marks)
	}
	for _, c := range []struct {
		w, q string
		same bool
	}{{"failed", "failing", true}, {"configuration", "configure", true}, {"users", "user", true}, {"fail", "fail", true},
		{"cat", "cats", false}, {"webhook", "websocket", false}, {"token", "tokenizer", false}} {
		if got := sameStem(c.w, c.q); got != c.same {
			t.Errorf("sameStem(%q, %q) = %v, want %v", c.w, c.q, got, c.same)
		}
	}
}

// A pasted page is searched by its first maxTerms distinct words.
func TestParseQueryBoundsTerms(t *testing.T) {
	words := make([]string, 0, 2000)
	for i := range 2000 {
		words = append(words, "w"+strconv.Itoa(i))
	}
	if q := parseQuery(strings.Join(words, " ")); len(q.terms) != maxTerms {
		t.Errorf("%d terms, want %d", len(q.terms), maxTerms)
	}
}
