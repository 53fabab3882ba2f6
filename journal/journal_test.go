package journal_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the store's driver, for reading the rows it wrote

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/store"
)

// The test binary doubles as an appending process (TestConcurrentProcesses): with
// JOURNAL_APPENDER set it appends records to the journal of JOURNAL_DATA and exits.
func TestMain(m *testing.M) {
	if os.Getenv("JOURNAL_APPENDER") != "" {
		os.Exit(appenderProcess())
	}
	os.Exit(m.Run())
}

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// clock is a settable time source for journal.New.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// env is one data dir with its journal (fallbacks in a cache and a temp dir of the test).
type env struct {
	data, cache, tmp string
	clock            *clock
	j                *journal.Journal
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{
		data:  filepath.Join(root, "data"),
		cache: filepath.Join(root, "cache"),
		tmp:   filepath.Join(root, "tmp"),
		clock: &clock{t: t0},
	}
	for _, d := range []string{e.data, e.cache, e.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.j = journal.New(e.data, "", e.cache, e.tmp, "", e.clock.now)
	return e
}

func (e *env) dbPath() string { return filepath.Join(e.data, "claude-mem.db") }

// open opens the data dir's database, closed when the test ends.
func (e *env) open(t *testing.T) *store.DB {
	t.Helper()
	db, err := memory.Memory{DataDir: e.data}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// raw opens a second connection to the database, to read the rows ingestion wrote.
func (e *env) raw(t *testing.T) *sql.DB {
	t.Helper()
	r, err := sql.Open("sqlite", "file:"+e.dbPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func queryInt(t *testing.T, r *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := r.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// files lists every file in the journal dirs (and what else is there), as dir-relative
// paths prefixed with the dir's index: "0/s1.jsonl", "1/x.jsonl.abc.ingesting".
func (e *env) files(t *testing.T) []string {
	t.Helper()
	var out []string
	for i, d := range e.j.Dirs() {
		entries, err := os.ReadDir(d)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range entries {
			out = append(out, strconv.Itoa(i)+"/"+en.Name())
		}
	}
	return out
}

func (e *env) noFiles(t *testing.T) {
	t.Helper()
	if f := e.files(t); len(f) != 0 {
		t.Errorf("journal files left: %v", f)
	}
}

func mustAppend(t *testing.T, j *journal.Journal, r journal.Record) string {
	t.Helper()
	dir, err := j.Append(r)
	if dir == "" { // an error with a dir: the dirs skipped before it
		t.Fatalf("Append(%+v): %v", r, err)
	}
	return dir
}

// breakDir makes path a regular file, so that creating a dir there or below fails with
// ENOTDIR whoever runs the test (root ignores permissions).
func breakDir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a dir\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readLines(t *testing.T, path string) []journal.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []journal.Record
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("%s: a line without its newline: %q", path, l)
		}
		var r journal.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		out = append(out, r)
	}
	return out
}

// Append writes one line per record to <Dir>/<session>.jsonl and fills the version (the
// oldest that knows the record's kind), a fresh id and the clock's time, keeping an id and time the caller gave.
func TestAppendWritesOneLinePerRecord(t *testing.T) {
	e := newEnv(t)
	if dir := mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "one"}); dir != e.j.Dir {
		t.Errorf("Append went to %s, want %s", dir, e.j.Dir)
	}
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "two", ID: "given", At: 42})
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "three"})
	got := readLines(t, filepath.Join(e.j.Dir, "s1.jsonl"))
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3: %+v", len(got), got)
	}
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for i, r := range got {
		if r.V != 1 { // a prompt is as version 1 wrote it
			t.Errorf("line %d: v %d, want 1", i, r.V)
		}
	}
	if !hexID.MatchString(got[0].ID) || !hexID.MatchString(got[2].ID) || got[0].ID == got[2].ID {
		t.Errorf("filled ids %q, %q: want two distinct random ids", got[0].ID, got[2].ID)
	}
	if got[0].At != t0.UnixNano() || got[1].At != 42 || got[1].ID != "given" {
		t.Errorf("times and ids: %+v", got)
	}
	if got[0].Text != "one" || got[1].Text != "two" || got[2].Text != "three" {
		t.Errorf("lines out of order: %+v", got)
	}
	if fi, err := os.Stat(e.j.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("journal dir: %v, %v; want mode 0700", fi, err)
	}
}

