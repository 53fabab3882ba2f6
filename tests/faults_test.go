//go:build linux

package tests

// Issue 12's faults, tried on the built binary: the apiKeyHelper never in any argv, no
// secret shape in any file of the data dir or any output, a child printing without end,
// a killed `hook observe`, and another program's database at the path.

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
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
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// allArgv reads the argv of every process on the machine (/proc/*/cmdline, what `ps` shows
// to any local user).
func allArgv() map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			out[pid] = string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	return out
}

// TestFaults_APIKeyHelperInNoArgv: while an apiKeyHelper observer runs, no process's argv
// holds the helper command; the child's argv names the run's settings file instead.
func TestFaults_APIKeyHelperInNoArgv(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	helper := helperScript(h, secretHelperKey, "")
	h.env["CLAUDE_MEM_API_KEY_HELPER"] = helper
	h.env["CLAUDE_MEM_OBSERVER_TIMEOUT"] = "3"
	h.setScenario(fakeproto.Scenario{Hang: true})
	sid := "helper-argv"
	h.prompt(sid, "Rotate the deploy key")
	h.toolUse(sid, "vault kv get secret/deploy")
	done := make(chan result, 1)
	go func() { r, _ := h.exec(h.work, nil, h.environ(nil), "observe", "--session", sid); done <- r }()
	var recs []fakeproto.Record
	testkit.Eventually(t, 20*time.Second, "the observer child to run (hang)", func() bool {
		recs = h.records()
		return len(recs) == 1
	})
	child := recs[0].Pid
	procs := allArgv()
	if !strings.Contains(procs[child], "--settings "+filepath.Join(h.data, "observer-sessions")) {
		t.Fatalf("the scan does not see the child's argv with --settings <run file>: %q", procs[child])
	}
	for pid, argv := range procs {
		if strings.Contains(argv, helper) || strings.Contains(argv, "apiKeyHelper") {
			t.Errorf("process %d shows the helper in its argv: %q", pid, argv)
		}
	}
	if recs[0].Credential.Source != fakeproto.CredHelper || recs[0].Credential.Value != secretHelperKey {
		t.Errorf("the child did not get the helper's key from the settings file: %+v", recs[0].Credential)
	}
	<-done
}

// TestFaults_NoSecretInDiagnostics: canaries of every shape, in the environment (a proxy
// token as the whole userinfo, a key in the base URL's query, a PASS_ENV variable named like
// a key), in a bad setting, and printed by the child on stdout and stderr, appear in no file
// under the data dir and in no output of the hooks, doctor or doctor --json.
func TestFaults_NoSecretInDiagnostics(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["HTTPS_PROXY"] = "http://CanaryProxyTokenB2x@proxy:8080"
	h.env["ANTHROPIC_BASE_URL"] = "https://gw/v1?api_key=CanaryBaseUrlKey7Q"
	h.env["MY_GATEWAY_KEY"] = "CanaryGatewayValue3Z"
	h.env["CLAUDE_MEM_PASS_ENV"] = "MY_GATEWAY_KEY"
	h.env["CLAUDE_MEM_LOG_LEVEL"] = "debug"
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "ghp_CanaryGitHub0a1B2c3D4e5F6g7H8i9J0kLm"
	cs := redacttest.Diagnostic()
	cs = append(cs, redacttest.Canary{Kind: "url_userinfo", Secret: "CanaryProxyTokenB2x"},
		redacttest.Canary{Kind: "url_query", Secret: "CanaryBaseUrlKey7Q"},
		redacttest.Canary{Kind: "env", Secret: "CanaryGatewayValue3Z"})
	var texts []string
	for _, c := range redacttest.Diagnostic() {
		texts = append(texts, c.Text)
	}
	h.setScenario(fakeproto.Scenario{Print: strings.Join(texts, "\n"), Stderr: strings.Join(texts, "\n")})
	sid := "canaries"
	h.prompt(sid, "Set up the gateway")
	h.toolUse(sid, "curl https://gw/v1/models")
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("observe exit %d: %s", r.code, r.stderr)
	}
	h.sessionStart(sid)
	_, human := h.doctorHuman()
	doc, _ := h.doctor(nil)
	if doc.Spawn == nil || !strings.Contains(strings.Join(doc.Spawn.Env, " "), "MY_GATEWAY_KEY=") {
		t.Fatalf("doctor shows no spawn spec with the passed variable: %+v", doc.Spawn)
	}
	var outs bytes.Buffer
	h.mu.Lock()
	for _, o := range h.outputs {
		outs.WriteString(o)
	}
	h.mu.Unlock()
	outs.WriteString(human)
	if leaks := redacttest.Leaks(outs.Bytes(), cs); len(leaks) > 0 {
		t.Errorf("outputs hold %d canaries: %+v", len(leaks), leaks)
	}
	files := 0
	filepath.WalkDir(h.data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		files++
		b, _ := os.ReadFile(p)
		for _, l := range redacttest.Leaks(b, cs) {
			t.Errorf("%s holds the %s canary %q", p, l.Kind, l.Secret)
		}
		return nil
	})
	runs := h.runDirs()
	if len(runs) != 1 || files < 5 {
		t.Fatalf("scanned %d files, %d run dirs: the run did not happen", files, len(runs))
	}
	// Control: the child really printed them (the transcript kept its scrubbed lines).
	tr, _ := os.ReadFile(filepath.Join(h.data, "observer-sessions", runs[0], "transcript.jsonl"))
	if !bytes.Contains(tr, []byte("[REDACTED:")) {
		t.Errorf("the transcript shows no scrubbed canary:\n%.2000s", tr)
	}
}

