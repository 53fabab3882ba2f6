package redact

import (
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// adversarial are redacttest's texts of one rule's anchors repeated.
var adversarial = redacttest.Adversarial

func repeatTo(unit string, n int) string { return redacttest.Repeat(unit, n) }

// TestLinearTime: issue 31's bound, measured in-process: 1 MB of any rule's anchors
// repeated is redacted by Captured and by Scrub in under 100 ms on an idle machine (here
// asserted under 10 × that: the 2-core test machine is shared by 7 jobs; the count over
// 100 ms is logged), and 16 times the text costs
// less than 64 times as much (linear is 16, quadratic 256). Each time is the best of three.
func TestLinearTime(t *testing.T) {
	const bound = time.Second
	over := 0
	for _, a := range adversarial {
		for _, f := range []struct {
			name string
			run  func(string)
		}{{"Captured", func(s string) { Captured(s) }}, {"Scrub", func(s string) { Scrub(s) }}} {
			small, big := best(f.run, repeatTo(a, 64<<10)), best(f.run, repeatTo(a, 1<<20))
			ratio := float64(big) / float64(max(small, time.Microsecond))
			// Under 50 ms the ratio is noise (caches, a collection, a busy core).
			if big > bound || ratio > 64 && big > 50*time.Millisecond {
				t.Errorf("%s of %q repeated: 64 KB %v, 1 MB %v (ratio %.1f), want 1 MB under %v and ratio under 64", f.name, a, small, big, ratio, bound)
			}
			if big > 100*time.Millisecond {
				over++
				t.Logf("over 100 ms: %s of %q repeated: 1 MB %v", f.name, a, big)
			}
		}
	}
	t.Logf("%d of %d texts over 100 ms on this machine", over, 2*len(adversarial))
}

func best(run func(string), s string) time.Duration {
	b := time.Duration(1 << 62)
	for range 3 {
		t := time.Now()
		run(s)
		b = min(b, time.Since(t))
	}
	return b
}
