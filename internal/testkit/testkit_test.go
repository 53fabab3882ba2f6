package testkit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fatalRecorder is a testing.TB whose Fatalf records the failure instead of ending the test.
type fatalRecorder struct {
	testing.TB
	failed string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *fatalRecorder) Fatal(args ...any)                 { r.failed = fmt.Sprint(args...) }

func TestEventually(t *testing.T) {
	t.Run("holds when another goroutine makes it true", func(t *testing.T) {
		var set atomic.Bool
		go func() { time.Sleep(20 * time.Millisecond); set.Store(true) }() // the other side's work
		r := &fatalRecorder{TB: t}
		Eventually(r, 10*time.Second, "the flag", set.Load)
		if r.failed != "" || !set.Load() {
			t.Errorf("failed %q with the flag %v", r.failed, set.Load())
		}
	})
	t.Run("fails with what was awaited when it never holds", func(t *testing.T) {
		r := &fatalRecorder{TB: t}
		began := time.Now()
		Eventually(r, 100*time.Millisecond, "the impossible", func() bool { return false })
		if r.failed != "waited 100ms for the impossible; it never held" {
			t.Errorf("failure %q", r.failed)
		}
		if d := time.Since(began); d < 100*time.Millisecond {
			t.Errorf("gave up after %v, before the 100ms it was given", d)
		}
	})
}

// skipRecorder is a fatalRecorder whose Skip records the skip instead of ending the test.
type skipRecorder struct {
	fatalRecorder
	skipped string
}

func (r *skipRecorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...) }

// A missing prerequisite fails under CI=true and skips elsewhere (the control).
func TestMissing(t *testing.T) {
	for _, ci := range []string{"true", ""} {
		t.Setenv("CI", ci)
		r := &skipRecorder{fatalRecorder: fatalRecorder{TB: t}}
		Missing(r, "needs a tmpfs")
		if ci == "true" && (r.failed != "needs a tmpfs; CI=true, where it must run" || r.skipped != "") ||
			ci == "" && (r.failed != "" || r.skipped != "needs a tmpfs") {
			t.Errorf("CI=%q: failed %q, skipped %q", ci, r.failed, r.skipped)
		}
	}
}

func TestWithinChecksAtLeastOnce(t *testing.T) {
	calls := 0
	if Within(0, func() bool { calls++; return calls == 1 }) != true || calls != 1 {
		t.Errorf("a condition true at once: %d calls", calls)
	}
	calls = 0
	if Within(0, func() bool { calls++; return false }) || calls != 1 {
		t.Errorf("a false condition with no time: %d calls, want 1", calls)
	}
}

func TestEntries(t *testing.T) {
	dir := t.TempDir()
	if got := Entries(t, filepath.Join(dir, "missing")); got != nil {
		t.Errorf("a missing dir lists %q", got)
	}
	WriteFile(t, filepath.Join(dir, "b", "x"), "x", 0o600)
	WriteFile(t, filepath.Join(dir, "a"), "a", 0o644)
	if got := Entries(t, dir); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("entries %q, want a and b", got)
	}
	r := &fatalRecorder{TB: t}
	// A file is not a directory: an error other than a missing dir fails the test.
	if Entries(r, filepath.Join(dir, "a")); r.failed == "" {
		t.Error("listing a file did not fail")
	}
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	WriteFile(t, src, strings.Repeat("data ", 100000), 0o644)
	if err := CopyFile(src, dst, 0o700); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(src)
	got, _ := os.ReadFile(dst)
	fi, err := os.Stat(dst)
	if err != nil || string(got) != string(want) || fi.Mode().Perm() != 0o700 {
		t.Errorf("copy of %d bytes, mode %v (%v); want %d bytes, mode 0700", len(got), fi.Mode(), err, len(want))
	}
	if err := CopyFile(src, dst, 0o700); !errors.Is(err, fs.ErrExist) {
		t.Errorf("copy onto an existing file: %v, want it refused", err)
	}
	if err := CopyFile(filepath.Join(dir, "missing"), filepath.Join(dir, "new"), 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("copy of a missing file: %v", err)
	}
}

func TestStartPiped(t *testing.T) {
	cmd := exec.Command("/bin/cat")
	cmd.Env = []string{}
	stdin, stdout := StartPiped(t, cmd)
	if _, err := io.WriteString(stdin, "echoed\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	got, rerr := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil || rerr != nil || string(got) != "echoed\n" {
		t.Errorf("cat through the pipes: %q, %v, %v", got, rerr, err)
	}
	r := &fatalRecorder{TB: t}
	if StartPiped(r, exec.Command(filepath.Join(t.TempDir(), "missing"))); r.failed == "" {
		t.Error("starting a missing program did not fail")
	}
}

// A fake timer fires when Advance reaches it, not before, and WaitTimers returns once the
// waiter is waiting.
func TestClock(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	c := NewClock(start)
	ch := c.After(time.Second)
	c.Advance(999 * time.Millisecond)
	select {
	case at := <-ch:
		t.Fatalf("fired at %v, before its second", at)
	default:
	}
	c.Advance(time.Millisecond)
	select {
	case at := <-ch:
		if !at.Equal(start.Add(time.Second)) || !c.Now().Equal(at) {
			t.Errorf("fired at %v, clock at %v", at, c.Now())
		}
	default:
		t.Fatal("not fired at its second")
	}
	if at := <-c.After(0); !at.Equal(c.Now()) {
		t.Errorf("After(0) fired at %v", at)
	}
	got := make(chan time.Time)
	go func() { got <- <-c.After(time.Minute) }()
	c.WaitTimers(1)
	c.Advance(time.Minute)
	<-got
}
