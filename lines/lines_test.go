package lines_test

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/lines"
)

func TestRead(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 40) + "\n" + strings.Repeat("y", 10) + "\n" + strings.Repeat("z", 12) + "\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	var got []string
	for {
		l, long, err := lines.Read(r, 10)
		switch {
		case long:
			got = append(got, "LONG")
			if err := lines.Skip(r); err != nil {
				t.Fatal(err)
			}
			continue
		case len(l) > 0 || err == nil:
			got = append(got, string(l))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"short", "LONG", "yyyyyyyyyy", "LONG", "last"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("lines %q; want %q", got, want)
	}
}
