//go:build linux

package tests

// Issue 12's faults against the capture journal (DESIGN.md §15), on the built binary with
// real processes and real SQLite: a full data dir, a database locked by another process,
// SIGKILL at random moments of 40-process bursts and of ingestion, a journal nobody could
// ingest for 10 minutes, and an appender killed mid-line. The observer is off in all of
// them (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0): what is tested is capture and ingestion.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/journal"
)

// hookDeadline is the promise of §15: no hook waits more than 2 s on the database. The
// measure includes the process's start, as the user's turn sees it.
const hookDeadline = 2 * time.Second

// journalHarness is a harness with the observer off and the journal's fallback dirs (the
// user cache dir, then the temp dir) inside the test's root.
func journalHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "0"
	h.env["XDG_CACHE_HOME"] = filepath.Join(h.root, "cache")
	h.env["TMPDIR"] = filepath.Join(h.root, "tmp")
	h.env["TZ"] = "UTC"
	if err := os.MkdirAll(h.env["TMPDIR"], 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// journalDirs are the dirs a record of h's data dir is written to: <data>/journal, then the
// fallbacks under XDG_CACHE_HOME and TMPDIR (claude-mem-<uid>).
func (h *harness) journalDirs() []string {
	j := journal.New(h.data, h.env["XDG_RUNTIME_DIR"], h.env["XDG_CACHE_HOME"], h.env["TMPDIR"], strconv.Itoa(os.Getuid()), time.Now)
	return append([]string{j.Dir}, j.Fallbacks...)
}

// journalFiles lists every file (journal or claim) in the journal dirs.
func (h *harness) journalFiles() []string {
	h.t.Helper()
	var out []string
	for _, d := range h.journalDirs() {
		for _, n := range testkit.Entries(h.t, d) {
			out = append(out, filepath.Join(d, n))
		}
	}
	return out
}

// journalLine is the part of a journal line the tests read.
type journalLine struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Session   string `json:"session"`
	ToolUseID string `json:"tool_use_id"`
	At        int64  `json:"at"`
}

// journalLines reads every line of the journal dirs, per dir.
func (h *harness) journalLines() map[string][]journalLine {
	h.t.Helper()
	out := map[string][]journalLine{}
	for _, d := range h.journalDirs() {
		for _, n := range testkit.Entries(h.t, d) {
			b, err := os.ReadFile(filepath.Join(d, n))
			if err != nil {
				h.t.Fatal(err)
			}
			for ln := range bytes.Lines(b) {
				var l journalLine
				if err := json.Unmarshal(ln, &l); err != nil {
					h.t.Fatalf("%s: a line that is no record: %q", filepath.Join(d, n), clip(string(ln), ""))
				}
				out[d] = append(out[d], l)
			}
		}
	}
	return out
}

// storedEvents counts the stored events per tool_use_id, and all of them.
func (h *harness) storedEvents() (map[string]int, int) {
	h.t.Helper()
	return storedEventsIn(h.t, filepath.Join(h.data, "claude-mem.db"))
}

func storedEventsIn(t *testing.T, path string) (map[string]int, int) {
	t.Helper()
	out := map[string]int{}
	if _, err := os.Stat(path); err != nil {
		return out, 0
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT tool_use_id, count(*) FROM events GROUP BY tool_use_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
		total += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out, total
}

// dbCopy copies the database and its WAL to a dir of its own on the temp dir's filesystem
// (while no hook runs) and returns the copy's path.
func (h *harness) dbCopy() string {
	h.t.Helper()
	dir, err := os.MkdirTemp(h.root, "dbcopy-")
	if err != nil {
		h.t.Fatal(err)
	}
	for _, sfx := range []string{"", "-wal"} {
		b, err := os.ReadFile(filepath.Join(h.data, "claude-mem.db"+sfx))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			h.t.Fatal(err)
		}
		testkit.WriteFile(h.t, filepath.Join(dir, "claude-mem.db"+sfx), string(b), 0o600)
	}
	return filepath.Join(dir, "claude-mem.db")
}

// toolEvent is a PostToolUse(Bash) event with the given tool_use_id and a response of
// about size bytes (plain words: nothing the redactor replaces).
func (h *harness) toolEvent(sid, id string, size int) []byte {
	h.t.Helper()
	var out strings.Builder
	for i := 0; out.Len() < size; i++ {
		fmt.Fprintf(&out, "line %d of the build output for %s: compiled package ok\n", i, id)
	}
	f := h.base(sid)
	f["tool_use_id"] = id
	f["tool_input"] = map[string]any{"command": "make build # " + id, "description": "build"}
	f["tool_response"] = map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
	return fixtureEvent(h.t, "PostToolUse-Bash.json", f)
}

