//go:build linux

package tests

// The observer as hook mode starts it (issue 7, "Shown by", second bullet): Stop starts
// `hook observe` detached and its observations become searchable; an auth failure pauses
// and sets health; a hang is killed at the timeout with its process group; 20 sessions
// stopping at once never run more observers than CLAUDE_MEM_MAX_CONCURRENT_AGENTS, and 0
// runs none. And issue 6's last point: no fixture secret in any log line or doctor output.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// TestObserve_StopStartsDetachedObserver_ObservationsBecomeSearchable: a Stop event in hook
// mode prints nothing and returns, leaving behind one `hook observe --session ID` in a
// session of its own (setsid), which outlives the hook; the session's observations become
// searchable with `hook search --json` and its events end done.
func TestObserve_StopStartsDetachedObserver_ObservationsBecomeSearchable(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	sid := "stop-detached"
	h.prompt(sid, "Investigate the websocket reconnect storm")
	h.toolUse(sid, "go test ./ws -run TestReconnectBackoff")
	h.toolUse(sid, "grep -rn backoff ws/")

	wait := h.startReaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), nil)
	var hits []searchHit
	testkit.Eventually(t, 20*time.Second, "the session's observations to become searchable", func() bool {
		hits = hits[:0]
		for _, hit := range h.search("fake", nil) {
			if hit.Session == sid && hit.Kind == "observation" {
				hits = append(hits, hit)
			}
		}
		return len(hits) > 0
	})
	out, procs, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	if out != "" {
		t.Errorf("Stop printed %q", out)
	}
	if len(procs) != 1 || !isObserveFor(procs[0], sid) {
		t.Fatalf("Stop left %+v behind, want exactly one `hook observe --session %s`", procs, sid)
	}
	if procs[0].Session != procs[0].Pid {
		t.Errorf("the observer runs in session %d, not a session of its own (pid %d): not detached", procs[0].Session, procs[0].Pid)
	}
	if st := h.states(sid); st["done"] != 2 || st["pending"] != 0 {
		t.Errorf("events %v, want 2 done", st)
	}
	recs := h.records()
	if len(recs) != 1 || !strings.Contains(recs[0].Stdin, "TestReconnectBackoff") {
		t.Errorf("fake runs %d, want one given the session's events on stdin", len(recs))
	}
	if !strings.HasPrefix(hits[0].Title, "Observed:") || hits[0].Project != "proj" {
		t.Errorf("hit %+v, want the fake's observation in project proj", hits[0])
	}
}

// TestObserve_AuthFailure_PausesAndSetsHealth: a Stop-started observer whose credential is
// rejected (401) sets health auth=failed and pauses: a direct `hook observe` and another
// Stop right after do not invoke claude again, the events stay pending and SessionStart
// shows the notice. Changing the credential lifts the pause at once: the next run works,
// health is ok and the notice is gone.
func TestObserve_AuthFailure_PausesAndSetsHealth(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.setScenario(fakeproto.Scenario{Status: 401})
	sid := "auth-pause"
	h.prompt(sid, "Bump the API client version")
	h.toolUse(sid, "go get example.com/client@v2")

	h.stop(sid)
	testkit.Eventually(t, 20*time.Second, "health.json auth=failed after the Stop-started observer", func() bool {
		hl, err := health.Load(h.data)
		return err == nil && hl.Auth.State == "failed"
	})
	testkit.Eventually(t, 20*time.Second, "the detached observer to exit", func() bool { return len(procsIn(h.data)) == 0 })
	if n := len(h.records()); n != 1 {
		t.Fatalf("claude ran %d times, want 1", n)
	}

	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("hook observe exit %d", r.code)
	}
	if _, procs := h.reaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), nil); len(procs) != 1 {
		t.Errorf("second Stop left %+v, want its one (paused) observer", procs)
	}
	if n := len(h.records()); n != 1 {
		t.Errorf("a paused observer invoked claude again: %d runs", n)
	}
	if n := len(h.logsAt("info", "observer paused")); n != 2 {
		t.Errorf("%d INFO 'observer paused' lines, want 2 (the direct run and the second Stop's)", n)
	}
	if st := h.states(sid); st["pending"] != 1 || st["done"]+st["failed"] != 0 {
		t.Errorf("events %v, want pending", st)
	}
	hl := h.health()
	if hl.Auth.Source != "env" || hl.LastRun == nil || hl.LastRun.Outcome != "auth_failed" || !hl.PausedUntil.After(time.Now()) {
		t.Errorf("health %+v, want auth failed for env, paused", hl)
	}
	if ss := h.sessionStart(sid); !strings.HasPrefix(ss.SystemMessage, "claude-mem: auth failed — env: ") {
		t.Errorf("SessionStart systemMessage %q, want the auth-failed notice", ss.SystemMessage)
	}

	// The user fixes the credential: the pause lifts without waiting 15 minutes.
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretOtherToken
	h.setScenario(fakeproto.Scenario{ValidCredentials: []string{secretOtherToken}})
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("hook observe exit %d", r.code)
	}
	if n := len(h.records()); n != 2 {
		t.Errorf("after the credential changed claude ran %d times in all, want 2", n)
	}
	if hl := h.health(); hl.Auth.State != "ok" || !hl.PausedUntil.IsZero() {
		t.Errorf("health after the fix %+v, want ok and no pause", hl.Auth)
	}
	if ss := h.sessionStart(sid); ss.SystemMessage != "" {
		t.Errorf("notice still shown after the fix: %q", ss.SystemMessage)
	}
}

