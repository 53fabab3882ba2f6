package journal_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

var ctx = context.Background()

func mustIngest(t *testing.T, e *env, db *store.DB, want journal.Result) {
	t.Helper()
	res, err := e.j.Ingest(ctx, db)
	if err != nil || !reflect.DeepEqual(res, want) {
		t.Fatalf("Ingest = %+v, %v; want %+v, nil", res, err, want)
	}
}

// rowCounts is the number of sessions, prompts and events stored.
func rowCounts(t *testing.T, r *sql.DB) [3]int {
	t.Helper()
	return [3]int{
		queryInt(t, r, `SELECT count(*) FROM sessions`),
		queryInt(t, r, `SELECT count(*) FROM prompts`),
		queryInt(t, r, `SELECT count(*) FROM events`),
	}
}

// storedIDs are the record ids of every stored prompt and event, sorted.
func storedIDs(t *testing.T, r *sql.DB) []string {
	t.Helper()
	rows, err := r.Query(`SELECT record_id FROM prompts UNION ALL SELECT record_id FROM events ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTrip appends a session's start, prompt, two events (one failed) and Final end, and
// a prompt of a second session with a filled id and time.
func roundTrip(t *testing.T, e *env) {
	t.Helper()
	s1 := journal.Record{Session: "s1", Project: "alpha", Cwd: "/w/alpha"}
	rec := func(kind string, sec int, id string, f func(*journal.Record)) {
		r := s1
		r.Kind, r.ID, r.At = kind, id, t0.Add(time.Duration(sec)*time.Second).UnixNano()
		if f != nil {
			f(&r)
		}
		mustAppend(t, e.j, r)
	}
	rec(store.CaptureStart, 0, "", nil)
	rec(store.CapturePrompt, 1, "p1", func(r *journal.Record) { r.Text = "fix the build" })
	rec(store.CaptureEvent, 2, "e1", func(r *journal.Record) {
		r.Hook, r.Tool, r.ToolUseID, r.Input, r.Response = "PostToolUse", "Bash", "tu1", `{"command":"make"}`, `{"stdout":"ok"}`
	})
	rec(store.CaptureEvent, 3, "e2", func(r *journal.Record) {
		r.Hook, r.Tool, r.ToolUseID, r.Input, r.Response, r.IsError = "PostToolUseFailure", "Read", "tu2", `{"file_path":"/x"}`, "no such file", true
	})
	rec(store.CaptureEnd, 10, "", func(r *journal.Record) { r.Final = true })
	e.clock.set(t0.Add(20 * time.Second))
	mustAppend(t, e.j, journal.Record{Kind: store.CapturePrompt, Session: "s2", Project: "beta", Cwd: "/w/beta", Text: "second"})
}

// Every kind of record lands in the database with its fields; the files are gone; a second
// ingestion adds nothing.
func TestIngestRoundTrip(t *testing.T) {
	e := newEnv(t)
	roundTrip(t, e)
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Files: 2, Records: 6, Added: 4})
	e.noFiles(t)

	r := e.raw(t)
	sec := func(s int) int64 { return t0.Add(time.Duration(s) * time.Second).UnixNano() }
	if n := queryInt(t, r, `SELECT count(*) FROM sessions WHERE id = 's1' AND project = 'alpha' AND cwd = '/w/alpha'
		AND started_at = ? AND ended_at = ? AND final_pending = 1 AND final_attempts = 0`, sec(0), sec(10)); n != 1 {
		t.Errorf("session s1 row not as recorded")
	}
	if n := queryInt(t, r, `SELECT count(*) FROM sessions WHERE id = 's2' AND project = 'beta' AND cwd = '/w/beta'
		AND started_at = ? AND ended_at IS NULL AND final_pending = 0`, sec(20)); n != 1 {
		t.Errorf("session s2 row not as recorded")
	}
	if n := queryInt(t, r, `SELECT count(*) FROM prompts WHERE record_id = 'p1' AND session_id = 's1' AND project = 'alpha'
		AND text = 'fix the build' AND at = ?`, sec(1)); n != 1 {
		t.Errorf("prompt p1 not as recorded")
	}
	if n := queryInt(t, r, `SELECT count(*) FROM prompts WHERE session_id = 's2' AND project = 'beta' AND text = 'second'
		AND at = ? AND length(record_id) = 32`, sec(20)); n != 1 {
		t.Errorf("prompt of s2 (id and time filled by Append) not as recorded")
	}
	type event struct {
		session, project, hook, tool, toolUse, input, response, cwd, state string
		isError                                                            bool
		at                                                                 int64
	}
	for id, want := range map[string]event{
		"e1": {"s1", "alpha", "PostToolUse", "Bash", "tu1", `{"command":"make"}`, `{"stdout":"ok"}`, "/w/alpha", "pending", false, sec(2)},
		"e2": {"s1", "alpha", "PostToolUseFailure", "Read", "tu2", `{"file_path":"/x"}`, "no such file", "/w/alpha", "pending", true, sec(3)},
	} {
		var got event
		err := r.QueryRow(`SELECT session_id, project, hook, tool_name, tool_use_id, input, response, cwd, state, is_error, at
			FROM events WHERE record_id = ?`, id).Scan(&got.session, &got.project, &got.hook, &got.tool, &got.toolUse,
			&got.input, &got.response, &got.cwd, &got.state, &got.isError, &got.at)
		if err != nil || got != want {
			t.Errorf("event %s = %+v, %v; want %+v", id, got, err, want)
		}
	}
	before := rowCounts(t, r)
	if before != [3]int{2, 2, 2} {
		t.Errorf("rows (sessions, prompts, events) = %v, want [2 2 2]", before)
	}

	mustIngest(t, e, db, journal.Result{})
	if after := rowCounts(t, r); after != before {
		t.Errorf("rows after a second ingestion %v, want %v", after, before)
	}
}

// A pass killed between its commit and the removal leaves its claim: the next pass takes it
// over, adds nothing (not even a reset of the summary's attempts), and removes it.
func TestIngestCrashBetweenCommitAndRemoval(t *testing.T) {
	e := newEnv(t)
	roundTrip(t, e)
	saved := map[string][]byte{}
	for _, s := range []string{"s1", "s2"} {
		b, err := os.ReadFile(filepath.Join(e.j.Dir, journal.FileName(s)))
		if err != nil {
			t.Fatal(err)
		}
		saved[s] = b
	}
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Files: 2, Records: 6, Added: 4})
	if err := db.BeginFinal(ctx, "s1"); err != nil { // a final run started
		t.Fatal(err)
	}
	r := e.raw(t)
	before := rowCounts(t, r)
	for s, b := range saved {
		claim := filepath.Join(e.j.Dir, journal.FileName(s)+".0123456789ab.ingesting")
		if err := os.WriteFile(claim, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustIngest(t, e, db, journal.Result{Files: 2, Records: 6, Added: 0})
	e.noFiles(t)
	if after := rowCounts(t, r); after != before {
		t.Errorf("rows after the leftover claims %v, want %v", after, before)
	}
	if n := queryInt(t, r, `SELECT final_attempts FROM sessions WHERE id = 's1' AND final_pending = 1`); n != 1 {
		t.Errorf("final_attempts after the end ingested again: %d, want 1", n)
	}
}

// A torn last line and lines that hold no record are counted and dropped; the good lines
// are stored and the file removed.
func TestIngestDamagedLines(t *testing.T) {
	e := newEnv(t)
	good := func(id string) string {
		b, err := json.Marshal(journal.Record{V: 1, ID: id, Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: id, At: t0.UnixNano()})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	content := good("g1") +
		"garbage\n" +
		`{"v":1,"kind":"prompt","session":"s1","project":"p","at":1}` + "\n" + // no id
		`{"v":1,"id":"k","kind":"teleport","session":"s1","project":"p","at":1}` + "\n" + // no such kind
		"\n" +
		good("g2") +
		`{"v":1,"id":"torn","kind":"prompt","session":"s1","project":"p","text":"cut he` // its appender died mid-write
	if err := os.MkdirAll(e.j.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.j.Dir, "s1.jsonl"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Files: 1, Records: 2, Added: 2, Damaged: 5})
	e.noFiles(t)
	if got := storedIDs(t, e.raw(t)); !slices.Equal(got, []string{"g1", "g2"}) {
		t.Errorf("stored %v, want [g1 g2]", got)
	}
}

// A line of a later version is left for that version: its file stays (as a claim), its
// version-1 lines are stored, and later passes add nothing from it.
func TestIngestLaterVersionKept(t *testing.T) {
	e := newEnv(t)
	mustAppend(t, e.j, journal.Record{ID: "a1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "one"})
	if err := appendRaw(filepath.Join(e.j.Dir, "s1.jsonl"),
		fmt.Sprintf(`{"v":%d,"id":"future","kind":"prompt","session":"s1","project":"p","at":1,"text":"from the future","new_field":[1]}`, journal.Version+1)+"\n"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, e.j, journal.Record{ID: "a2", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "two"})
	content, err := os.ReadFile(filepath.Join(e.j.Dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Records: 2, Added: 2})
	files := e.files(t)
	if len(files) != 1 || !strings.HasPrefix(files[0], "0/s1.jsonl.") || !strings.HasSuffix(files[0], ".ingesting") {
		t.Fatalf("files after ingestion %v, want s1's claim", files)
	}
	if b, err := os.ReadFile(filepath.Join(e.j.Dir, strings.TrimPrefix(files[0], "0/"))); err != nil || !bytes.Equal(b, content) {
		t.Errorf("the claim holds %q, %v; want the journal as it was", b, err)
	}
	r := e.raw(t)
	if got := storedIDs(t, r); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("stored %v, want [a1 a2]", got)
	}

	// A later pass reads it again and adds nothing; a new journal of the session is
	// ingested and removed beside it.
	mustAppend(t, e.j, journal.Record{ID: "a3", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "three"})
	mustIngest(t, e, db, journal.Result{Files: 1, Records: 3, Added: 1})
	if got := e.files(t); !slices.Equal(got, files) {
		t.Errorf("files after the second pass %v, want %v", got, files)
	}
	if got := storedIDs(t, r); !slices.Equal(got, []string{"a1", "a2", "a3"}) {
		t.Errorf("stored %v, want [a1 a2 a3]", got)
	}
}

func appendRaw(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Records appended to a fallback while the data dir refused them are ingested, from every
// fallback, and their files removed.
func TestIngestReadsFallbacks(t *testing.T) {
	e := newEnv(t)
	cache := filepath.Dir(e.j.Fallbacks[0])
	breakDir(t, e.j.Dir)
	breakDir(t, cache)
	if dir := mustAppend(t, e.j, journal.Record{ID: "t1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "in the temp dir"}); dir != e.j.Fallbacks[1] {
		t.Fatalf("appended to %s, want %s", dir, e.j.Fallbacks[1])
	}
	if err := os.Remove(cache); err != nil {
		t.Fatal(err)
	}
	if dir := mustAppend(t, e.j, journal.Record{ID: "c1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "in the cache"}); dir != e.j.Fallbacks[0] {
		t.Fatalf("appended to %s, want %s", dir, e.j.Fallbacks[0])
	}
	if err := os.Remove(e.j.Dir); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, e.j, journal.Record{ID: "d1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "in the data dir"})
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Files: 3, Records: 3, Added: 3})
	e.noFiles(t)
	if got := storedIDs(t, e.raw(t)); !slices.Equal(got, []string{"c1", "d1", "t1"}) {
		t.Errorf("stored %v, want [c1 d1 t1]", got)
	}
}

// chunk is how many records an appender writes between two waits for an ingestion.
const chunk = 10

// ticks counts the ingestion passes that stored something. An appender takes the current
// tick before a chunk and, after it, waits for the next: a pass that stores that chunk
// comes, so appending and ingesting surely interleave, chunk after chunk.
type ticks struct {
	mu   sync.Mutex
	n    int
	next chan struct{}
	file string // when set, n is also written there, for appending processes
}

func newTicks(file string) *ticks { return &ticks{next: make(chan struct{}), file: file} }

func (k *ticks) current() (int, <-chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.n, k.next
}

func (k *ticks) advance() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n++
	close(k.next)
	k.next = make(chan struct{})
	if k.file == "" {
		return nil
	}
	tmp := k.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(k.n)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, k.file)
}

// waitTick waits for a pass after the one tick was taken at, for at most 30 s.
func waitTick(next <-chan struct{}) error {
	select {
	case <-next:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("no ingestion stored anything within 30 s")
	}
}

// concurrent runs ingesters in a loop while append (which returns once every appender is
// done) runs, then ingests once more and checks that every appended record is stored
// exactly once and that no file is left.
func concurrent(t *testing.T, e *env, ingesters int, k *ticks, want []string, append func()) {
	t.Helper()
	stop := make(chan struct{})
	var passes, claimed, addedLoop atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, ingesters)
	for range ingesters {
		db := e.open(t) // each ingester its own connection, as two processes would have
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := e.j.Ingest(ctx, db)
				if err == nil && res.Added > 0 {
					err = k.advance()
				}
				if err != nil {
					errs <- err
					return
				}
				passes.Add(1)
				claimed.Add(int64(res.Files))
				addedLoop.Add(int64(res.Added))
			}
		})
	}
	append()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Ingest while appending: %v", err)
	}
	db := e.open(t)
	res, err := e.j.Ingest(ctx, db)
	if err != nil {
		t.Fatalf("final Ingest: %v", err)
	}
	t.Logf("while appending: %d passes took %d files and stored %d records; the final pass %+v",
		passes.Load(), claimed.Load(), addedLoop.Load(), res)
	e.noFiles(t)
	got := storedIDs(t, e.raw(t))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		missing, extra := diff(want, got)
		t.Errorf("stored %d records, appended %d; missing %v; stored but not appended, or twice: %v", len(got), len(want), missing, extra)
	}
}

