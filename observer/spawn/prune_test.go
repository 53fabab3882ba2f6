package spawn

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/lockfile"
)

func TestPrune(t *testing.T) {
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var runs []string // oldest first
	for i := range 5 {
		runs = append(runs, NewRunID(base.Add(time.Duration(i)*time.Hour)))
	}
	others := []string{"keep-me", "20261130T000000Z", "20261130T000000.000000000Z-XYZ12345"}
	cases := []struct {
		keep int
		want []string // run dirs left
	}{
		{keep: 3, want: runs[2:]},
		{keep: 5, want: runs},
		{keep: 10, want: runs},
		{keep: 1, want: runs[4:]},
		{keep: 0, want: nil},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		// Created newest first, so neither creation nor modification order is the run order.
		for _, r := range slices.Backward(runs) {
			if err := os.MkdirAll(filepath.Join(dir, r, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, r, TranscriptFile), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range others {
			if err := os.Mkdir(filepath.Join(dir, o), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		// A file and a symlink named like runs are not run dirs either.
		fileRun := NewRunID(base.Add(-time.Hour))
		linkRun := NewRunID(base.Add(-2 * time.Hour))
		if err := os.WriteFile(filepath.Join(dir, fileRun), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "keep-me"), filepath.Join(dir, linkRun)); err != nil {
			t.Fatal(err)
		}

		if err := Prune(dir, tc.keep); err != nil {
			t.Fatalf("keep %d: %v", tc.keep, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		want := append(append([]string{}, tc.want...), others...)
		want = append(want, fileRun, linkRun)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("keep %d: left\n %q\nwant %q", tc.keep, got, want)
		}
	}
	if err := Prune(filepath.Join(t.TempDir(), "missing"), 3); err != nil {
		t.Errorf("missing dir: %v", err)
	}
	if err := Prune(t.TempDir(), -1); err == nil {
		t.Error("negative keep accepted")
	}
}

// TestPruneSkipsLiveRuns: a run dir whose run lock is held (another observer's run, or its
// orphaned child) is not removed, however old; once the lock is free it is.
func TestPruneSkipsLiveRuns(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	live, old, newest := NewRunID(base), NewRunID(base.Add(time.Hour)), NewRunID(base.Add(2*time.Hour))
	for _, r := range []string{live, old, newest} {
		if err := os.MkdirAll(filepath.Join(dir, r), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h, ok, err := lockfile.TryHold(filepath.Join(dir, live, RunLockFile))
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := Prune(dir, 1); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, dir); !slices.Equal(got, []string{live, newest}) {
		t.Errorf("left %q, want the live run and the newest", got)
	}
	h.Release()
	if err := Prune(dir, 1); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, dir); !slices.Equal(got, []string{newest}) {
		t.Errorf("left %q after the run ended", got)
	}
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
