// Package testkit holds the helpers the black-box suites (tests/, tests/e2e), the
// packages' own tests and the bench share: a bounded wait for a condition another process
// makes true, and the file helpers. It imports no package of this module, so any test can
// use it.
package testkit

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// maxTick bounds the poll interval: a condition is seen at most this long after it holds.
const maxTick = 50 * time.Millisecond

// DateZone is a zone of the date round trip and a record time whose local date there is
// another than UTC's (except in UTC itself).
type DateZone struct {
	Loc *time.Location
	At  time.Time
}

// DateZones are UTC−8, UTC and UTC+9, each named as its abbreviation is shown: a record of
// 1 Dec 17:00 at UTC−8 (2 Dec 01:00 UTC), the same in UTC, and one of 2 Dec 01:00 at
// UTC+9 (1 Dec 16:00 UTC); each half a second past its second.
func DateZones() []DateZone {
	late := time.Date(2026, 12, 2, 1, 0, 0, 5e8, time.UTC)
	return []DateZone{
		{time.FixedZone("PST", -8*3600), late},
		{time.UTC, late},
		{time.FixedZone("JST", 9*3600), time.Date(2026, 12, 1, 16, 0, 0, 5e8, time.UTC)},
	}
}

// Missing is a test's missing prerequisite (root, a mount, a program): with CI=true the
// test fails, since CI provides every one and a skip there would hide a test that never
// runs; elsewhere it is skipped, saying why.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + "; CI=true, where it must run")
	} else {
		t.Skip(why)
	}
}

// Within polls cond until it holds (true) or d has passed (false), checking it once more at
// the end. The interval starts at 1 ms and doubles to maxTick, so a fast condition is seen
// at once and a slow one costs little CPU on a loaded machine.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for tick := time.Millisecond; ; tick = min(2*tick, maxTick) {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(tick, left))
	}
}

// Eventually waits up to d for cond to hold, failing t with what was awaited if it never
// does. It is for what another process or goroutine makes true (a detached run's result, a
// file it writes); what the test itself does needs no wait.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(d, cond) {
		t.Fatalf("waited %v for %s; it never held", d, what)
	}
}

// StartPiped starts cmd with a pipe to its stdin and one from its stdout, as a test talks
// to a child process line by line, failing t if it cannot.
func StartPiped(t testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// Entries lists the names directly in dir, sorted; a missing dir has none.
func Entries(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// Exists reports whether path names a file (a stat succeeds): what a test waits for when
// another process writes it.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// WriteFile writes content to path with mode, creating its parent directories.
func WriteFile(t testing.TB, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// CopyFile copies src into dst, a new file with mode perm, streaming (a seeded database
// is large, and the bench process must stay small). It returns an error rather than
// failing a test: the bench and testscript commands use it too.
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