func (h *harness) hookEvent(name, sid string, fields map[string]any) []byte {
	h.t.Helper()
	f := h.base(sid)
	for k, v := range fields {
		f[k] = v
	}
	return fixtureEvent(h.t, name, f)
}

// timed runs hook mode on event and checks the contract every hook keeps whatever the
// fault: exit 0, stderr empty, back within hookDeadline. It returns stdout.
func (h *harness) timed(what string, event []byte, slowest *time.Duration) string {
	h.t.Helper()
	start := time.Now()
	r := h.runIn(h.proj, event, nil)
	d := time.Since(start)
	if r.code != 0 || r.stderr != "" {
		h.t.Fatalf("%s: exit %d, stderr %q (hook mode must exit 0 with stderr empty)", what, r.code, r.stderr)
	}
	if d >= hookDeadline {
		h.t.Errorf("%s took %v; no hook may wait %v", what, d.Round(time.Millisecond), hookDeadline)
	}
	if slowest != nil && d > *slowest {
		*slowest = d
	}
	return r.stdout
}

func parseSessionStart(t *testing.T, out string) sessionStartOut {
	t.Helper()
	var o sessionStartOut
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("SessionStart answered %q: %v", out, err)
	}
	return o
}

// noticeLines are the lines of a SessionStart context that start with prefix.
func noticeLines(ctx, prefix string) []string {
	var out []string
	for _, l := range strings.Split(ctx, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// lockDB holds the database's write lock from this process (BEGIN EXCLUSIVE on a
// dedicated connection: in WAL mode readers go on, every writer waits) until the returned
// function releases it.
func lockDB(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatalf("BEGIN EXCLUSIVE: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Errorf("ROLLBACK: %v", err)
			}
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// ---------------------------------------------------------------------------------------
// 1. A full data dir.

// TestJournal_FullDisk: the data dir is a 1 MiB tmpfs; 120 PostToolUse events of ~15 KB
// (and a Stop every 20) do not fit. Every hook exits 0 within 2 s, every event is kept
// (the data dir's journal, the fallback journal, or the database: each exactly once), and
// SessionStart gives the disk-full notice. Once space is back (the tmpfs grown to 200 MiB,
// over the 64 MiB notice threshold), one SessionStart stores every event exactly once,
// empties both journals, and the notice is gone.
func TestJournal_FullDisk(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	mountTmpfs(t, h.data, "1m")
	const sid, n = "full", 120
	var slowest time.Duration
	diskFull := "claude-mem: disk full — " + h.data + " has "
	h.timed("SessionStart", h.hookEvent("SessionStart-startup.json", sid, nil), &slowest)

	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("toolu_full_%03d", i)
		if out := h.timed("PostToolUse "+ids[i], h.toolEvent(sid, ids[i], 15<<10), &slowest); out != "" {
			t.Fatalf("PostToolUse printed %q", out)
		}
		if i%20 == 19 {
			h.timed("Stop", h.hookEvent("Stop-basic.json", sid, nil), &slowest)
		}
	}
	o := parseSessionStart(t, h.timed("SessionStart (disk full)", h.hookEvent("SessionStart-startup.json", sid, nil), &slowest))
	if got := noticeLines(o.HookSpecificOutput.AdditionalContext, diskFull); len(got) != 1 || !strings.HasSuffix(got[0], " MiB free; new events cannot be kept (details: "+hookBin+" doctor)") {
		t.Errorf("disk full: SessionStart's context has no disk-full notice:\n%s", o.HookSpecificOutput.AdditionalContext)
	}

	t.Logf("SessionStart on the full disk:\n%s", o.HookSpecificOutput.AdditionalContext)

	// Every event kept somewhere, each exactly once. The database is read from a copy on
	// another filesystem: a reader cannot map its -shm on the full tmpfs (SQLITE_IOERR_SHMSIZE).
	lines := h.journalLines()
	stored, _ := storedEventsIn(t, h.dbCopy())
	where := map[string][]string{}
	perDir := map[string]int{}
	for d, ls := range lines {
		for _, l := range ls {
			if l.Kind == "event" {
				where[l.ToolUseID] = append(where[l.ToolUseID], d)
				perDir[d]++
			}
		}
	}
	for id, c := range stored {
		for range c {
			where[id] = append(where[id], "the database")
		}
	}
	for _, id := range ids {
		if len(where[id]) != 1 {
			t.Errorf("event %s kept %d times (%v); want once", id, len(where[id]), where[id])
		}
	}
	if len(where) != n {
		t.Errorf("%d distinct events kept; want %d", len(where), n)
	}
	dirs := h.journalDirs()
	t.Logf("disk full: %d events in %s, %d in the fallback %s, %d in the database; slowest hook %v",
		perDir[dirs[0]], dirs[0], perDir[dirs[1]], dirs[1], len(stored), slowest.Round(time.Millisecond))
	if perDir[dirs[1]] == 0 {
		t.Fatalf("no event went to the fallback journal: the data dir never filled up (the test tests nothing)")
	}
	if perDir[dirs[2]] != 0 {
		t.Errorf("%d events in the temp-dir fallback; the cache dir had room", perDir[dirs[2]])
	}

	// Space comes back.
	if out, err := exec.Command("mount", "-o", "remount,size=200m", h.data).CombinedOutput(); err != nil {
		t.Fatalf("growing the tmpfs: %v: %s", err, out)
	}
	o = parseSessionStart(t, h.timed("SessionStart (space back)", h.hookEvent("SessionStart-startup.json", sid, nil), &slowest))
	if strings.Contains(o.HookSpecificOutput.AdditionalContext, "claude-mem: disk full") || strings.Contains(o.SystemMessage, "claude-mem: disk full") {
		t.Errorf("space back: the disk-full notice is still there:\n%s", o.HookSpecificOutput.AdditionalContext)
	}
	stored, total := h.storedEvents()
	for _, id := range ids {
		if stored[id] != 1 {
			t.Errorf("space back: event %s stored %d times; want once", id, stored[id])
		}
	}
	if total != n || len(stored) != n {
		t.Errorf("space back: %d events stored, %d distinct tool_use_ids; want %d and %d", total, len(stored), n, n)
	}
	if left := h.journalFiles(); len(left) > 0 {
		t.Errorf("space back: journal files left after SessionStart's ingestion: %v", left)
	}
	t.Logf("slowest hook %v", slowest.Round(time.Millisecond))
}

// ---------------------------------------------------------------------------------------
// 2. A locked database.

// TestJournal_LockedDatabase: another process holds the database's write lock for 20 s
// (BEGIN EXCLUSIVE). Meanwhile UserPromptSubmit, 30 PostToolUse, Stop, SessionStart and
// SessionEnd each return within 2 s with exit 0, and the database takes nothing (the
// control: the lock works). Once the lock goes, one `hook search` stores every record
// exactly once, the session's end included.
func TestJournal_LockedDatabase(t *testing.T) {
	track(t)
	t.Parallel()
	const hold = 20 * time.Second
	h := journalHarness(t)
	const sid = "locked"
	var slowest time.Duration
	h.timed("SessionStart", h.hookEvent("SessionStart-startup.json", sid, nil), &slowest)
	dbPath := filepath.Join(h.data, "claude-mem.db")
	release := lockDB(t, dbPath)
	locked := time.Now()

	times := map[string]time.Duration{}
	run := func(what string, ev []byte) string {
		var d time.Duration
		out := h.timed(what, ev, &d)
		times[what] = d
		slowest = max(slowest, d)
		return out
	}
	run("UserPromptSubmit", h.hookEvent("UserPromptSubmit-prompt.json", sid, map[string]any{"prompt": "Fix the flaky upload test"}))
	var ids []string
	for i := range 30 {
		ids = append(ids, fmt.Sprintf("toolu_locked_%02d", i))
		run("PostToolUse "+ids[i], h.toolEvent(sid, ids[i], 2<<10))
	}
	run("Stop", h.hookEvent("Stop-basic.json", sid, nil))
	o := parseSessionStart(t, run("SessionStart", h.hookEvent("SessionStart-startup.json", sid, nil)))
	run("SessionEnd", h.hookEvent("SessionEnd-other.json", sid, nil))
	ran := time.Since(locked)

	// The control: the lock really kept every writer out, so all of it waits in the journal.
	if _, total := h.storedEvents(); total != 0 {
		t.Fatalf("%d events reached the locked database: the lock did not hold", total)
	}
	kinds := map[string]int{}
	for _, ls := range h.journalLines() {
		for _, l := range ls {
			kinds[l.Kind]++
		}
	}
	if kinds["event"] != 30 || kinds["prompt"] != 1 || kinds["end"] != 1 {
		t.Fatalf("while locked the journal holds %v; want 30 events, 1 prompt, 1 end", kinds)
	}
	if !strings.Contains(o.HookSpecificOutput.AdditionalContext, "# claude-mem: proj") {
		t.Errorf("SessionStart under the lock gave no memory context: %q", o.HookSpecificOutput.AdditionalContext)
	}
	if ie := h.health().IngestError; !strings.Contains(ie, "locked") && !strings.Contains(ie, "busy") {
		t.Errorf("health.json ingest_error %q; want the lock named", ie)
	}

	// Hold the lock as long as the reproduction did (the hooks above ran in the
	// first seconds of it), then let it go.
	time.Sleep(time.Until(locked.Add(hold)))
	release()
	t.Logf("lock held %v (the %d hooks ran in its first %v); slowest hook %v; Stop %v, SessionStart %v, SessionEnd %v",
		time.Since(locked).Round(time.Millisecond), len(times), ran.Round(time.Millisecond), slowest.Round(time.Millisecond),
		times["Stop"].Round(time.Millisecond), times["SessionStart"].Round(time.Millisecond), times["SessionEnd"].Round(time.Millisecond))

	if r := h.runIn(h.work, nil, nil, "search", "x"); r.code != 0 {
		t.Fatalf("hook search after the lock: exit %d: %s", r.code, r.stderr)
	}
	stored, total := h.storedEvents()
	for _, id := range ids {
		if stored[id] != 1 {
			t.Errorf("event %s stored %d times; want once", id, stored[id])
		}
	}
	if total != 30 {
		t.Errorf("%d events stored; want 30", total)
	}
	if n := h.count(`SELECT count(*) FROM prompts WHERE session_id = ?`, sid); n != 1 {
		t.Errorf("%d prompts stored; want 1", n)
	}
	if n := h.count(`SELECT count(*) FROM sessions WHERE id = ? AND ended_at IS NOT NULL`, sid); n != 1 {
		t.Errorf("the session's end was not stored")
	}
	if left := h.journalFiles(); len(left) > 0 {
		t.Errorf("journal files left after ingestion: %v", left)
	}
	if ie := h.health().IngestError; ie != "" {
		t.Errorf("health.json still records the ingestion error %q after a successful pass", ie)
	}
}

// ---------------------------------------------------------------------------------------
// 3. SIGKILL bursts.

// burstProc is one process of a burst: what it was and how it ended.
type burstProc struct {
	what   string // "PostToolUse <id>", "search", "Stop"
	id     string // the tool_use_id of a PostToolUse
	kill   time.Duration
	killed bool // ended by our SIGKILL
	took   time.Duration
	ok     bool // exited 0
	stderr string
	err    error
}

// TestJournal_SIGKILLBursts: bursts of 40 concurrent PostToolUse processes with concurrent
// ingesters (`hook search x` and Stop), a seeded random third of all of them SIGKILLed:
// half of those 0–5 ms after their start, the rest 5–250 ms after it (a burst process
// lives 15–400 ms on 2 busy cores, so those land mid-work). After one final ingestion:
// every PostToolUse that exited 0 has its event stored exactly once, no event is stored twice, integrity_check is ok, and no
// journal or claim file is left.
func TestJournal_SIGKILLBursts(t *testing.T) {
	track(t)
	t.Parallel()
	const (
		bursts    = 4
		perBurst  = 40
		ingesters = 8 // per burst: half searches, half Stops
		seed      = 12
	)
	rng := rand.New(rand.NewPCG(seed, 2026))
	h := journalHarness(t)
	const sid = "bursts"
	h.hookMode(h.hookEvent("SessionStart-startup.json", sid, nil), nil)
	stop := h.hookEvent("Stop-basic.json", sid, nil)
	env := h.environ(nil)

	var all []*burstProc
	start := time.Now()
	for b := range bursts {
		type job struct {
			p     *burstProc
			stdin []byte
			args  []string
			dir   string
		}
		var jobs []job
		for i := range perBurst {
			id := fmt.Sprintf("toolu_burst_%d_%02d", b, i)
			jobs = append(jobs, job{p: &burstProc{what: "PostToolUse " + id, id: id}, stdin: h.toolEvent(sid, id, 4<<10), dir: h.proj})
		}
		for i := range ingesters {
			if i%2 == 0 {
				jobs = append(jobs, job{p: &burstProc{what: "search"}, args: []string{"search", "x"}, dir: h.work})
			} else {
				jobs = append(jobs, job{p: &burstProc{what: "Stop"}, stdin: stop, dir: h.proj})
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		// A third of the processes are killed: half of those 0–5 ms after their start
		// (in the runtime's start, before any work), the rest at a moment spread over a
		// burst process's life (15–350 ms here on 2 busy cores): mid-append, mid-claim,
		// mid-transaction, between commit and removal.
		for _, j := range jobs {
			switch {
			case rng.IntN(3) != 0:
			case rng.IntN(2) == 0:
				j.p.kill = time.Duration(rng.Int64N(int64(5*time.Millisecond))) + 1
			default:
				j.p.kill = 5*time.Millisecond + time.Duration(rng.Int64N(int64(245*time.Millisecond)))
			}
		}
		var wg sync.WaitGroup
		for _, j := range jobs {
			all = append(all, j.p)
			cmd := exec.Command(hookBin, j.args...)
			cmd.Env, cmd.Dir, cmd.Stdin = env, j.dir, bytes.NewReader(j.stdin)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			started := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if j.p.kill > 0 {
					time.Sleep(j.p.kill) // the random moment of the kill, not a wait for anything
					_ = cmd.Process.Signal(syscall.SIGKILL)
				}
				err := cmd.Wait()
				j.p.took = time.Since(started)
				j.p.stderr = errb.String()
				st := cmd.ProcessState
				switch {
				case st == nil:
					j.p.err = err
				case st.Sys().(syscall.WaitStatus).Signaled() && st.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
					j.p.killed = true
				case st.ExitCode() == 0:
					j.p.ok = true
				default:
					j.p.err = fmt.Errorf("%v (stderr %q)", err, errb.String())
				}
			}()
		}
		wg.Wait()
	}
	burstTime := time.Since(start)

	var kept, killedPosts, killedIngesters, aimed, killedStored int
	for _, p := range all {
		if p.err != nil {
			t.Errorf("%s: %v", p.what, p.err)
		}
		if p.kill > 0 {
			aimed++
		}
		switch {
		case p.killed && p.id != "":
			killedPosts++
		case p.killed:
			killedIngesters++
		case p.ok && p.id != "":
			kept++
		}
		if p.ok && p.what != "search" && p.stderr != "" {
			t.Errorf("%s exited 0 with stderr %q", p.what, p.stderr)
		}
	}
	var life []time.Duration
	for _, p := range all {
		if p.ok {
			life = append(life, p.took)
		}
	}
	slices.Sort(life)
	t.Logf("life of an unkilled process in a burst: min %v, median %v, max %v", life[0], life[len(life)/2], life[len(life)-1])
	if killedPosts == 0 || killedIngesters == 0 {
		t.Fatalf("the kills hit %d PostToolUse and %d ingesters; the test needs both (seed %d)", killedPosts, killedIngesters, seed)
	}

	// What the kills left for the final ingestion: journals, and claims of killed ingesters.
	var journals, claims int
	for _, f := range h.journalFiles() {
		switch {
		case strings.HasSuffix(f, ".jsonl"):
			journals++
		case strings.HasSuffix(f, ".ingesting"):
			claims++
		}
	}

	// The final ingestion, unkilled.
	if r := h.runIn(h.work, nil, nil, "search", "x"); r.code != 0 {
		t.Fatalf("final hook search: exit %d: %s", r.code, r.stderr)
	}
	stored, total := h.storedEvents()
	for _, p := range all {
		if p.id == "" {
			continue
		}
		if p.killed && stored[p.id] > 0 {
			killedStored++
		}
		switch n := stored[p.id]; {
		case p.ok && n != 1:
			t.Errorf("%s exited 0 but its event is stored %d times; want once", p.what, n)
		case n > 1:
			t.Errorf("%s (killed) stored %d times; at most once", p.what, n)
		}
	}
	if total != len(stored) {
		t.Errorf("%d events stored for %d distinct tool_use_ids: some stored twice", total, len(stored))
	}
	for id := range stored {
		if !strings.HasPrefix(id, "toolu_burst_") {
			t.Errorf("an event %q nobody sent is stored", id)
		}
	}
	db := h.db()
	var integrity string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("integrity_check: %q, %v", integrity, err)
	}
	db.Close()
	if left := h.journalFiles(); len(left) > 0 {
		t.Errorf("journal or claim files left after the final ingestion: %v", left)
	}
	t.Logf("seed %d: %d bursts of %d PostToolUse + %d ingesters in %v; %d aimed kills landed on %d PostToolUse and %d ingesters; "+
		"%d exited 0, %d events stored in all (%d of the killed); the final ingestion found %d journals and %d claims left by killed ingesters",
		seed, bursts, perBurst, ingesters, burstTime.Round(time.Millisecond), aimed, killedPosts, killedIngesters,
		kept, total, killedStored, journals, claims)
}

// ---------------------------------------------------------------------------------------
// 4. A journal nobody could ingest for 10 minutes.

// oldRecordLines are two journal lines of session "old", captured 11 minutes ago, in the
// format a hook writes (journal.Record: v, id, kind, session, project, cwd, at, ...):
// written by hand, so a change of the on-disk format fails here.
func (h *harness) writeOldRecords(at time.Time) {
	h.t.Helper()
	var b bytes.Buffer
	for _, r := range []map[string]any{
		{"v": 1, "id": "old-start-0001", "kind": "start", "session": "old", "project": "proj", "cwd": h.proj, "at": at.UnixNano()},
		{"v": 1, "id": "old-event-0001", "kind": "event", "session": "old", "project": "proj", "cwd": h.proj, "at": at.UnixNano() + 1,
			"hook": "PostToolUse", "tool": "Bash", "tool_use_id": "toolu_old_1",
			"input": `{"command":"go test ./..."}`, "response": `{"stdout":"ok"}`},
	} {
		line, err := json.Marshal(r)
		if err != nil {
			h.t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	testkit.WriteFile(h.t, filepath.Join(h.data, "journal", "old.jsonl"), b.String(), 0o600)
}

// TestJournal_StuckNotice: a journal record 11 minutes old that the database cannot take
// gives SessionStart the "events not stored" notice; once the cause is gone, the next
// SessionStart stores it and the notice is gone. Two causes: the database locked by
// another process (the notice names the lock), and another program's SQLite file at the
// database's path (memory unavailable too).
func TestJournal_StuckNotice(t *testing.T) {
	track(t)
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cause  func(h *harness) (cure func())
		reason string // in the notice's reason
	}{
		{"locked", func(h *harness) func() { return lockDB(h.t, filepath.Join(h.data, "claude-mem.db")) }, "locked"},
		{"foreign", foreignDB, "not a claude-mem database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := journalHarness(t)
			h.hookMode(h.hookEvent("SessionStart-startup.json", "first", nil), nil)
			old := time.Now().Add(-11 * time.Minute)
			h.writeOldRecords(old)
			cure := tc.cause(h)

			o := parseSessionStart(t, h.hookMode(h.hookEvent("SessionStart-startup.json", "next", nil), nil))
			// Waiting: the two old records and this SessionStart's own start record.
			want := "claude-mem: events not stored — 3 waiting in the journal since " + old.UTC().Format("2006-01-02 15:04 MST") + ": "
			got := noticeLines(o.HookSpecificOutput.AdditionalContext, "claude-mem: events not stored")
			if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.Contains(got[0], tc.reason) ||
				!strings.HasSuffix(got[0], "(details: "+hookBin+" doctor)") || !strings.Contains(o.SystemMessage, got[0]) {
				t.Fatalf("stuck journal: notice lines %q (system message %q); want one starting %q, naming %q",
					got, o.SystemMessage, want, tc.reason)
			}

			cure()
			o = parseSessionStart(t, h.hookMode(h.hookEvent("SessionStart-startup.json", "next", nil), nil))
			if strings.Contains(o.HookSpecificOutput.AdditionalContext, "claude-mem: events not stored") || o.SystemMessage != "" {
				t.Errorf("cause gone: notices remain: %q / %q", o.HookSpecificOutput.AdditionalContext, o.SystemMessage)
			}
			if stored, total := h.storedEvents(); stored["toolu_old_1"] != 1 || total != 1 {
				t.Errorf("cause gone: stored events %v; want toolu_old_1 once", stored)
			}
			if n := h.count(`SELECT count(*) FROM sessions WHERE id IN ('first', 'next', 'old')`); n != 3 {
				t.Errorf("%d of the 3 sessions stored", n)
			}
			if left := h.journalFiles(); len(left) > 0 {
				t.Errorf("journal files left: %v", left)
			}
		})
	}
}

// foreignDB puts another program's SQLite database at the database's path (ours moved
// aside); the cure puts ours back.
func foreignDB(h *harness) func() {
	h.t.Helper()
	path := filepath.Join(h.data, "claude-mem.db")
	aside := filepath.Join(h.root, "ours")
	if err := os.MkdirAll(aside, 0o700); err != nil {
		h.t.Fatal(err)
	}
	for _, sfx := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+sfx, filepath.Join(aside, "claude-mem.db"+sfx)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			h.t.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (9.5)`); err != nil {
		h.t.Fatal(err)
	}
	db.Close()
	return func() {
		h.t.Helper()
		if err := os.Rename(path, filepath.Join(h.root, "foreign.db")); err != nil {
			h.t.Fatal(err)
		}
		for _, sfx := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(filepath.Join(aside, "claude-mem.db"+sfx), path+sfx); err != nil && !errors.Is(err, fs.ErrNotExist) {
				h.t.Fatal(err)
			}
		}
	}
}

// TestJournal_DoctorShowsStuckJournal: doctor, asked while a record has waited 11 minutes
// in the journal, gives the same "events not stored" finding SessionStart gives (§11:
// every notice is a doctor finding; §15: the journal is named by doctor).
func TestJournal_DoctorShowsStuckJournal(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	h.hookMode(h.hookEvent("SessionStart-startup.json", "first", nil), nil)
	old := time.Now().Add(-11 * time.Minute)
	h.writeOldRecords(old)
	foreignDB(h)
	o := parseSessionStart(t, h.hookMode(h.hookEvent("SessionStart-startup.json", "next", nil), nil))
	notices := noticeLines(o.HookSpecificOutput.AdditionalContext, "claude-mem: events not stored")
	if len(notices) != 1 {
		t.Fatalf("SessionStart gave no stuck-journal notice: %q", o.HookSpecificOutput.AdditionalContext)
	}
	d, _ := h.doctor(nil)
	if !slices.Contains(d.Findings, notices[0]) {
		t.Errorf("doctor --json findings lack SessionStart's notice %q:\n%q", notices[0], d.Findings)
	}
	_, human := h.doctorHuman()
	if !strings.Contains(strings.Join(strings.Fields(human), " "), notices[0]) { // wrapped at the width
		t.Errorf("doctor lacks SessionStart's notice %q:\n%s", notices[0], human)
	}
}

// ---------------------------------------------------------------------------------------
// 5. An appender killed mid-line.

// TestJournal_TornLineCostsNoOtherRecord: an appender SIGKILLed inside its write leaves a
// line without its newline (a multi-page write stops at a page boundary when a fatal
// signal is pending). The next PostToolUse exits 0, so its event must be stored: the torn
// fragment alone is dropped.
func TestJournal_TornLineCostsNoOtherRecord(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	const sid = "torn"
	h.hookMode(h.toolEvent(sid, "toolu_torn_1", 1<<10), nil)
	f, err := os.OpenFile(filepath.Join(h.data, "journal", journal.FileName(sid)), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"v":1,"id":"killed-mid-write","kind":"event","session":"torn","proj`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.hookMode(h.toolEvent(sid, "toolu_torn_2", 1<<10), nil)
	h.hookMode(h.toolEvent(sid, "toolu_torn_3", 1<<10), nil)
	if r := h.runIn(h.work, nil, nil, "search", "x"); r.code != 0 {
		t.Fatalf("hook search: exit %d: %s", r.code, r.stderr)
	}
	stored, total := h.storedEvents()
	for _, id := range []string{"toolu_torn_1", "toolu_torn_2", "toolu_torn_3"} {
		if stored[id] != 1 {
			t.Errorf("%s stored %d times; want once (its hook exited 0)", id, stored[id])
		}
	}
	if total != 3 {
		t.Errorf("%d events stored; want 3", total)
	}
	if got := h.logsAt("error", "journal lines that held no record dropped"); len(got) != 1 || got[0]["lines"] != float64(1) {
		t.Errorf("want one ERROR line for the one dropped fragment; got %v", got)
	}
}

// TestJournal_KilledIngesterLeftovers: what an ingester SIGKILLed mid-pass leaves, made
// exactly (random kills rarely land in a pass's few milliseconds): a claim whose records
// were committed before the kill (between commit and removal) and a claim never
// committed. The next pass takes both over: nothing twice, nothing lost, nothing left.
func TestJournal_KilledIngesterLeftovers(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	const sid = "leftovers"
	jfile := filepath.Join(h.data, "journal", journal.FileName(sid))
	h.hookMode(h.toolEvent(sid, "toolu_left_1", 1<<10), nil)
	h.hookMode(h.toolEvent(sid, "toolu_left_2", 1<<10), nil)
	committed, err := os.ReadFile(jfile)
	if err != nil {
		t.Fatal(err)
	}
	if r := h.runIn(h.work, nil, nil, "search", "x"); r.code != 0 {
		t.Fatalf("hook search: exit %d: %s", r.code, r.stderr)
	}
	if stored, total := h.storedEvents(); total != 2 || len(stored) != 2 {
		t.Fatalf("first pass stored %v", stored)
	}
	// The claim of a pass killed after its commit, before its removal.
	testkit.WriteFile(t, jfile+".0123456789ab.ingesting", string(committed), 0o600)
	// The claim of a pass killed before its commit.
	h.hookMode(h.toolEvent(sid, "toolu_left_3", 1<<10), nil)
	if err := os.Rename(jfile, jfile+".ba9876543210.ingesting"); err != nil {
		t.Fatal(err)
	}
	// And a journal appended since.
	h.hookMode(h.toolEvent(sid, "toolu_left_4", 1<<10), nil)

	if r := h.runIn(h.work, nil, nil, "search", "x"); r.code != 0 {
		t.Fatalf("hook search: exit %d: %s", r.code, r.stderr)
	}
	stored, total := h.storedEvents()
	for _, id := range []string{"toolu_left_1", "toolu_left_2", "toolu_left_3", "toolu_left_4"} {
		if stored[id] != 1 {
			t.Errorf("%s stored %d times; want once", id, stored[id])
		}
	}
	if total != 4 {
		t.Errorf("%d events stored; want 4", total)
	}
	if left := h.journalFiles(); len(left) > 0 {
		t.Errorf("files left after the pass: %v", left)
	}
}

// TestJournal_LargePromptPeakRSS: UserPromptSubmit with a 15 MB prompt (prose with
// newlines, quotes and a tab, so JSON escapes it) journals the whole prompt with a peak RSS
// (wait4's ru_maxrss) of at most 64 MB: the event is read once, and the prompt is not copied
// whole again on its way to the journal line. The control, a one-line prompt, prints the
// plain figure: what the hook costs before any prompt.
func TestJournal_LargePromptPeakRSS(t *testing.T) {
	track(t)
	h := journalHarness(t)
	const limit = 64 << 20
	para := "The upload test flakes when the \"retry\" path runs twice;\tthe fix keeps one handle.\n"
	prompt := strings.Repeat(para, 15<<20/len(para))
	event := func(text string) *os.File {
		f := h.base("big-prompt")
		f["prompt"] = text
		path := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(path, fixtureEvent(t, "UserPromptSubmit-prompt.json", f), 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close() })
		return in
	}
	r, plain := h.measured(h.work, event("fix the flaky upload test"))
	if r.code != 0 {
		t.Fatalf("control: hook mode exit %d: %s", r.code, r.stderr)
	}
	in := event(prompt)
	fi, _ := in.Stat()
	r, rss := h.measured(h.work, in)
	t.Logf("UserPromptSubmit peak RSS: a one-line prompt %.1f MB; a %.1f MB prompt (%.1f MB event) %.1f MB",
		float64(plain)/1e6, float64(len(prompt))/1e6, float64(fi.Size())/1e6, float64(rss)/1e6)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("hook mode: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	var got int64
	for _, f := range h.journalFiles() {
		if fi, err := os.Stat(f); err == nil {
			got += fi.Size()
		}
	}
	if got < int64(len(prompt)) {
		t.Fatalf("the journal holds %d bytes; want the whole %d-byte prompt", got, len(prompt))
	}
	if rss > limit {
		t.Errorf("a %.1f MB prompt peaked at %.1f MB RSS; want at most 64 MB", float64(len(prompt))/1e6, float64(rss)/1e6)
	}
}
