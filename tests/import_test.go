//go:build linux

package tests

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	clippkg "github.com/claude-mem/claude-mem-go/clip"
)

const importHeader = `{"kind":"header","format":1,"product":"claude-mem-go","version":"test","exported_at":"2026-12-01T10:00:00Z"}` + "\n" +
	`{"kind":"session","id":"imp1","project":"imp","cwd":"/work/imp"}` + "\n"

// writeImport writes path: the header and a session, then lines lines made by line(i).
func writeImport(t *testing.T, path string, lines int, line func(i int) string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(importHeader)
	for i := range lines {
		w.WriteString(line(i))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	return fi.Size()
}

// TestImport_Bounds: `hook import` reads regular files (or -) only, in bounded memory, and
// a file that fails imports nothing: /dev/zero and a FIFO nobody writes are refused at
// once, a 100 MB line is an error naming it, a 300 MB file imports with a bounded peak,
// and the same file with a bad last line imports nothing.
func TestImport_Bounds(t *testing.T) {
	track(t)
	h := journalHarness(t)
	dir := t.TempDir()
	const rssLimit = 64 << 20
	prompts := func() int {
		if _, err := os.Stat(filepath.Join(h.data, "claude-mem.db")); err != nil {
			return 0
		}
		return h.count(`SELECT count(*) FROM prompts WHERE project = 'imp'`)
	}
	run := func(what string, stdin *os.File, args ...string) (result, time.Duration, int64) {
		t.Helper()
		start := time.Now()
		var r result
		var rss int64
		if stdin != nil {
			r, rss = h.measured(h.work, stdin, args...)
		} else {
			r, rss = h.measured(h.work, nil, args...)
		}
		took := time.Since(start)
		t.Logf("%s: exit %d in %v, peak RSS %.1f MB: %s", what, r.code, took.Round(time.Millisecond), float64(rss)/1e6, strings.TrimSpace(r.stderr+r.stdout))
		if rss >= rssLimit {
			t.Errorf("%s: peak RSS %.1f MB; want under 64 MB", what, float64(rss)/1e6)
		}
		return r, took, rss
	}

	if r, _, _ := run("/dev/zero", nil, "import", "/dev/zero"); r.code != 1 || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("import /dev/zero: exit %d, %q", r.code, r.stderr)
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	if r, _, _ := run("- < /dev/zero", zero, "import", "-"); r.code != 1 || !strings.Contains(r.stderr, "line 1: longer than 16 MiB") {
		t.Errorf("import - < /dev/zero: exit %d, %q", r.code, r.stderr)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if r, took, _ := run("a FIFO", nil, "import", fifo); r.code != 1 || !strings.Contains(r.stderr, "not a regular file") || took > 10*time.Second {
		t.Errorf("import FIFO: exit %d after %v, %q", r.code, took, r.stderr)
	}

	long := filepath.Join(dir, "long.jsonl")
	writeImport(t, long, 1, func(int) string {
		return `{"kind":"prompt","session":"imp1","project":"imp","at":"2026-12-01T10:00:00Z","text":"` + strings.Repeat("x", 100<<20) + "\"}\n"
	})
	if r, _, _ := run("a 100 MB line", nil, "import", long); r.code != 1 || !strings.Contains(r.stderr, "line 3: longer than 16 MiB") {
		t.Errorf("import of a 100 MB line: exit %d, %q", r.code, r.stderr)
	}
	if n := prompts(); n != 0 {
		t.Errorf("%d prompts imported from failed files; want 0", n)
	}

	// 300 MB of one 64 KiB prompt repeated (cheap to store: one row), then a bad line.
	big := filepath.Join(dir, "big.jsonl")
	text := strings.Repeat("import bound ", 64<<10/13)
	const n = 4800
	size := writeImport(t, big, n, func(int) string {
		return `{"kind":"prompt","session":"imp1","project":"imp","at":"2026-12-01T10:00:00Z","text":"` + text + "\"}\n"
	})
	good := size
	f, err := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"prompt","session":"imp1"}` + "\n")
	f.Close()
	if r, _, _ := run(fmt.Sprintf("%d MB, a bad last line", size>>20), nil, "import", big); r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("line %d:", n+3)) {
		t.Errorf("import with a bad last line: exit %d, %q", r.code, r.stderr)
	}
	if got := prompts(); got != 0 {
		t.Errorf("%d prompts imported from a file whose last line is bad; want 0", got)
	}
	if err := os.Truncate(big, good); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := run(fmt.Sprintf("control: the same %d MB, good", good>>20), nil, "import", big); r.code != 0 {
		t.Errorf("control: import of the good file: exit %d, %q", r.code, r.stderr)
	}
	if got := prompts(); got != 1 {
		t.Errorf("control: %d prompts imported from the good file; want 1 (the rest are the same prompt)", got)
	}
}

// TestImport_LongWordsPrintClippedLines: a stored title, subtitle and prompt holding one
// 100 KB word print lines of at most clippkg.MaxLine characters in `search` and `forget`
// (ending in …); the control: the same records are whole in the database and in
// `search --json`.
func TestImport_LongWordsPrintClippedLines(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	word := strings.Repeat("w", 100<<10)
	file := filepath.Join(t.TempDir(), "long-words.jsonl")
	writeImport(t, file, 2, func(i int) string {
		if i == 0 {
			return `{"kind":"prompt","session":"imp1","project":"imp","at":"2026-12-01T10:00:00Z","text":"capybara ` + word + ` end"}` + "\n"
		}
		return `{"kind":"observation","session":"imp1","project":"imp","at":"2026-12-01T10:00:01Z","type":"discovery","title":"capybara ` + word +
			`","subtitle":"` + word + `","narrative":"capybara ` + word + `","facts":[],"concepts":[],"files_read":[],"files_modified":[]}` + "\n"
	})
	if r := h.runIn(h.work, nil, nil, "import", file); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	if n := h.count(`SELECT count(*) FROM observations WHERE length(title) > 100000`); n != 1 {
		t.Fatalf("control: %d observations hold the 100 KB title; want 1", n)
	}
	if r := h.runIn(h.work, nil, nil, "search", "--json", "capybara"); r.code != 0 || !strings.Contains(r.stdout, word) {
		t.Errorf("control: search --json does not give the whole title (exit %d, %d bytes)", r.code, len(r.stdout))
	}
	for _, args := range [][]string{
		{"search", "capybara"},
		{"search", "capybara " + word[:1000]},
		{"forget", "--project", "imp", "--dry-run"},
	} {
		r := h.runIn(h.work, nil, nil, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], r.code, r.stderr)
		}
		clipped := 0
		for l := range strings.Lines(r.stdout) {
			l = strings.TrimSuffix(l, "\n")
			if n := utf8.RuneCountInString(l); n > clippkg.MaxLine {
				t.Errorf("%s: a line of %d characters; want at most %d: %.80q…", args[0], n, clippkg.MaxLine, l)
			}
			if strings.HasSuffix(l, "…") {
				clipped++
			}
		}
		if clipped == 0 {
			t.Errorf("%s %.20q: no line clipped with …; the long word was not printed:\n%.500s", args[0], args[1], r.stdout)
		}
		t.Logf("%s %.20q: %d bytes on stdout, %d lines clipped", args[0], args[1], len(r.stdout), clipped)
	}
}