// doctorHuman runs `hook doctor` (the human report).
func (h *harness) doctorHuman() (int, string) {
	h.t.Helper()
	r := h.runIn(h.work, nil, nil, "doctor")
	return r.code, r.stdout
}

// TestFaults_FloodingChildIsStopped: a child printing 1 GiB is stopped once its stdout
// passes the cap (outcome error, "output too large"); the run dir stays under 20 MB and
// `hook observe`'s peak RSS (wait4 rusage) under 64 MB.
func TestFaults_FloodingChildIsStopped(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.setScenario(fakeproto.Scenario{FloodBytes: 1 << 30})
	sid := "flood"
	h.prompt(sid, "Dump the whole log")
	h.toolUse(sid, "cat /var/log/huge.log")
	// Run under the (small) reaper, which reads the wait4 rusage of `hook observe` (children
	// included); run straight from this test process, the child's peak would start at ours.
	rssFile := filepath.Join(h.root, "maxrss")
	cmd := exec.Command(reaper(t), hookBin, "observe", "--session", sid)
	cmd.Env = append(h.environ(nil), "REAPER_OUT="+filepath.Join(h.root, "reaped.jsonl"), "REAPER_MAXRSS="+rssFile)
	cmd.Dir = h.work
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	b, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatal(err)
	}
	kib, _ := strconv.ParseInt(string(b), 10, 64)
	rss := kib << 10 // ru_maxrss is in KiB on Linux
	var size int64
	filepath.WalkDir(filepath.Join(h.data, "observer-sessions"), func(p string, d fs.DirEntry, err error) error {
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	t.Logf("1 GiB child: stopped after %v; run dir %.1f MB; hook observe peak RSS %.1f MB", took, float64(size)/1e6, float64(rss)/1e6)
	if size >= 20e6 {
		t.Errorf("run dir %d bytes, want under 20 MB", size)
	}
	if rss >= 64e6 {
		t.Errorf("hook observe peak RSS %d bytes, want under 64 MB", rss)
	}
	hl := h.health()
	if hl.LastRun == nil || hl.LastRun.Outcome != "error" || !strings.Contains(hl.LastRun.Reason, "output too large") {
		t.Errorf("last run %+v, want error: output too large", hl.LastRun)
	}
}

// TestFaults_KilledObserveKeepsSlotAndOrphanIsReaped: SIGKILL of `hook observe` leaves its
// child holding the only agent slot (MAX_CONCURRENT_AGENTS=1): a second `hook observe`
// waits, never running a second child beside it, and stops the orphan once its timeout and
// grace have passed; then it runs its own.
func TestFaults_KilledObserveKeepsSlotAndOrphanIsReaped(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "1"
	const timeout = 2 * time.Second
	h.env["CLAUDE_MEM_OBSERVER_TIMEOUT"] = "2"
	h.setScenario(fakeproto.Scenario{Hang: true})
	for _, sid := range []string{"orphan-a", "orphan-b"} {
		h.prompt(sid, "Work in "+sid)
		h.toolUse(sid, "make "+sid)
	}
	first := exec.Command(hookBin, "observe", "--session", "orphan-a")
	first.Env, first.Dir = h.environ(nil), h.work
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var orphan int
	testkit.Eventually(t, 20*time.Second, "the first observer's child", func() bool {
		if recs := h.records(); len(recs) == 1 {
			orphan = recs[0].Pid
		}
		return orphan != 0
	})
	started := time.Now()
	first.Process.Kill()
	first.Wait()
	if procGone(orphan) {
		t.Fatal("the child died with its hook observe: nothing to test")
	}

	var mu sync.Mutex
	maxAlive, orphanGoneAt := 0, time.Time{}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			alive := 0
			for _, r := range h.records() {
				if !procGone(r.Pid) {
					alive++
				}
			}
			mu.Lock()
			maxAlive = max(maxAlive, alive)
			if orphanGoneAt.IsZero() && procGone(orphan) {
				orphanGoneAt = time.Now()
			}
			mu.Unlock()
		}
	}()
	if r := h.observe("orphan-b", nil); r.code != 0 {
		t.Fatalf("second observe exit %d", r.code)
	}
	close(stop)
	<-sampled
	recs := h.records()
	if len(recs) != 2 {
		t.Fatalf("%d children ran, want the orphan and the second run's", len(recs))
	}
	// The live run kills at timeout + 5 s kill grace; the reaper 2 s after that.
	const bound = timeout + 5*time.Second + 2*time.Second + 3*time.Second
	if orphanGoneAt.IsZero() || orphanGoneAt.Sub(started) > bound {
		t.Errorf("the orphan was stopped %v after its start, want within %v", orphanGoneAt.Sub(started), bound)
	}
	if maxAlive > 1 {
		t.Errorf("%d observer children ran at once with one slot", maxAlive)
	}
	if n := len(h.logsAt("warn", "stopped an observer child whose run was gone, past its timeout")); n != 1 {
		t.Errorf("%d reaper log lines, want 1", n)
	}
}