// diff is what of want got lacks, and what got holds beyond want (duplicates included);
// both sorted.
func diff(want, got []string) (missing, extra []string) {
	i, k := 0, 0
	for i < len(want) || k < len(got) {
		switch {
		case k == len(got) || (i < len(want) && want[i] < got[k]):
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[k] < want[i]:
			extra = append(extra, got[k])
			k++
		default:
			i++
			k++
		}
	}
	return missing, extra
}

// Goroutines append to the same two sessions while ingesters claim the files under them:
// an appender holding a renamed file's old inode writes into the claim the ingester reads,
// never into a removed file, and nothing is stored twice.
func TestConcurrentAppendAndIngest(t *testing.T) {
	const appenders, each = 6, 40
	for _, ingesters := range []int{1, 2} {
		t.Run(strconv.Itoa(ingesters)+" ingesters", func(t *testing.T) {
			e := newEnv(t)
			k := newTicks("")
			var want []string
			for g := range appenders {
				for i := range each {
					want = append(want, concurrentRecord("g"+strconv.Itoa(g), i).ID)
				}
			}
			concurrent(t, e, ingesters, k, want, func() {
				var wg sync.WaitGroup
				for g := range appenders {
					wg.Go(func() {
						var next <-chan struct{}
						for i := range each {
							if i%chunk == 0 {
								_, next = k.current()
							}
							if _, err := e.j.Append(concurrentRecord("g"+strconv.Itoa(g), i)); err != nil {
								t.Errorf("Append: %v", err)
							}
							if i%chunk == chunk-1 {
								if err := waitTick(next); err != nil {
									t.Error(err)
									return
								}
							}
						}
					})
				}
				wg.Wait()
			})
		})
	}
}

