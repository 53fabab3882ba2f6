package byline

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct{ author, machine, want string }{
		{"alice", "desk", "by alice on desk"},
		{"alice", "", "by alice"},
		{"", "desk", "on desk"},
		{"", "", ""}, // made here: no byline
	} {
		if got := Of(c.author, c.machine); got != c.want {
			t.Errorf("Of(%q, %q) = %q, want %q", c.author, c.machine, got, c.want)
		}
	}
}