// TestFaults_ForeignDatabaseUntouched: another program's SQLite file at the database path
// (itself, or a symlink to it) is refused with the memory-unavailable notice (a symlink:
// the refused notice) and stays byte
// for byte the same through hooks and doctor; nothing is created beside it.
func TestFaults_ForeignDatabaseUntouched(t *testing.T) {
	track(t)
	t.Parallel()
	for _, link := range []bool{false, true} {
		h := newHarness(t)
		real := filepath.Join(h.work, "other-app.sqlite")
		raw, err := sql.Open("sqlite", "file:"+real)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec("CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO contacts (name) VALUES ('ada'); PRAGMA user_version = 7"); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		if err := os.MkdirAll(h.data, 0o700); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(h.data, "claude-mem.db")
		if link {
			if err := os.Symlink(real, db); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Rename(real, db); err != nil {
			t.Fatal(err)
		} else {
			real = db
		}
		before, _ := os.ReadFile(real)
		out := h.sessionStart("foreign")
		h.prompt("foreign", "hello")
		h.toolUse("foreign", "ls")
		h.stop("foreign")
		doc, _ := h.doctor(nil)
		// A symlink is refused as one (issue 31), before the file behind it is read.
		want, finding := "memory unavailable", "not a claude-mem database"
		if link {
			want = "claude-mem: refused " + db + " — a symlink"
			finding = want
		}
		if !strings.Contains(out.SystemMessage, want) || !strings.Contains(strings.Join(doc.Findings, "\n"), finding) {
			t.Errorf("link=%v: notice %q, doctor findings %q", link, out.SystemMessage, doc.Findings)
		}
		if after, _ := os.ReadFile(real); !bytes.Equal(after, before) {
			t.Errorf("link=%v: the foreign database was changed", link)
		}
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if _, err := os.Stat(real + suffix); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("link=%v: %s appeared", link, filepath.Base(real+suffix))
			}
		}
	}
}

