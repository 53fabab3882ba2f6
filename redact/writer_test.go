package redact

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

const known = "helper-secret-value-42"

// canaryLines is every diagnostic canary and the known secret, a line each.
func canaryLines() string {
	var b strings.Builder
	for _, c := range redacttest.Diagnostic() {
		b.WriteString(c.Text + "\n")
	}
	b.WriteString("stderr: helper printed " + known + "\n")
	return b.String()
}

func leaks(t *testing.T, out []byte) {
	t.Helper()
	for _, c := range redacttest.Leaks(out, redacttest.Diagnostic()) {
		t.Errorf("canary %s kept", c.Kind)
	}
	if bytes.Contains(out, []byte(known)) {
		t.Error("known secret kept")
	}
}

// TestWriterUnderCap: below its cap the Writer keeps exactly what Scrub gives, however the
// stream is cut into writes.
func TestWriterUnderCap(t *testing.T) {
	in := canaryLines() + "last line without a break"
	for _, size := range []int{1, 7, 100, len(in)} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out, 1<<20, known)
			for rest := in; len(rest) > 0; {
				n := min(size, len(rest))
				if _, err := w.Write([]byte(rest[:n])); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if want := Scrub(in, known); out.String() != want {
				t.Errorf("kept\n%s\nwant\n%s", out.String(), want)
			}
			if w.Seen() != int64(len(in)) {
				t.Errorf("Seen() = %d, want %d", w.Seen(), len(in))
			}
			leaks(t, out.Bytes())
		})
	}
}

var markerRe = regexp.MustCompile(`\n\[… (\d+) bytes omitted …\]\n`)

// TestWriterCap: over its cap the Writer keeps the head and the tail, each at a line
// boundary, and the marker counts exactly what is left out.
func TestWriterCap(t *testing.T) {
	const limit = 4096
	var in strings.Builder
	for i := range 20000 { // 600 KB: several batches
		fmt.Fprintf(&in, "line %05d of the child's output\n", i)
	}
	var out bytes.Buffer
	w := NewWriter(&out, limit)
	w.Write([]byte(in.String()))
	w.Close()
	got := out.String()
	if len(got) > limit {
		t.Errorf("kept %d bytes, cap %d", len(got), limit)
	}
	m := markerRe.FindStringSubmatchIndex(got)
	if m == nil {
		t.Fatalf("no marker in\n%s", got)
	}
	head, tail := got[:m[0]+1], got[m[1]:]
	if !strings.HasPrefix(in.String(), head) || !strings.HasSuffix(in.String(), tail) {
		t.Errorf("head or tail is not the stream's:\n%s", got)
	}
	if !strings.HasPrefix(tail, "line ") || len(head) < limit/2-64 || len(tail) < limit/2-128 {
		t.Errorf("head %d bytes, tail %d bytes (from %q)", len(head), len(tail), tail[:min(len(tail), 20)])
	}
	var omitted int
	fmt.Sscan(got[m[2]:m[3]], &omitted)
	if len(head)+omitted+len(tail) != in.Len() {
		t.Errorf("head %d + omitted %d + tail %d != %d written", len(head), omitted, len(tail), in.Len())
	}
}

// TestWriterLongLines: a line longer than a batch is cut at a blank, so a token on it is
// scrubbed whole; one with no blank is still kept, bounded.
func TestWriterLongLines(t *testing.T) {
	words := strings.Repeat("word ", batch/5)
	for _, at := range []int{batch - 10, batch - 3, batch - 1} { // the secret straddles a batch's end
		in := words[:at] + known + " " + words + strings.Repeat("x", 3*batch) + "\n"
		var out bytes.Buffer
		w := NewWriter(&out, 1<<30, known)
		w.Write([]byte(in))
		w.Close()
		leaks(t, out.Bytes())
		if !bytes.HasSuffix(out.Bytes(), []byte(words+strings.Repeat("x", 3*batch)+"\n")) {
			t.Error("the line was not kept")
		}
	}
}

// TestWriterPrivateKeyAcrossBatches: a key block that would straddle two batches is held
// back and scrubbed whole.
func TestWriterPrivateKeyAcrossBatches(t *testing.T) {
	c := redacttest.Captured()[1] // the PEM block
	if c.Kind != "private_key" {
		t.Fatalf("canary %s", c.Kind)
	}
	for _, pad := range []int{batch - 40, batch - 100, batch - 200} {
		in := strings.Repeat("p", pad-1) + "\n" + c.Text + "\ntail\n"
		var out bytes.Buffer
		w := NewWriter(&out, 1<<30)
		w.Write([]byte(in))
		w.Close()
		if bytes.Contains(out.Bytes(), []byte(c.Secret)) {
			t.Errorf("pad %d: key body kept", pad)
		}
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestWriterGiB: 1 GiB through the Writer keeps at most its cap and holds memory bounded,
// whatever it is given.
func TestWriterGiB(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB of output takes seconds")
	}
	const limit = 1 << 20
	chunk := []byte(strings.Repeat("2026-11-30T10:00:00Z progress of the child's work, all good\n", (64<<10)/60))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	start, peak := ms.HeapInuse, ms.HeapInuse
	var out countWriter
	w := NewWriter(&out, limit, known)
	for i := 0; w.Seen() < 1<<30; i++ {
		w.Write(chunk)
		if i%256 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	w.Close()
	if out.n > limit {
		t.Errorf("kept %d bytes, cap %d", out.n, limit)
	}
	if grew := peak - start; grew > 8<<20 {
		t.Errorf("heap in use grew by %d MiB", grew>>20)
	}
	t.Logf("kept %d bytes of %d; heap in use grew at most %d KiB", out.n, w.Seen(), (peak-start)>>10)
}