// A line's text fields are appended to the rest of the record rather than marshalled with
// it (one buffer for a 15 MB prompt): the line decodes to the record json.Marshal gives,
// for text with every kind of escape, invalid UTF-8 included, in each field and none.
func TestAppendLineDecodesAsMarshalled(t *testing.T) {
	e := newEnv(t)
	odd := "quote \" back \\ tab\t nl\n cr\r ctl\x01\x1f <html> & \u2028\u2029 é 中 😀 bad \xff\xfe end"
	recs := []journal.Record{
		{Kind: store.CapturePrompt, Session: "enc", Text: odd, ID: "p", At: 1, Redacted: map[string]int{"github": 2}, Day: "2026-12-01"},
		{Kind: store.CaptureEvent, Session: "enc", Hook: "PostToolUse", Tool: "Bash", ToolUseID: "t", Input: `{"command":"` + odd + `"}`, Response: odd, IsError: true, ID: "e", At: 2},
		{Kind: store.CaptureEnd, Session: "enc", Final: true, ID: "x", At: 3},
	}
	for _, r := range recs {
		mustAppend(t, e.j, r)
	}
	data, err := os.ReadFile(filepath.Join(e.j.Dir, "enc.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(recs), data)
	}
	for i, r := range recs {
		r.V = 1
		if r.Kind == store.CaptureAnswer {
			r.V = 2
		}
		want, _ := json.Marshal(r)
		var got, wantRec journal.Record
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d is not JSON (%v): %s", i, err, lines[i])
		}
		if err := json.Unmarshal(want, &wantRec); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantRec) {
			t.Errorf("line %d decodes to\n%+v\nwant (json.Marshal)\n%+v", i, got, wantRec)
		}
	}
}

// FileName keeps a plain session id and hashes any other, so no id names a path outside
// the journal dir.
func TestFileName(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, id := range []string{"abc", "0b7e-Session_1", long} {
		if got := journal.FileName(id); got != id+".jsonl" {
			t.Errorf("FileName(%q) = %q, want %q", id, got, id+".jsonl")
		}
	}
	hashed := regexp.MustCompile(`^h-[0-9a-f]{32}\.jsonl$`)
	seen := map[string]string{}
	for _, id := range []string{"../x", "a/b", "/etc/passwd", long + "a", "", ".", "..", "a.b", "x y", "é", "a\x00b"} {
		got := journal.FileName(id)
		if !hashed.MatchString(got) {
			t.Errorf("FileName(%q) = %q, want h-<hex>.jsonl", id, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("FileName(%q) = FileName(%q) = %q", id, other, got)
		}
		seen[got] = id
		if again := journal.FileName(id); again != got {
			t.Errorf("FileName(%q) not stable: %q then %q", id, got, again)
		}
	}
	// An id that would climb out of the dir lands inside it.
	e := newEnv(t)
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "../x", Text: "t"})
	if got := e.files(t); !slices.Equal(got, []string{"0/" + journal.FileName("../x")}) {
		t.Errorf("files after appending for ../x: %v", got)
	}
	if _, err := os.Stat(filepath.Join(e.data, "x.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file outside the journal dir: %v", err)
	}
}

// SessionFiles finds a session's journal and its claims in every dir, and not those of a
// session whose id extends it.
func TestSessionFiles(t *testing.T) {
	e := newEnv(t)
	dirs := e.j.Dirs()
	mk := func(dir, name string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := []string{
		mk(dirs[0], "a.jsonl"),
		mk(dirs[0], "a.jsonl.0123456789ab.ingesting"),
		mk(dirs[2], "a.jsonl"),
	}
	ab := []string{mk(dirs[0], "ab.jsonl"), mk(dirs[1], "ab.jsonl.ba9876543210.ingesting")}
	hashed := []string{mk(dirs[1], journal.FileName("../a"))}
	mk(dirs[0], "b.jsonl")
	for _, tc := range []struct {
		session string
		want    []string
	}{{"a", a}, {"ab", ab}, {"../a", hashed}, {"nobody", nil}} {
		got := journal.SessionFiles(dirs, tc.session)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("SessionFiles(%q) = %v, want %v", tc.session, got, want)
		}
	}
}