// TestFaults_FullDiskWhileTheAnswerIsStored: the data dir (an 8 MiB tmpfs) fills up after
// the observer's answer is in its run's transcript and before the store takes it. Nothing
// of the answer is lost: while the disk is full its event waits claimed, no cost is
// counted twice or dropped, and doctor is not ok, saying what waits and why; once space is
// back, the next SessionStart starts a run that stores the answer from the transcript with
// its cost, without asking the model again, and doctor is ok.
func TestFaults_FullDiskWhileTheAnswerIsStored(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	mountTmpfs(t, h.data, "8m")
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	sid := "full-answer"
	h.prompt(sid, "Fix the refund rounding")
	h.toolUse(sid, "go test ./refunds")
	filler := filepath.Join(h.data, "filler")
	const cost = 0.125
	h.setScenario(fakeproto.Scenario{Answer: obsXML("bugfix", "Refunds round half to even"), FillDisk: filler,
		Usage: &fakeproto.Usage{InputTokens: 900, OutputTokens: 80, CostUSD: cost}})
	if r := h.observe(sid, nil); r.code == 0 {
		t.Logf("observe on the full disk exited 0: %s", r.stderr)
	}
	if fi, err := os.Stat(filler); err != nil || fi.Size() == 0 {
		t.Fatalf("the fake did not fill the disk (%v): the test tests nothing", err)
	}
	full, _ := h.doctor(nil)
	t.Logf("doctor on the full disk: ok %v, findings %q", full.OK, full.Findings)
	waits := "1 events' answers wait to be stored: disk full"
	if full.OK || !slices.ContainsFunc(full.Findings, func(f string) bool { return strings.HasPrefix(f, waits) }) {
		t.Errorf("doctor on the full disk: ok %v, findings %q; want not ok and %q", full.OK, full.Findings, waits)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	out, procs := h.reaped(fixtureEvent(t, "SessionStart-startup.json", h.base(sid)), nil)
	if !slices.ContainsFunc(procs, func(p adoptedProc) bool { return isObserveFor(p, sid) }) {
		t.Errorf("space back: SessionStart started no observer for %s (it printed %.300q, left %+v)", sid, out, procs)
	}
	if got := h.observations(sid); !slices.Equal(got, []string{"Refunds round half to even | About Refunds round half to even."}) {
		t.Errorf("space back: observations %q, want the answer's", got)
	}
	if st := h.states(sid); st["done"] != 1 || len(st) != 1 {
		t.Errorf("space back: events %v, want the one done", st)
	}
	var runs []string
	h.eachRow(`SELECT outcome || ' ' || answer || ' ' || cost_usd FROM runs`, func(r *sql.Rows) error {
		var s string
		err := r.Scan(&s)
		runs = append(runs, s)
		return err
	})
	if want := []string{"ok stored " + strconv.FormatFloat(cost, 'f', -1, 64)}; !slices.Equal(runs, want) {
		t.Errorf("space back: runs %q, want %q (the run recorded once, with its cost)", runs, want)
	}
	if n := len(h.records()); n != 1 {
		t.Errorf("the model was asked %d times, want once: the stored answer came from the transcript", n)
	}
	if logs := h.logsAt("warn", "storing the answer of a run whose process was gone, from its transcript"); len(logs) != 1 {
		t.Errorf("%d log lines of the answer stored late, want 1", len(logs))
	}
	// The 8 MiB tmpfs stays under the low-space mark, a problem of its own: that notice is
	// all doctor may still say.
	after, _ := h.doctor(nil)
	if slices.ContainsFunc(after.Findings, func(f string) bool { return !strings.HasPrefix(f, "claude-mem: disk full") }) {
		t.Errorf("space back: doctor ok %v, findings %q; want only the low-space notice", after.OK, after.Findings)
	}
}

// TestFaults_KilledObserveRequeuedAtOnce: a `hook observe` SIGKILLed mid-run (its child
// hangs) leaves its event claimed. While it runs, SessionStart starts nothing for the
// session and the event stays with it (the control: a live run is never requeued). Once
// it is killed, doctor says its event waits in a run whose process is gone, and the very
// next SessionStart, long before the 10-minute stale horizon and the observer timeout,
// starts a run that requeues the event and observes it; the killed run is counted as
// unrecorded in runs, hook stats and doctor's cost line.
func TestFaults_KilledObserveRequeuedAtOnce(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_OBSERVER_TIMEOUT"] = "300" // neither the timeout nor the reaper may be what frees it
	h.setScenario(fakeproto.Scenario{Hang: true})
	sid := "killed-observe"
	h.prompt(sid, "Make the importer resumable")
	h.toolUse(sid, "go test ./importer")
	first := exec.Command(hookBin, "observe", "--session", sid)
	first.Env, first.Dir = h.environ(nil), h.work
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	testkit.Eventually(t, 20*time.Second, "the first observer's child", func() bool {
		if recs := h.records(); len(recs) == 1 {
			child = recs[0].Pid
		}
		return child != 0
	})
	t.Cleanup(func() { syscall.Kill(-child, syscall.SIGKILL) }) // the orphan leads its own group
	started := time.Now()
	h.scriptAnswers(reply(obsXML("feature", "Importer resumes from its checkpoint")))

	// The control: the run lives; SessionStart leaves it alone.
	_, procs := h.reaped(fixtureEvent(t, "SessionStart-startup.json", h.base(sid)), nil)
	if slices.ContainsFunc(procs, func(p adoptedProc) bool { return isObserveFor(p, sid) }) {
		t.Errorf("SessionStart started an observer for %s while its run was alive", sid)
	}
	if st := h.states(sid); st["processing"] != 1 {
		t.Errorf("while the run lives: events %v, want the one processing", st)
	}
	gone := "1 events wait in observer runs whose process is gone"
	if d, _ := h.doctor(nil); slices.ContainsFunc(d.Findings, func(f string) bool { return strings.HasPrefix(f, gone) }) {
		t.Errorf("doctor says the live run is gone: %q", d.Findings)
	}

	first.Process.Kill()
	first.Wait()
	if d, _ := h.doctor(nil); !slices.ContainsFunc(d.Findings, func(f string) bool { return strings.HasPrefix(f, gone) }) {
		t.Errorf("killed: doctor findings %q, want %q…", d.Findings, gone)
	}
	_, procs = h.reaped(fixtureEvent(t, "SessionStart-startup.json", h.base(sid)), nil)
	took := time.Since(started)
	if !slices.ContainsFunc(procs, func(p adoptedProc) bool { return isObserveFor(p, sid) }) {
		t.Fatalf("the next SessionStart started no observer for %s (left %+v)", sid, procs)
	}
	t.Logf("killed run's event observed %v after the kill's run started", took.Round(time.Millisecond))
	if st := h.states(sid); st["done"] != 1 || len(st) != 1 {
		t.Errorf("after the next SessionStart: events %v, want the one done", st)
	}
	if got := h.observations(sid); len(got) != 1 || !strings.HasPrefix(got[0], "Importer resumes") {
		t.Errorf("observations %q", got)
	}
	if n := h.count(`SELECT count(*) FROM runs WHERE outcome = 'unrecorded' AND requeued AND events = 1`); n != 1 {
		t.Errorf("%d unrecorded runs, want the killed one", n)
	}
	if st := h.stats("--days", "1"); st.Total.Unrecorded != 1 || st.Total.Runs != 2 {
		t.Errorf("hook stats: %d runs, %d unrecorded; want 2, 1", st.Total.Runs, st.Total.Unrecorded)
	}
	if _, human := h.doctorHuman(); !strings.Contains(human, "(1 runs unrecorded: their process was gone before their cost was known)") {
		t.Errorf("doctor's cost line does not count the unrecorded run:\n%s", human)
	}
	if logs := h.logsAt("warn", "events of a run whose process was gone are pending again at once"); len(logs) != 1 {
		t.Errorf("%d requeue log lines, want 1", len(logs))
	}
}