// The same across processes (the hooks of several sessions and the ingesting Stop hook):
// appending processes, each the test binary re-executed, while this one ingests.
func TestConcurrentProcesses(t *testing.T) {
	const procs, each = 3, 40
	e := newEnv(t)
	k := newTicks(filepath.Join(e.data, "ticks"))
	var want []string
	for p := range procs {
		for i := range each {
			want = append(want, concurrentRecord("p"+strconv.Itoa(p), i).ID)
		}
	}
	concurrent(t, e, 1, k, want, func() {
		var cmds []*exec.Cmd
		for p := range procs {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "JOURNAL_APPENDER=1", "JOURNAL_N="+strconv.Itoa(each),
				"JOURNAL_PREFIX=p"+strconv.Itoa(p), "JOURNAL_DATA="+e.data, "JOURNAL_CACHE="+e.cache,
				"JOURNAL_TMP="+e.tmp, "JOURNAL_TICKS="+k.file)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					cmd.Wait()
				}
				if stderr.Len() > 0 {
					t.Logf("appender %d: %s", p, stderr.Bytes())
				}
			})
			cmds = append(cmds, cmd)
		}
		for p, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("appender %d: %v", p, err)
			}
		}
	})
}

// IngestNoted returns a failed ingestion's error, which health.RecordIngest (as every
// ingestion point runs it) keeps in health.json with the first failure's time while it
// fails, and clears once an ingestion succeeds.
func TestIngestNotedRecordsFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  func(t *testing.T, e *env) *store.DB
	}{
		{"closed", func(t *testing.T, e *env) *store.DB {
			db := e.open(t)
			db.Close()
			return db
		}},
		{"read-only", func(t *testing.T, e *env) *store.DB {
			e.open(t).Close()
			db, err := memory.Memory{DataDir: e.data}.ReadStored()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			log := zerolog.Nop()
			ingest := func(db *store.DB) error {
				err := e.j.IngestNoted(ctx, db, log)
				if uerr := health.RecordIngest(e.data, e.clock.now(), err); uerr != nil {
					t.Fatal(uerr)
				}
				return err
			}
			// A success with nothing failed before writes nothing.
			if err := ingest(e.open(t)); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(settings.Layout(e.data).Health()); !os.IsNotExist(err) {
				t.Errorf("health.json after a clean ingestion: %v, want none", err)
			}

			bad := tc.bad(t, e)
			mustAppend(t, e.j, journal.Record{ID: "r1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "waits"})
			first := t0.Add(time.Minute)
			e.clock.set(first)
			if err := ingest(bad); err == nil {
				t.Fatal("IngestNoted with a bad database: no error")
			}
			h := loadHealth(t, e)
			if h.IngestError == "" || !h.IngestErrorAt.Equal(first) {
				t.Errorf("after a failure: ingest_error %q at %v; want a reason at %v", h.IngestError, h.IngestErrorAt, first)
			}
			raw := healthKeys(t, e)
			if _, ok := raw["ingest_error"]; !ok {
				t.Errorf("health.json has no ingest_error: %v", raw)
			}
			if _, ok := raw["ingest_error_at"]; !ok {
				t.Errorf("health.json has no ingest_error_at: %v", raw)
			}

			e.clock.set(first.Add(time.Hour))
			if err := ingest(bad); err == nil {
				t.Fatal("IngestNoted with a bad database, again: no error")
			}
			if h := loadHealth(t, e); h.IngestError == "" || !h.IngestErrorAt.Equal(first) {
				t.Errorf("after a second failure: ingest_error %q at %v; want the first failure's time %v", h.IngestError, h.IngestErrorAt, first)
			}
			if b, err := e.j.Pending(); err != nil || b.Records != 1 {
				t.Errorf("Pending after the failures: %+v, %v; want the record waiting", b, err)
			}

			e.clock.set(first.Add(2 * time.Hour))
			if err := ingest(e.open(t)); err != nil {
				t.Fatalf("IngestNoted with a good database: %v", err)
			}
			if h := loadHealth(t, e); h.IngestError != "" || !h.IngestErrorAt.IsZero() {
				t.Errorf("after a success: ingest_error %q at %v; want both cleared", h.IngestError, h.IngestErrorAt)
			}
			raw = healthKeys(t, e)
			if _, ok := raw["ingest_error"]; ok {
				t.Errorf("health.json keeps ingest_error: %v", raw)
			}
			if _, ok := raw["ingest_error_at"]; ok {
				t.Errorf("health.json keeps ingest_error_at: %v", raw)
			}
			e.noFiles(t)
			if got := storedIDs(t, e.raw(t)); !slices.Equal(got, []string{"r1"}) {
				t.Errorf("stored %v, want [r1]", got)
			}
		})
	}
}

func loadHealth(t *testing.T, e *env) health.Health {
	t.Helper()
	h, err := health.Load(e.data)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func healthKeys(t *testing.T, e *env) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(settings.Layout(e.data).Health())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// claims are the claim files of a journal in dir.
func claims(dir, name string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, name+".*.ingesting"))
	return m
}

