//go:build linux

package tests

// Observer cost (issue 14, "Shown by"): the fake claude reports known usage and cost in its
// result lines; hook stats adds them up exactly per day and project; a budget crossed
// mid-day stops every later run until the next local day, with the §11 notice; Stop
// batches events; an observation equal to a recent one is counted, not stored.

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/stats"
	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// costUsage is what every fake run reports.
var costUsage = fakeproto.Usage{InputTokens: 1200, OutputTokens: 300, CacheCreationTokens: 50, CacheReadTokens: 700,
	CostUSD: 0.75, DurationMS: 900, DurationAPIMS: 800}

// fixedAnswer is one observation, the same in every run: a second run in the same project
// within a week (store.DuplicateWindow) is a duplicate of the first.
const fixedAnswer = `<observation>
  <type>discovery</type>
  <title>Uploads retry three times</title>
  <subtitle>s</subtitle>
  <facts><fact>f</fact></facts>
  <narrative>The upload client retries three times with backoff.</narrative>
  <concepts><concept>retry</concept></concepts>
  <files_read></files_read>
  <files_modified></files_modified>
</observation>`

// shiftBack writes to the data dir's database the one thing a black-box test cannot do
// with the binary: let time pass (what is stored moves back instead of the clock forward).
// update is an UPDATE whose first argument is the shift in nanoseconds; it must move a row.
func (h *harness) shiftBack(d time.Duration, update string, args ...any) {
	h.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.data, "claude-mem.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(update, append([]any{d.Nanoseconds()}, args...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		h.t.Fatalf("%s moved no row (%v)", update, err)
	}
}

// shiftRunsBack lets a day pass for the runs' budget.
func (h *harness) shiftRunsBack(d time.Duration, where string) {
	h.t.Helper()
	h.shiftBack(d, `UPDATE runs SET started_at = started_at - ?1, ended_at = ended_at - ?1 WHERE `+where)
}

