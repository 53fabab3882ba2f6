package plural

import "testing"

func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		list []Noun
		want string
	}{
		{nil, "nothing"},
		{[]Noun{Of(0, "summary", "summaries")}, "nothing"},
		{[]Noun{Of(1, "summary", "summaries")}, "1 summary"},
		{[]Noun{Of(2, "summary", "summaries")}, "2 summaries"},
		{[]Noun{Of(3, "observation", "observations"), Of(0, "prompt", "prompts"), Of(1, "summary", "summaries")}, "3 observations, 1 summary"},
	} {
		if got := Join(tc.list...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.list, got, tc.want)
		}
	}
}