// TestObserve_Hang_KilledAtTimeout_GrandchildGone_EventsPending: a claude that hangs after
// its init line (and has started a sleeping grandchild in its process group) is stopped at
// CLAUDE_MEM_OBSERVER_TIMEOUT=1 s, by SIGTERM or, when it ignores SIGTERM, by the kill
// after the grace period; the fake and its grandchild are gone, the run is transient, the
// events stay pending with no attempt counted and no observation stored.
func TestObserve_Hang_KilledAtTimeout_GrandchildGone_EventsPending(t *testing.T) {
	track(t)
	t.Parallel()
	for _, c := range []struct {
		name          string
		ignoreSIGTERM bool
	}{{"stops-on-sigterm", false}, {"ignores-sigterm", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			lineageTerminal.setup(h)
			h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
			h.env["CLAUDE_MEM_OBSERVER_TIMEOUT"] = "1"
			h.setScenario(fakeproto.Scenario{Hang: true, SpawnGrandchild: true, IgnoreSIGTERM: c.ignoreSIGTERM})
			sid := "hang-" + c.name
			h.toolUse(sid, "sleep infinity")
			if r := h.observe(sid, nil); r.code != 0 {
				t.Fatalf("hook observe exit %d: %s", r.code, r.stderr)
			}
			recs := h.records()
			if len(recs) != 1 || recs[0].Outcome != fakeproto.OutcomeHang || recs[0].GrandchildPID == 0 {
				t.Fatalf("records %+v, want one hung run with a grandchild", recs)
			}
			rec := recs[0]
			testkit.Eventually(t, 10*time.Second, fmt.Sprintf("the fake (pid %d) and its grandchild (pid %d) to be gone", rec.Pid, rec.GrandchildPID), func() bool {
				return procGone(rec.Pid) && procGone(rec.GrandchildPID)
			})
			if st := h.states(sid); st["pending"] != 1 || st["done"]+st["failed"]+st["processing"] != 0 {
				t.Errorf("events %v after the timeout, want pending", st)
			}
			if n := h.count(`SELECT attempts FROM events WHERE session_id = ?`, sid); n != 0 {
				t.Errorf("a timeout counted %d attempts", n)
			}
			hl := h.health()
			if hl.LastRun == nil || hl.LastRun.Outcome != "transient" || !strings.Contains(hl.LastRun.Reason, "timed out") {
				t.Errorf("last run %+v, want transient: timed out", hl.LastRun)
			}
			if len(h.observations("")) != 0 {
				t.Errorf("observations stored from a hung run")
			}
			if len(h.logsAt("warn", "transient failure")) != 1 {
				t.Errorf("want one WARN line for the transient failure")
			}
		})
	}
}

// recordInterval is one fake run: started when it began, ended when it wrote its record.
type recordInterval struct{ start, end int64 }

// recordIntervals reads when each fake run started (the record's name, <unix-nano>-<pid>)
// and ended (the record file's mtime, written last).
func recordIntervals(t *testing.T, fake string) []recordInterval {
	t.Helper()
	var out []recordInterval
	dir := fakeproto.RecordsDir(fake)
	for _, name := range testkit.Entries(t, dir) {
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		head, _, _ := strings.Cut(name, "-")
		start, err := strconv.ParseInt(head, 10, 64)
		if err != nil {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recordInterval{start, fi.ModTime().UnixNano()})
	}
	return out
}

