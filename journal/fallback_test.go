package journal_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
)

// TestTempFallbackCarriesTheUID: the temp dir's fallback is under claude-mem-<uid>, so a
// claude-mem dir another user's claude-mem made first in a shared /tmp is not in the way;
// the runtime and cache dirs, the user's own, keep claude-mem. Without a uid (Windows) the
// name is plain and there is no older place to read.
func TestTempFallbackCarriesTheUID(t *testing.T) {
	root := t.TempDir()
	run, cache, tmp := filepath.Join(root, "run"), filepath.Join(root, "cache"), filepath.Join(root, "tmp")
	j := journal.New(filepath.Join(root, "data"), run, cache, tmp, "1000", time.Now)
	for i, want := range []string{filepath.Join(run, "claude-mem"), filepath.Join(cache, "claude-mem"), filepath.Join(tmp, "claude-mem-1000")} {
		if got := filepath.Dir(j.Fallbacks[i]); got != want {
			t.Errorf("fallback %d under %s, want %s", i, got, want)
		}
	}
	old := filepath.Join(tmp, "claude-mem", filepath.Base(j.Fallbacks[2]))
	if dirs := j.Dirs(); len(dirs) != 5 || dirs[4] != old {
		t.Errorf("dirs %v: want the older temp fallback %s last", dirs, old)
	}
	plain := journal.New(filepath.Join(root, "data"), "", cache, tmp, "", time.Now)
	if got := filepath.Dir(plain.Fallbacks[1]); got != filepath.Join(tmp, "claude-mem") || len(plain.Dirs()) != 3 {
		t.Errorf("without a uid: fallback under %s, dirs %v", got, plain.Dirs())
	}
}

// TestAppendLeavesTheFallbacksAlone: while the data dir takes the record, no fallback is
// made or looked at: one whose base is a file (any look would fail) gives no error, and
// no fallback dir exists afterwards.
func TestAppendLeavesTheFallbacksAlone(t *testing.T) {
	e := newEnv(t)
	j := journal.New(e.data, "", e.cache, e.tmp, "1000", e.clock.now)
	breakDir(t, filepath.Dir(j.Fallbacks[1])) // <tmp>/claude-mem-1000 a file
	dir, err := j.Append(journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Text: "x"})
	if dir != j.Dir || err != nil {
		t.Fatalf("Append went to %q with %v; want the data dir and no error", dir, err)
	}
	if _, err := os.Stat(j.Fallbacks[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cache fallback was made while the data dir took the record: %v", err)
	}
	if p := j.Probe(); p != nil {
		t.Errorf("Probe looked past the data dir: %v", p)
	}
	// The control: the data dir broken, the broken temp fallback is tried and named.
	breakDir(t, j.Dir)
	breakDir(t, e.cache)
	if _, err := j.Append(journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Text: "y"}); err == nil || !strings.Contains(err.Error(), "claude-mem-1000") {
		t.Errorf("control: every place broken: %v; want the temp fallback named", err)
	}
}

// TestOlderTempFallbackIngested: records an older version left in <tmp>/claude-mem are
// stored after the upgrade when that dir is the user's alone; one that is not (no
// version wrote to it then) is passed over silently: not read, not refused, not logged.
func TestOlderTempFallbackIngested(t *testing.T) {
	for _, private := range []bool{true, false} {
		e := newEnv(t)
		old := journal.New(e.data, "", e.cache, e.tmp, "", e.clock.now) // the older version's places
		breakDir(t, old.Dir)
		breakDir(t, e.cache)
		if dir := mustAppend(t, old, journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Text: "waiting since the upgrade"}); dir != old.Fallbacks[1] {
			t.Fatalf("the older version appended to %s", dir)
		}
		for _, p := range []string{old.Dir, e.cache} {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
		if !private {
			os.Chmod(filepath.Join(e.tmp, "claude-mem"), 0o777)
		}
		j := journal.New(e.data, "", e.cache, e.tmp, "1000", e.clock.now)
		var logs bytes.Buffer
		if err := j.IngestNoted(context.Background(), e.open(t), zerolog.New(&logs).Level(zerolog.InfoLevel)); err != nil {
			t.Fatal(err)
		}
		n := queryInt(t, e.raw(t), `SELECT count(*) FROM prompts WHERE text = 'waiting since the upgrade'`)
		b, _ := j.Pending()
		switch {
		case private && n != 1:
			t.Errorf("the older fallback's record stored %d times; want 1", n)
		case !private && (n != 0 || len(b.Refused) != 0 || logs.Len() != 0):
			t.Errorf("an older fallback not the user's alone: stored %d, refused %v, logged %q; want nothing", n, b.Refused, logs.String())
		}
	}
}

// TestRefusedDirNotLogged: a fallback dir another user made first is refused at every
// pass, so no pass logs it (doctor says it once, from Pending); a planted file in a dir
// of the user's is logged (the control: the log does name refusals).
func TestRefusedDirNotLogged(t *testing.T) {
	e := newEnv(t)
	j := journal.New(e.data, "", e.cache, e.tmp, "1000", e.clock.now)
	fb := j.Fallbacks[1]
	if err := os.MkdirAll(fb, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(fb), 0o777) // not the user's alone, as another uid's is not
	mustAppend(t, j, journal.Record{Kind: store.CapturePrompt, Session: "s", Project: "p", Text: "x"})
	var logs bytes.Buffer
	log := zerolog.New(&logs).Level(zerolog.InfoLevel) // not the debug line of what was ingested
	db := e.open(t)
	if err := j.IngestNoted(context.Background(), db, log); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("a refused fallback dir was logged: %s", logs.String())
	}
	if b, _ := j.Pending(); len(b.Refused) != 1 {
		t.Errorf("Pending refused %v; want the fallback dir, for doctor", b.Refused)
	}
	os.Chmod(filepath.Dir(fb), 0o700)
	if err := os.Symlink(filepath.Join(e.tmp, "elsewhere"), filepath.Join(fb, "s.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := j.IngestNoted(context.Background(), db, log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "capture journal refused") {
		t.Errorf("control: a planted file was not logged: %q", logs.String())
	}
}