func (h *harness) stats(args ...string) stats.Report {
	h.t.Helper()
	r := h.runIn(h.work, nil, nil, append([]string{"stats", "--json"}, args...)...)
	var out stats.Report
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		h.t.Fatalf("hook stats: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	return out
}

// runs is times × costUsage for one day and project.
func runs(day, project string, n, events, observations, duplicates int) stats.Row {
	return stats.Row{Day: day, Project: project, Runs: n, Events: events, Observations: observations, Duplicates: duplicates,
		InputTokens: int64(n) * costUsage.InputTokens, OutputTokens: int64(n) * costUsage.OutputTokens,
		CacheCreationTokens: int64(n) * costUsage.CacheCreationTokens, CacheReadTokens: int64(n) * costUsage.CacheReadTokens,
		CostUSD: float64(n) * costUsage.CostUSD,
		// fixedAnswer is well-formed: every answer is stored as it is.
		Answers: map[vocab.Verdict]int{vocab.VerdictStored: n, vocab.VerdictSalvaged: 0, vocab.VerdictSkipped: 0, vocab.VerdictUnusable: 0},
		Reasons: map[vocab.Verdict]map[string]int{}}
}

func TestCost_StatsExactPerDayAndProject_DuplicatesCounted(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["TZ"] = "UTC"
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_DAILY_BUDGET_USD"] = "0"
	h.setScenario(fakeproto.Scenario{Answer: fixedAnswer, Usage: &costUsage})

	// proj, yesterday: one run of one event (moved back a day below).
	h.toolUse("old", "make build")
	if r := h.observe("old", nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	h.shiftRunsBack(24*time.Hour, "1")
	// proj, today: two runs, the second's observation a duplicate of the first's.
	h.toolUse("a", "go test ./upload")
	h.toolUse("a", "go test ./upload -run Retry")
	if r := h.observe("a", nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	h.toolUse("a", "git diff")
	if r := h.observe("a", nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	// other, today: the same observation is no duplicate in another project.
	proj := h.proj
	h.proj = filepath.Join(h.work, "other")
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	h.toolUse("b", "ls")
	if r := h.observe("b", nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	h.proj = proj

	today := time.Now().UTC().Format(time.DateOnly)
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	got := h.stats("--days", "2")
	want := []stats.Row{
		runs(today, "other", 1, 1, 1, 0),
		runs(today, "proj", 2, 3, 0, 1),
		runs(yesterday, "proj", 1, 1, 1, 0),
	}
	// proj today: the first run today is a duplicate of yesterday's (within the week), and so
	// is the second: no new observation, two duplicates.
	want[1].Observations, want[1].Duplicates = 0, 2
	if fmt.Sprint(got.Rows) != fmt.Sprint(want) {
		t.Fatalf("stats rows\n got %+v\nwant %+v", got.Rows, want)
	}
	if tot := runs("", "", 4, 5, 2, 2); fmt.Sprint(got.Total) != fmt.Sprint(tot) {
		t.Errorf("total %+v, want %+v", got.Total, tot)
	}
	if n := h.count(`SELECT count(*) FROM observations WHERE title = 'Uploads retry three times'`); n != 2 {
		t.Errorf("%d stored copies of the observation; want 2 (one per project)", n)
	}
	if st := h.states(""); st["done"] != 5 {
		t.Errorf("events %v; want all 5 done (a duplicate still completes its run)", st)
	}
	if got := h.stats("--days", "1", "--project", "proj"); fmt.Sprint(got.Rows) != fmt.Sprint(want[1:2]) {
		t.Errorf("--days 1 --project proj: %+v", got.Rows)
	}
	if r := h.runIn(h.work, nil, nil, "doctor"); !strings.Contains(r.stdout, "cost today   3 runs, 4 events, 1 observations, 2 duplicates skipped") ||
		!strings.Contains(r.stdout, "cost 7 days  4 runs, 5 events, 2 observations, 2 duplicates skipped") {
		t.Errorf("doctor does not show today's and the week's totals:\n%s", r.stdout)
	}
}

// TestCost_BudgetCrossedMidDay: two runs of $0.75 reach a $1.50 budget; the next Stop
// starts nothing, a direct `hook observe` does not run claude, the event stays pending and
// SessionStart and doctor show the notice. When the day is over (the runs moved back a day)
// the notice is gone and the next Stop runs the backlog.
func TestCost_BudgetCrossedMidDay(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["TZ"] = "UTC"
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["CLAUDE_MEM_DAILY_BUDGET_USD"] = "1.50"
	h.setScenario(fakeproto.Scenario{Usage: &costUsage})
	sid := "budget"
	for i := range 2 {
		h.toolUse(sid, fmt.Sprintf("step %d", i))
		h.stop(sid)
		testkit.Eventually(t, 20*time.Second, "the Stop-started run", func() bool { return h.states(sid)["done"] == i+1 })
		testkit.Eventually(t, 20*time.Second, "the observer to exit", func() bool { return len(procsIn(h.data)) == 0 })
	}
	h.toolUse(sid, "step 2")
	if _, procs := h.reaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), nil); len(procs) != 0 {
		t.Fatalf("budget reached: Stop left %+v behind; want nothing started", procs)
	}
	const reached = "observer budget reached; events stay pending until the next local day"
	if r := h.observe(sid, nil); r.code != 0 || len(h.logsAt("info", reached)) != 1 {
		t.Fatalf("a direct hook observe over budget: exit %d, or no INFO line in %v", r.code, h.logLines())
	}
	if n := len(h.records()); n != 2 {
		t.Fatalf("claude ran %d times; want 2", n)
	}
	if st := h.states(sid); st["pending"] != 1 {
		t.Fatalf("events %v; want the third pending", st)
	}
	midnight := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly) + " 00:00 UTC"
	want := "claude-mem: observer budget reached — $1.50 of $1.50 today; observations paused until " + midnight + ", nothing lost (details: " + hookBin + " doctor)"
	if got := h.sessionStart("next").SystemMessage; got != want {
		t.Fatalf("notice\n got %q\nwant %q", got, want)
	}
	if d, _ := h.doctor(nil); !slices.Contains(d.Findings, want) {
		t.Errorf("doctor findings %q lack the notice", d.Findings)
	}

	h.shiftRunsBack(24*time.Hour, "1") // the day is over
	if got := h.sessionStart("next").SystemMessage; got != "" {
		t.Fatalf("next day: notice %q still there", got)
	}
	h.stop(sid)
	testkit.Eventually(t, 20*time.Second, "the backlog run on the next day", func() bool { return h.states(sid)["done"] == 3 })
	if n := len(h.records()); n != 3 {
		t.Errorf("claude ran %d times; want 3", n)
	}
}

// TestCost_StopBatches: with the default batch of 10, 9 events and a Stop start nothing; the
// 10th does; one event older than CLAUDE_MEM_BATCH_WAIT does; SessionEnd flushes one.
func TestCost_StopBatches(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	delete(h.env, "CLAUDE_MEM_BATCH_EVENTS") // the default, 10
	stopLeaves := func(sid string, extra map[string]string) int {
		_, procs := h.reaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), extra)
		return len(procs)
	}
	for i := range 9 {
		h.toolUse("nine", fmt.Sprint("cmd ", i))
	}
	if n := stopLeaves("nine", nil); n != 0 {
		t.Fatalf("9 events + Stop started %d processes; want none", n)
	}
	h.toolUse("nine", "cmd 9")
	if n := stopLeaves("nine", nil); n != 1 {
		t.Fatalf("10 events + Stop started %d processes; want the observer", n)
	}

	// A wait of an hour no slow machine spans; the event is then made older than it in
	// the database (the first Stop ingested it), as the run times are moved for the budget.
	wait := map[string]string{"CLAUDE_MEM_BATCH_WAIT": "3600"}
	h.toolUse("old", "ls")
	if n := stopLeaves("old", wait); n != 0 {
		t.Fatalf("1 fresh event + Stop started %d processes; want none", n)
	}
	h.shiftBack(61*time.Minute, `UPDATE events SET at = at - ? WHERE session_id = ?`, "old")
	if n := stopLeaves("old", wait); n != 1 {
		t.Fatalf("1 event older than the wait + Stop started %d processes; want the observer", n)
	}

	h.toolUse("end", "ls")
	_, procs := h.reaped(fixtureEvent(t, "SessionEnd-other.json", h.base("end")), nil)
	if len(procs) != 1 {
		t.Fatalf("SessionEnd with 1 event started %d processes; want the final observer", len(procs))
	}
	if st := h.states(""); st["done"] != 12 {
		t.Errorf("events %v; want all 12 done", st)
	}
}