// An appender that was writing when its file was claimed (it holds the file's lock) has its
// line read by the ingester, which waits for the lock before reading.
func TestIngestWaitsForAppenderMidWrite(t *testing.T) {
	e := newEnv(t)
	db := e.open(t)
	mustAppend(t, e.j, journal.Record{ID: "r1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "one"})
	path := filepath.Join(e.j.Dir, "s1.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := lockfile.TryLockOpen(f); !ok || err != nil {
		t.Fatalf("locking the journal as an appender: %v, %v", ok, err)
	}
	type result struct {
		res journal.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := e.j.Ingest(ctx, db)
		done <- result{res, err}
	}()
	testkit.Eventually(t, 10*time.Second, "the claim", func() bool { return !testkit.Exists(path) && len(claims(e.j.Dir, "s1.jsonl")) == 1 })
	line, err := json.Marshal(journal.Record{V: 1, ID: "r2", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "two", At: t0.UnixNano()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	lockfile.UnlockOpen(f)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Past the ingester's wait (a machine stalled for a second), the claim is left for
	// the next pass: what counts is that the line is stored and nothing is left.
	if r.res.Records != 2 {
		t.Logf("the pass %+v did not wait for the appender; a next pass takes its claim over", r.res)
		mustIngest(t, e, db, journal.Result{Files: 1, Records: 2, Added: 2})
	}
	e.noFiles(t)
	if got := storedIDs(t, e.raw(t)); !slices.Equal(got, []string{"r1", "r2"}) {
		t.Errorf("stored %v, want [r1 r2]", got)
	}
}

// openCount is how many of this process's descriptors are open on path (Linux: /proc).
func openCount(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if li, err := os.Stat(filepath.Join("/proc/self/fd", fd.Name())); err == nil && os.SameFile(fi, li) {
			n++
		}
	}
	return n
}

// An appender that opened its journal just before an ingester claimed, read and removed it
// writes its line to the session's new journal, not into the removed file.
func TestAppendAfterClaimRemovedReopens(t *testing.T) {
	e := newEnv(t)
	db := e.open(t)
	mustAppend(t, e.j, journal.Record{ID: "r1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "one"})
	path := filepath.Join(e.j.Dir, "s1.jsonl")
	// This test is the ingester: it holds the file's lock, so the appender opens the file
	// and waits for the lock.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := lockfile.TryLockOpen(f); !ok || err != nil {
		t.Fatalf("locking the journal: %v, %v", ok, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.j.Append(journal.Record{ID: "r2", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "two"})
		done <- err
	}()
	testkit.Eventually(t, 10*time.Second, "the appender to open the journal", func() bool { return openCount(t, path) == 2 })
	claim := path + ".0123456789ab.ingesting"
	if err := os.Rename(path, claim); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(claim); err != nil { // read, stored (r1 stands for it), removed
		t.Fatal(err)
	}
	lockfile.UnlockOpen(f)
	if err := <-done; err != nil {
		t.Fatalf("Append: %v", err)
	}
	mustIngest(t, e, db, journal.Result{Files: 1, Records: 1, Added: 1})
	if got := storedIDs(t, e.raw(t)); !slices.Equal(got, []string{"r2"}) {
		t.Errorf("stored %v, want [r2]: the line appended as the file was claimed is lost", got)
	}
}

// A session's records are stored in the order they were captured, its end after the rest,
// even when some wait in an older file read after the newer one: a claim left by a failed
// pass (it sorts after the session's new journal) or a fallback (read after the data dir).
// Otherwise the end finds no session row (it records nothing: no end time, no summary
// owed) or no event to summarize, and the session's start is a later record's time.
func TestIngestEndAfterOlderRecords(t *testing.T) {
	for _, tc := range []struct {
		older  string
		prompt bool // a prompt captured after the older records, beside the end
	}{{"claim", false}, {"claim", true}, {"fallback", false}, {"fallback", true}} {
		older := tc.older
		t.Run(fmt.Sprintf("%s prompt=%v", older, tc.prompt), func(t *testing.T) {
			e := newEnv(t)
			s := journal.Record{Session: "s1", Project: "p", Cwd: "/w/p"}
			at := func(sec int) int64 { return t0.Add(time.Duration(sec) * time.Second).UnixNano() }
			rec := func(kind string, sec int, id string) journal.Record {
				r := s
				r.Kind, r.At, r.ID = kind, at(sec), id
				if kind == store.CaptureEvent {
					r.Hook, r.Tool = "PostToolUse", "Bash"
				}
				if kind == store.CaptureEnd {
					r.Final = true
				}
				return r
			}
			switch older {
			case "claim": // a Stop whose ingestion failed (the database was busy)
				mustAppend(t, e.j, rec(store.CaptureStart, 0, ""))
				mustAppend(t, e.j, rec(store.CaptureEvent, 1, "e1"))
				closed := e.open(t)
				closed.Close()
				if _, err := e.j.Ingest(ctx, closed); err == nil {
					t.Fatal("Ingest with a closed database: no error")
				}
				if c := claims(e.j.Dir, "s1.jsonl"); len(c) != 1 {
					t.Fatalf("claims after the failed pass: %v", c)
				}
			case "fallback": // the data dir refused the appends for a while
				breakDir(t, e.j.Dir)
				mustAppend(t, e.j, rec(store.CaptureStart, 0, ""))
				mustAppend(t, e.j, rec(store.CaptureEvent, 1, "e1"))
				if err := os.Remove(e.j.Dir); err != nil {
					t.Fatal(err)
				}
			}
			want := journal.Result{Files: 2, Records: 3, Added: 1}
			if tc.prompt {
				mustAppend(t, e.j, rec(store.CapturePrompt, 5, "p1"))
				want.Records, want.Added = 4, 2
			}
			mustAppend(t, e.j, rec(store.CaptureEnd, 10, ""))
			db := e.open(t)
			mustIngest(t, e, db, want)
			e.noFiles(t)
			var started, ended sql.NullInt64
			var pending int
			if err := e.raw(t).QueryRow(`SELECT started_at, ended_at, final_pending FROM sessions WHERE id = 's1'`).Scan(&started, &ended, &pending); err != nil {
				t.Fatal(err)
			}
			if started.Int64 != at(0) || ended.Int64 != at(10) || pending != 1 {
				t.Errorf("session: started_at %v, ended_at %v, final_pending %d; want %d, %d, 1", started, ended, pending, at(0), at(10))
			}
		})
	}
}

// An answer is written as version 2 (the oldest that knows the kind: a build before it
// leaves the file for a newer one) and ingested into answers once; the prompt beside it
// stays version 1.
func TestAnswerRecordIsVersion2AndIngested(t *testing.T) {
	e := newEnv(t)
	mustAppend(t, e.j, journal.Record{ID: "p1", Kind: store.CapturePrompt, Session: "s1", Project: "p", Text: "why does it flake?"})
	mustAppend(t, e.j, journal.Record{ID: "a1", Kind: store.CaptureAnswer, Session: "s1", Project: "p", Text: "Because the retry races."})
	got := readLines(t, filepath.Join(e.j.Dir, "s1.jsonl"))
	if len(got) != 2 || got[0].V != 1 || got[1].V != 2 || got[1].Kind != store.CaptureAnswer {
		t.Fatalf("lines %+v; want a v1 prompt and a v2 answer", got)
	}
	db := e.open(t)
	mustIngest(t, e, db, journal.Result{Files: 1, Records: 2, Added: 2})
	var text, project string
	if err := e.raw(t).QueryRow(`SELECT text, project FROM answers WHERE session_id = 's1' AND record_id = 'a1'`).Scan(&text, &project); err != nil ||
		text != "Because the retry races." || project != "p" {
		t.Errorf("stored answer %q of %q, %v", text, project, err)
	}
}