// When the data dir cannot take the line, it goes to the first fallback that can; when none
// can, Append says so with every dir's reason.
func TestAppendFallback(t *testing.T) {
	e := newEnv(t)
	if len(e.j.Fallbacks) != 2 {
		t.Fatalf("Fallbacks = %v, want the cache's and the temp dir's", e.j.Fallbacks)
	}
	breakDir(t, e.j.Dir)
	r := journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "to the cache", ID: "r1"}
	if dir := mustAppend(t, e.j, r); dir != e.j.Fallbacks[0] {
		t.Fatalf("Append went to %s, want %s", dir, e.j.Fallbacks[0])
	}
	if got := readLines(t, filepath.Join(e.j.Fallbacks[0], "s1.jsonl")); len(got) != 1 || got[0].ID != "r1" {
		t.Errorf("first fallback holds %+v", got)
	}
	if fi, err := os.Stat(e.j.Fallbacks[0]); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("fallback dir: %v, %v; want mode 0700", fi, err)
	}

	breakDir(t, filepath.Dir(e.j.Fallbacks[0])) // <cache>/claude-mem
	r = journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "to the temp dir", ID: "r2"}
	if dir := mustAppend(t, e.j, r); dir != e.j.Fallbacks[1] {
		t.Fatalf("Append went to %s, want %s", dir, e.j.Fallbacks[1])
	}
	if got := readLines(t, filepath.Join(e.j.Fallbacks[1], "s1.jsonl")); len(got) != 1 || got[0].ID != "r2" {
		t.Errorf("second fallback holds %+v", got)
	}

	breakDir(t, filepath.Dir(e.j.Fallbacks[1])) // <tmp>/claude-mem
	_, err := e.j.Append(journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "nowhere"})
	var ae *journal.AppendError
	if !errors.As(err, &ae) {
		t.Fatalf("Append with every dir broken: %v, want *AppendError", err)
	}
	if !slices.Equal(ae.Dirs, e.j.Dirs()) || len(ae.Errs) != 3 {
		t.Errorf("AppendError dirs %v, %d errors; want %v and 3", ae.Dirs, len(ae.Errs), e.j.Dirs())
	}
	if !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("AppendError does not wrap the dirs' ENOTDIR: %v", err)
	}
}

// Each data dir has its own fallback dirs: two data dirs sharing a cache and a temp dir
// never ingest each other's records.
func TestFallbacksPerDataDir(t *testing.T) {
	root := t.TempDir()
	cache, tmp := filepath.Join(root, "cache"), filepath.Join(root, "tmp")
	j1 := journal.New(filepath.Join(root, "d1"), "", cache, tmp, "", time.Now)
	j2 := journal.New(filepath.Join(root, "d2"), "", cache, tmp, "", time.Now)
	j1again := journal.New(filepath.Join(root, "d1")+"/", "", cache, tmp, "", time.Now)
	if len(j1.Fallbacks) != 2 || len(j2.Fallbacks) != 2 {
		t.Fatalf("fallbacks %v, %v", j1.Fallbacks, j2.Fallbacks)
	}
	for i := range 2 {
		if j1.Fallbacks[i] == j2.Fallbacks[i] {
			t.Errorf("fallback %d shared by two data dirs: %s", i, j1.Fallbacks[i])
		}
		if j1.Fallbacks[i] != j1again.Fallbacks[i] {
			t.Errorf("fallback %d of one data dir differs: %s, %s", i, j1.Fallbacks[i], j1again.Fallbacks[i])
		}
	}
	for i, base := range []string{cache, tmp} {
		if filepath.Dir(j1.Fallbacks[i]) != filepath.Join(base, "claude-mem") {
			t.Errorf("fallback %d = %s, want it in %s/claude-mem", i, j1.Fallbacks[i], base)
		}
	}
	if j := journal.New(filepath.Join(root, "d1"), "", "", tmp, "", time.Now); len(j.Fallbacks) != 1 || j.Fallbacks[0] != j1.Fallbacks[1] {
		t.Errorf("without a cache home: fallbacks %v, want only %s", j.Fallbacks, j1.Fallbacks[1])
	}

	// Records of d1 waiting in its fallback are not ingested into d2's database.
	breakDir(t, j1.Dir)
	mustAppend(t, j1, journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "d1's", Project: "p", At: t0.UnixNano()})
	if err := os.MkdirAll(filepath.Join(root, "d2"), 0o700); err != nil {
		t.Fatal(err)
	}
	db2, err := memory.Memory{DataDir: filepath.Join(root, "d2")}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if res, err := j2.Ingest(context.Background(), db2); err != nil || !reflect.DeepEqual(res, journal.Result{}) {
		t.Errorf("d2's ingestion: %+v, %v; want nothing", res, err)
	}
	if got := journal.SessionFiles(j1.Fallbacks, "s1"); len(got) != 1 {
		t.Errorf("d1's fallback journal: %v, want it still there", got)
	}
}