// maxOverlap is the largest number of intervals running at one instant.
func maxOverlap(iv []recordInterval) int {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, i := range iv {
		edges = append(edges, edge{i.start, +1}, edge{i.end, -1})
	}
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].at != edges[b].at {
			return edges[a].at < edges[b].at
		}
		return edges[a].delta < edges[b].delta // an end before a start at the same instant
	})
	cur, best := 0, 0
	for _, e := range edges {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

// twentySessions stores one pending event in each of 20 sessions and returns their ids.
func twentySessions(h *harness, prefix string) []string {
	var ids []string
	for i := range 20 {
		sid := fmt.Sprintf("%s-%02d", prefix, i)
		h.toolUse(sid, fmt.Sprintf("make target-%02d", i))
		ids = append(ids, sid)
	}
	return ids
}

// TestObserve_TwentySessionsStoppingAtOnce_AtMostTwoObservers: 20 sessions with pending
// events stop at the same moment (20 concurrent hook-mode Stop events) with
// CLAUDE_MEM_MAX_CONCURRENT_AGENTS=2. Each claude run takes ≥ 300 ms (its apiKeyHelper
// sleeps; the fake records when it starts and its record is written when it ends); the
// largest number of runs alive at one instant is exactly 2, and every event ends done.
func TestObserve_TwentySessionsStoppingAtOnce_AtMostTwoObservers(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "2"
	h.env["CLAUDE_MEM_API_KEY_HELPER"] = helperScript(h, secretHelperKey, "0.3")
	h.setScenario(fakeproto.Scenario{ValidCredentials: []string{secretHelperKey}})
	ids := twentySessions(h, "burst")

	var wg sync.WaitGroup
	errs := make(chan string, len(ids))
	for _, sid := range ids {
		event := fixtureEvent(t, "Stop-basic.json", h.base(sid))
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := h.exec(h.proj, event, h.environ(nil))
			if err != nil || r.code != 0 || r.stdout != "" || r.stderr != "" {
				errs <- fmt.Sprintf("Stop %s: %v exit %d stdout %q stderr %q", sid, err, r.code, r.stdout, r.stderr)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	testkit.Eventually(t, 120*time.Second, "all 20 sessions' events to be done", func() bool { return h.states("")["done"] == len(ids) })
	testkit.Eventually(t, 30*time.Second, "every observer to exit", func() bool { return len(procsIn(h.data)) == 0 })

	recs := h.records()
	if len(recs) != len(ids) {
		t.Errorf("claude ran %d times, want %d (one per session)", len(recs), len(ids))
	}
	for _, r := range recs {
		if r.Credential.Source != fakeproto.CredHelper || r.Outcome != fakeproto.OutcomeOK {
			t.Errorf("run %d: credential %s outcome %s, want the (slow) helper and ok", r.Pid, r.Credential.Source, r.Outcome)
		}
	}
	iv := recordIntervals(t, h.fake)
	for _, i := range iv {
		// File times are coarse (a clock tick), so allow a little under the 300 ms sleep.
		if d := time.Duration(i.end - i.start); d < 250*time.Millisecond {
			t.Errorf("a run took %v, want about 300 ms or more (the helper's sleep)", d)
		}
	}
	if n := maxOverlap(iv); n != 2 {
		t.Errorf("at most %d claude runs were alive at once, want exactly 2 (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=2)", n)
	}
	if n := len(h.observations("")); n != len(ids) {
		t.Errorf("%d observations, want %d", n, len(ids))
	}
}

// TestObserve_TwentySessionsStoppingAtOnce_ZeroAgentsRunNone: the same burst with
// CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0: no Stop leaves any process behind (each runs under
// the reaper), claude never runs, and all 20 sessions' events stay pending.
func TestObserve_TwentySessionsStoppingAtOnce_ZeroAgentsRunNone(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "0"
	ids := twentySessions(h, "off")
	var waits []func() (string, []adoptedProc, error)
	for _, sid := range ids {
		waits = append(waits, h.startReaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), nil))
	}
	for i, wait := range waits {
		out, procs, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		if out != "" || len(procs) != 0 {
			t.Errorf("Stop %s printed %q and left %+v, want nothing", ids[i], out, procs)
		}
	}
	if n := len(h.records()); n != 0 {
		t.Errorf("claude ran %d times with 0 agents", n)
	}
	if st := h.states(""); st["pending"] != len(ids) {
		t.Errorf("events %v, want %d pending", st, len(ids))
	}
}

// TestNoFixtureSecretInLogsOrDoctorOutput (issue 6): every log line (data/logs/hook.log) and
// every output of the product (`hook doctor --json` and text, SessionStart, search, …)
// produced by the tests of these files is grepped for the fixture secrets, and none is found.
// Each harness scans its own outputs when its test ends; this test adds a run with every
// source at once (plus a proxy password and a secret passed with CLAUDE_MEM_PASS_ENV),
// doctor with each source pinned, an auth failure, then waits for the other tests and checks
// the totals.
func TestNoFixtureSecretInLogsOrDoctorOutput(t *testing.T) {
	t.Parallel()
	if len(secretsIn("x "+secretAPIKey+" y")) == 0 || len(secretsIn(secretTail[3:40])) == 0 || len(secretsIn("sk-a…(108)")) != 0 {
		t.Fatalf("the secret scan does not tell a secret from its redacted form")
	}
	h := newHarness(t)
	lineageMacDesktop.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["ANTHROPIC_API_KEY"] = secretAPIKey
	h.env["ANTHROPIC_AUTH_TOKEN"] = secretOtherToken
	h.env["CLAUDE_MEM_API_KEY_HELPER"] = helperScript(h, secretHelperKey, "")
	h.env["HTTPS_PROXY"] = "http://corp:MATRIXPROXYPASSWORD@proxy.corp.invalid:3128"
	h.env["CLAUDE_MEM_PASS_ENV"] = "AWS_SECRET_ACCESS_KEY,ANTHROPIC_AUTH_TOKEN"
	h.env["AWS_SECRET_ACCESS_KEY"] = "MATRIXAWSSECRET" + secretTail
	testkit.WriteFile(t, filepath.Join(h.data, ".env"), "CLAUDE_CODE_OAUTH_TOKEN="+secretDotEnvToken+"\nANTHROPIC_API_KEY="+secretAPIKey+"\n", 0o600)
	testkit.WriteFile(t, filepath.Join(h.home, ".claude", ".credentials.json"), credentialsJSON(secretCredsToken, time.Now().Add(time.Hour)), 0o600)
	h.setScenario(fakeproto.Scenario{ValidCredentials: []string{secretEnvToken}})

	sid := "secrets"
	h.prompt(sid, "Rotate the deploy keys")
	h.toolUse(sid, "./scripts/rotate.sh")
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("hook observe exit %d: %s", r.code, r.stderr)
	}
	if recs := h.records(); len(recs) != 1 || recs[0].Outcome != fakeproto.OutcomeOK {
		t.Fatalf("want one ok run")
	}
	h.doctor(nil)
	h.runIn(h.work, nil, nil, "doctor")
	for _, pin := range []string{"env", "apiKey", "apiKeyHelper", "keychain", "credentials"} {
		h.doctor(map[string]string{"CLAUDE_MEM_AUTH_SOURCE": pin})
	}
	h.setScenario(fakeproto.Scenario{Status: 401})
	h.toolUse(sid, "./scripts/rotate.sh --again")
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("hook observe exit %d", r.code)
	}
	if hl := h.health(); hl.Auth.State != "failed" {
		t.Fatalf("health auth %+v, want failed", hl.Auth)
	}
	h.sessionStart(sid)
	h.doctor(nil)
	h.finish() // scan now (it is idempotent), so the totals below include this test

	if p := testParallelism(); p >= 2 {
		done := make(chan struct{})
		go func() { trackedTests.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Minute):
			t.Fatalf("the other observer tests did not finish within 10 minutes")
		}
	} else {
		t.Logf("-test.parallel=%d: not waiting for the other tests (each scans its own outputs when it ends)", p)
	}
	leakScan.Lock()
	defer leakScan.Unlock()
	t.Logf("scanned %d harnesses: %d log lines, %d outputs (%d doctor --json)", leakScan.harnesses, leakScan.logLines, leakScan.outputs, leakScan.doctorOutputs)
	if len(leakScan.leaks) != 0 {
		t.Errorf("fixture secrets leaked:\n%s", strings.Join(leakScan.leaks, "\n"))
	}
	if leakScan.logLines == 0 || leakScan.doctorOutputs == 0 {
		t.Errorf("the scan saw %d log lines and %d doctor outputs: nothing was scanned", leakScan.logLines, leakScan.doctorOutputs)
	}
}
