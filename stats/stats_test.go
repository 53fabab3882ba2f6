package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

func TestBuildAndRender(t *testing.T) {
	ctx := context.Background()
	db, err := memory.Memory{DataDir: t.TempDir()}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loc := time.FixedZone("west", -5*3600)
	now := time.Date(2026, 11, 30, 20, 0, 0, 0, loc)
	for _, r := range []store.RunRecord{
		{ID: "a", Project: "api", Outcome: "ok", StartedAt: now.Add(-time.Hour), Events: 10, Observations: 4, Duplicates: 1,
			Usage:  store.Usage{InputTokens: 12000, OutputTokens: 900, CacheReadTokens: 3000, CostUSD: 0.02},
			Answer: vocab.VerdictSalvaged, Reasons: []string{"code_fence", "truncated"}},
		{ID: "a2", Project: "api", Outcome: "ok", StartedAt: now.Add(-time.Hour), Answer: vocab.VerdictUnusable, Reasons: []string{"prose_only"}},
		{ID: "a3", Project: "api", Outcome: "ok", StartedAt: now.Add(-time.Hour), Answer: vocab.VerdictUnusable, Reasons: []string{"prose_only"}},
		{ID: "a4", Project: "api", Outcome: "transient", StartedAt: now.Add(-time.Hour)},                                        // no answer: no verdict
		{ID: "a5", Project: "api", Outcome: vocab.OutcomeUnrecorded, StartedAt: now.Add(-time.Hour), Events: 2, Requeued: true}, // its process was gone
		{ID: "b", Project: "web", Outcome: "ok", StartedAt: now.Add(-2 * time.Hour), Events: 3, Observations: 1, Usage: store.Usage{CostUSD: 0.01}},
		{ID: "c", Project: "api", Outcome: "ok", StartedAt: now.AddDate(0, 0, -7), Events: 5, Usage: store.Usage{CostUSD: 9}}, // outside 7 days
	} {
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Build(ctx, db, now, loc, 7, "api", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := Row{Runs: 5, Unrecorded: 1, Events: 10, Observations: 4, Duplicates: 1, InputTokens: 12000, OutputTokens: 900, CacheReadTokens: 3000, CostUSD: 0.02,
		Answers: map[vocab.Verdict]int{vocab.VerdictStored: 0, vocab.VerdictSalvaged: 1, vocab.VerdictSkipped: 0, vocab.VerdictUnusable: 2},
		Reasons: map[vocab.Verdict]map[string]int{vocab.VerdictSalvaged: {"code_fence": 1, "truncated": 1}, vocab.VerdictUnusable: {"prose_only": 2}}}
	if len(r.Rows) != 1 || r.Rows[0].Day != "2026-11-30" || !reflect.DeepEqual(r.Total, want) {
		t.Fatalf("rows %+v total %+v; want one row for api today and total %+v", r.Rows, r.Total, want)
	}
	// The budget counts every project, whatever the report shows.
	if r.TodayUSD != 0.03 || !r.From.Equal(time.Date(2026, 11, 24, 0, 0, 0, 0, loc)) {
		t.Errorf("today $%v from %v", r.TodayUSD, r.From)
	}
	var b bytes.Buffer
	Render(&b, r)
	if rate := r.Total.UnusableRate(); rate != 2.0/3 {
		t.Errorf("unusable rate %v, want 2/3", rate)
	}
	for _, s := range []string{"today $0.0300 of the $5.00 daily budget", "2026-11-30", "12,000", "0.0200", "total",
		"stored  salvaged  skipped  unusable  unrecorded", "2026-11-30 api: salvaged: code_fence 1, truncated 1; unusable: prose_only 2"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("rendered report lacks %q:\n%s", s, b.String())
		}
	}
	if l := r.Total.Line(); !strings.Contains(l, "$0.0200 (1 runs unrecorded: their process was gone before their cost was known)") {
		t.Errorf("doctor's line does not say the cost leaves a run out: %s", l)
	}
	// --json names every verdict, zeros too; a report with no answers has no reasons.
	j, _ := json.Marshal(r.Total)
	if !strings.Contains(string(j), `"answers":{"salvaged":1,"skipped":0,"stored":0,"unusable":2}`) ||
		!strings.Contains(string(j), `"answer_reasons":{"salvaged":{"code_fence":1,"truncated":1},"unusable":{"prose_only":2}}`) {
		t.Errorf("json %s", j)
	}
	e, _ := json.Marshal(Empty(now, loc, 7, "", 5).Total)
	if !strings.Contains(string(e), `"answers":{"salvaged":0,"skipped":0,"stored":0,"unusable":0},"answer_reasons":{}`) {
		t.Errorf("empty report json %s", e)
	}
	b.Reset()
	Render(&b, Empty(now, loc, 7, "", 5))
	if strings.Contains(b.String(), "by reason") {
		t.Errorf("a report without reasons renders them:\n%s", b.String())
	}
}

// Redactions per kind over the report's days and project, from what ingestion counted; a
// day before the report and another project are not counted (the controls).
func TestRedactedByKind(t *testing.T) {
	ctx := context.Background()
	db, err := memory.Memory{DataDir: t.TempDir()}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)
	event := func(id, project, day string, counts map[string]int) store.Captured {
		s := store.Session{ID: "s-" + project, Project: project, Cwd: "/w/" + project, StartedAt: now}
		return store.Captured{Kind: store.CaptureEvent, Session: s, At: now, Day: day, Redacted: counts,
			Event: store.Event{ToolName: "Bash", ToolUseID: id, At: now, RecordID: id}}
	}
	if _, err := db.Ingest(ctx, []store.Captured{
		event("e1", "api", "2026-11-30", map[string]int{"github": 2}),
		event("e2", "api", "2026-11-29", map[string]int{"jwt": 1}),
		event("e3", "api", "2026-11-20", map[string]int{"aws_access_key": 5}), // before the 7 days
		event("e4", "web", "2026-11-30", map[string]int{"slack": 3}),          // another project
	}); err != nil {
		t.Fatal(err)
	}
	r, err := Build(ctx, db, now, time.UTC, 7, "api", 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.RedactedByKind.String(); got != "github=2 jwt=1" && got != "jwt=1 github=2" {
		t.Errorf("redacted by kind = %q, want github=2 jwt=1", got)
	}
	var b bytes.Buffer
	Render(&b, r)
	if !strings.Contains(b.String(), "secrets redacted at capture, by kind: "+r.RedactedByKind.String()) {
		t.Errorf("rendered report lacks the kinds:\n%s", b.String())
	}
	if e := Empty(now, time.UTC, 7, "", 5); e.RedactedByKind == nil {
		t.Error("an empty report's redacted_by_kind is null, want {}")
	}
}

// The tables fit 100 columns with a long project name and large numbers; the name is elided
// in its middle, no number is cut (each appears whole). The control: the name shown whole
// would not fit.
func TestRenderFits100Columns(t *testing.T) {
	long := "a-very-long-project-name-for-the-monorepo-payments"
	row := Row{Day: "2026-11-30", Project: long, Runs: 12345, Events: 999999, Observations: 123456, Duplicates: 99999, Redactions: 88888,
		InputTokens: 1234567890, CacheReadTokens: 9876543210, CacheCreationTokens: 5555555555, OutputTokens: 444444444, CostUSD: 12345.6789,
		Answers: map[vocab.Verdict]int{vocab.VerdictStored: 123456, vocab.VerdictSalvaged: 65432, vocab.VerdictSkipped: 7777, vocab.VerdictUnusable: 8888}}
	total := row
	total.Day, total.Project = "", ""
	r := &Report{Days: 7, To: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Rows: []Row{row}, Total: total, BudgetUSD: 5}
	var b bytes.Buffer
	Render(&b, r)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for _, s := range []string{"1,234,567,890", "9,876,543,210", "5,555,555,555", "444,444,444", "12345.6789", "999999", "123456", "65432", clip.Middle(long, maxProject)} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the report lacks %q whole:\n%s", s, b.String())
		}
	}
	if strings.Contains(b.String(), long) || len(long) <= maxProject {
		t.Errorf("the long name is shown whole")
	}
}

// No database yet (memory.ReadAny's nil db) is the empty report, not an error.
func TestBuildOfNoDatabaseIsEmpty(t *testing.T) {
	now, loc := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), time.FixedZone("PST", -8*3600)
	r, err := Build(context.Background(), nil, now, loc, 7, "web", 2.5)
	if want := Empty(now, loc, 7, "web", 2.5); err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("%+v, %v; want %+v", r, err, want)
	}
}