// Pending counts the records and files waiting in every dir (claims included), those in a
// fallback, and the oldest first record's time.
func TestPending(t *testing.T) {
	e := newEnv(t)
	if b, err := e.j.Pending(); err != nil || !reflect.DeepEqual(b, journal.Backlog{}) {
		t.Fatalf("Pending of no journal: %+v, %v", b, err)
	}
	rec := func(session string, at time.Time) journal.Record {
		return journal.Record{Kind: store.CapturePrompt, Session: session, Project: "p", Text: "t", At: at.UnixNano()}
	}
	oldest := t0.Add(-time.Hour)
	// Two records of s3 in the fallback, while the data dir refuses them.
	breakDir(t, e.j.Dir)
	mustAppend(t, e.j, rec("s3", t0.Add(-time.Minute)))
	mustAppend(t, e.j, rec("s3", t0.Add(-30*time.Second)))
	if err := os.Remove(e.j.Dir); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, e.j, rec("s1", t0))
	mustAppend(t, e.j, rec("s1", t0.Add(time.Second)))
	mustAppend(t, e.j, rec("s1", t0.Add(2*time.Second)))
	mustAppend(t, e.j, rec("s2", oldest))
	// A claim a killed ingester left, a file that is no journal, and an empty journal.
	mustAppend(t, e.j, rec("s4", t0))
	if err := os.Rename(filepath.Join(e.j.Dir, "s4.jsonl"), filepath.Join(e.j.Dir, "s4.jsonl.0123456789ab.ingesting")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.j.Dir, "notes.txt"), []byte("x\ny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.j.Dir, "empty.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := e.j.Pending()
	if err != nil {
		t.Fatal(err)
	}
	want := journal.Backlog{Records: 7, Files: 4, Oldest: oldest, InFallback: 2}
	if b.Records != want.Records || b.Files != want.Files || b.InFallback != want.InFallback || !b.Oldest.Equal(want.Oldest) {
		t.Errorf("Pending = %+v, want %+v", b, want)
	}
	for _, tc := range []struct {
		now  time.Time
		want bool
	}{
		{oldest, false},
		{oldest.Add(journal.StuckAfter - time.Nanosecond), false},
		{oldest.Add(journal.StuckAfter), true},
		{oldest.Add(journal.StuckAfter + time.Hour), true},
	} {
		if got := b.Stuck(tc.now); got != tc.want {
			t.Errorf("Stuck at oldest+%v = %v, want %v", tc.now.Sub(oldest), got, tc.want)
		}
	}
	if (journal.Backlog{Oldest: oldest}).Stuck(oldest.Add(time.Hour)) {
		t.Error("a backlog without records is stuck")
	}
	if (journal.Backlog{Records: 3}).Stuck(oldest.Add(time.Hour)) {
		t.Error("a backlog without a time is stuck")
	}
}

