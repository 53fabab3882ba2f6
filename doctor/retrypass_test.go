package doctor

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
)

// The pass says on the writer what the retry did: on a terminal a progress line redrawn in
// place and wiped before the result's line; off one the result's line alone.
func TestRetryPass(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		r := Retry{
			ClearPause: func() error { return nil },
			Start:      func(context.Context) (int, <-chan struct{}, error) { return 1, nil, nil }, // never ends
			Timeout:    2 * time.Second, Now: c.now, After: c.after,
		}
		var w bytes.Buffer
		if err := r.Pass(context.Background(), &w, terminal); err != nil {
			t.Fatal(err)
		}
		line := "observer pause cleared; 1 observer run started for what waits, still running after 2s: the report below is from before it ends (run doctor again later)\n"
		want := line
		if terminal {
			want = ProgressLine(time.Second) + ClearProgress + line
		}
		if w.String() != want {
			t.Errorf("terminal %v: %q, want %q", terminal, w.String(), want)
		}
	}
	boom := errors.New("boom")
	var w bytes.Buffer
	err := Retry{ClearPause: func() error { return boom }}.Pass(context.Background(), &w, false)
	if !errors.Is(err, boom) || w.Len() != 0 {
		t.Errorf("a failed clear: %v, %q; want the error, and no result line", err, w.String())
	}
}

// Waiting starts a run for every session with pending events, none for one without;
// search-only mode and a memory with no database start nothing.
func TestWaitingStart(t *testing.T) {
	db, path := memtest.Open(t)
	memtest.Fill(t, db)
	m := memory.Memory{DataDir: strings.TrimSuffix(path, "/claude-mem.db")}
	if m.Path() != path {
		t.Fatalf("data dir %s holds %s, not %s", m.DataDir, m.Path(), path)
	}
	type run struct {
		session string
		final   bool
	}
	start := func(agents int, m memory.Memory) (int, []run) {
		t.Helper()
		var started []run
		wt := Waiting{Agents: agents, Memory: m, Now: func() time.Time { return memtest.At(100000) },
			Observe: func(s string, final bool) (func(), error) {
				started = append(started, run{s, final})
				return func() {}, nil
			}}
		n, done, err := wt.Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if done != nil {
			<-done // every wait returned
		}
		slices.SortFunc(started, func(a, b run) int { return strings.Compare(a.session, b.session) })
		return n, started
	}
	n, got := start(2, m)
	// s1, s2 and s3 have pending events; s4 (a SessionStart only) has none.
	if want := []run{{"s1", false}, {"s2", false}, {"s3", false}}; n != 3 || !slices.Equal(got, want) {
		t.Errorf("%d started: %v, want %v", n, got, want)
	}
	if n, got := start(0, m); n != 0 || got != nil {
		t.Errorf("search-only mode: %d started, %v", n, got)
	}
	if n, got := start(2, memory.Memory{DataDir: t.TempDir()}); n != 0 || got != nil {
		t.Errorf("no database: %d started, %v", n, got)
	}
	boom := errors.New("boom")
	wt := Waiting{Agents: 1, Memory: m, Now: func() time.Time { return memtest.At(100000) },
		Observe: func(string, bool) (func(), error) { return nil, boom }}
	if _, _, err := wt.Start(context.Background()); !errors.Is(err, boom) {
		t.Errorf("a start that fails: %v", err)
	}
}