// appenderProcess is the child of TestConcurrentProcesses: it appends JOURNAL_N records
// with ids <JOURNAL_PREFIX>-<i> (concurrentRecord), waiting after each chunk for the
// parent's next ingestion pass (the count in the file JOURNAL_TICKS).
func appenderProcess() int {
	n, _ := strconv.Atoi(os.Getenv("JOURNAL_N"))
	prefix := os.Getenv("JOURNAL_PREFIX")
	j := journal.New(os.Getenv("JOURNAL_DATA"), "", os.Getenv("JOURNAL_CACHE"), os.Getenv("JOURNAL_TMP"), "", time.Now)
	tick := func() int {
		b, _ := os.ReadFile(os.Getenv("JOURNAL_TICKS"))
		n, _ := strconv.Atoi(string(b))
		return n
	}
	var from int
	for i := range n {
		if i%chunk == 0 {
			from = tick()
		}
		if _, err := j.Append(concurrentRecord(prefix, i)); err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			return 1
		}
		if i%chunk != chunk-1 {
			continue
		}
		if !testkit.Within(30*time.Second, func() bool { return tick() > from }) {
			fmt.Fprintln(os.Stderr, "no ingestion pass within 30 s")
			return 1
		}
	}
	return 0
}

// concurrentRecord is the i-th record of an appender: every appender writes to the same two
// sessions, so appenders contend for one file and the ingester claims files being written.
func concurrentRecord(prefix string, i int) journal.Record {
	r := journal.Record{ID: fmt.Sprintf("%s-%d", prefix, i), Session: fmt.Sprintf("s%d", i%2), Project: "p", Cwd: "/w/p"}
	if i%3 == 0 {
		r.Kind, r.Text = store.CapturePrompt, "prompt "+r.ID
	} else {
		r.Kind, r.Hook, r.Tool, r.Input, r.Response = store.CaptureEvent, "PostToolUse", "Bash", `{"command":"ls"}`, `{"stdout":"x"}`
	}
	return r
}

// Waiting answers from the dirs' listings: nothing before an append (the control), a
// journal after one, in a fallback dir too, and nothing once it is ingested.
func TestWaiting(t *testing.T) {
	e := newEnv(t)
	if e.j.Waiting() {
		t.Fatal("Waiting with no journal file")
	}
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "t"})
	if !e.j.Waiting() {
		t.Fatal("not Waiting after an append")
	}
	if _, err := e.j.Ingest(context.Background(), e.open(t)); err != nil {
		t.Fatal(err)
	}
	if e.j.Waiting() {
		t.Fatalf("Waiting after ingestion: %q", e.files(t))
	}
	breakDir(t, e.j.Dir)
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s2", Project: "p", Text: "t"})
	if err := os.Remove(e.j.Dir); err != nil { // the data dir's journal readable (empty) again
		t.Fatal(err)
	}
	if !e.j.Waiting() {
		t.Fatal("not Waiting with a record in a fallback dir")
	}
}

// TestDataDirJournalRefused: the data dir's own journal dir is used only when it is the
// user's alone: refused with the data dir (Refused), or a symlink planted in its place, the
// record goes to the fallback, nothing reaches the symlink's target, and the listing names
// the refusal. The control is the journal dir as made.
func TestDataDirJournalRefused(t *testing.T) {
	for _, c := range []string{"control", "refused with the data dir", "a symlink"} {
		t.Run(c, func(t *testing.T) {
			e := newEnv(t)
			elsewhere := filepath.Join(t.TempDir(), "theirs")
			os.Mkdir(elsewhere, 0o700)
			switch c {
			case "refused with the data dir":
				e.j.Refused = &private.Error{Path: e.data, Problem: "writable by group or others (mode 0777)"}
			case "a symlink":
				os.Symlink(elsewhere, e.j.Dir)
			}
			dir := mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s1", Text: "p", ID: "r1"})
			st := e.j.Status(nil)
			if c == "control" {
				if dir != e.j.Dir || len(st.Refused) != 0 {
					t.Fatalf("control: went to %s, refused %v", dir, st.Refused)
				}
				return
			}
			if dir != e.j.Fallbacks[0] {
				t.Fatalf("went to %s; want the fallback %s", dir, e.j.Fallbacks[0])
			}
			if got := testkit.Entries(t, elsewhere); len(got) != 0 {
				t.Errorf("the symlink's target received %v", got)
			}
			var pe *private.Error
			if len(st.Refused) != 1 || !errors.As(st.Refused[0], &pe) {
				t.Errorf("the listing refused %v; want the data dir's journal", st.Refused)
			}
		})
	}
}
