// Package stats is `hook stats`: what the observer did and cost, per local day and project,
// with totals, from the runs and redactions the store keeps (§17).
package stats

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/claude-mem/claude-mem-go/observe"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/store"
)

// Row is one day and project, or a total (Day and Project empty). The JSON names are the
// documented shape of `hook stats --json`.
type Row struct {
	Day                 string  `json:"day,omitempty"`
	Project             string  `json:"project,omitempty"`
	Runs                int     `json:"runs"`
	Events              int     `json:"events"`
	Observations        int     `json:"observations"`
	Duplicates          int     `json:"duplicates"`
	Redactions          int     `json:"redactions"`
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

// Report is the last Days local days, today included, newest first.
type Report struct {
	Days    int       `json:"days"`
	Project string    `json:"project,omitempty"`
	From    time.Time `json:"from"` // local midnight of the first day
	To      time.Time `json:"to"`   // the next local midnight
	Rows    []Row     `json:"rows"`
	Total   Row       `json:"total"`
	// BudgetUSD is CLAUDE_MEM_DAILY_BUDGET_USD (0: no cap); TodayUSD is today's cost, all
	// projects together, as the budget counts it.
	BudgetUSD float64 `json:"budget_usd"`
	TodayUSD  float64 `json:"today_usd"`
	// RedactedByKind is Total.Redactions per kind of secret (§16).
	RedactedByKind redact.Counts `json:"redacted_by_kind"`
}

// Empty is the report of a data dir without a database yet: nothing ran.
func Empty(now time.Time, loc *time.Location, days int, project string, budget float64) *Report {
	days = max(days, 1)
	today, end := observe.Day(now, loc)
	return &Report{Days: days, Project: project, From: today.AddDate(0, 0, 1-days), To: end, Rows: []Row{}, BudgetUSD: budget,
		RedactedByKind: redact.Counts{}}
}

// Build reads the last days local days (at least 1) in loc for project ("" = all) and
// today's cost against budget.
func Build(ctx context.Context, db *store.DB, now time.Time, loc *time.Location, days int, project string, budget float64) (*Report, error) {
	r := Empty(now, loc, days, project, budget)
	today, end := observe.Day(now, loc)
	ds, err := db.DailyStats(ctx, r.From, r.To, loc, project)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		row := rowOf(d)
		r.Rows = append(r.Rows, row)
		r.Total = r.Total.add(row)
	}
	// The redactions table keeps local dates: [From, To) is [day of From, day of To).
	if r.RedactedByKind, err = db.RedactionsByKind(ctx, r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), project); err != nil {
		return nil, err
	}
	// The budget is for all projects together, whatever the report shows.
	r.TodayUSD, err = db.CostBetween(ctx, today, end)
	return r, err
}

func rowOf(d store.DayStats) Row {
	return Row{Day: d.Day, Project: d.Project, Runs: d.Runs, Events: d.Events, Observations: d.Observations,
		Duplicates: d.Duplicates, Redactions: d.Redactions, InputTokens: d.InputTokens, OutputTokens: d.OutputTokens,
		CacheCreationTokens: d.CacheCreationTokens, CacheReadTokens: d.CacheReadTokens, CostUSD: d.CostUSD}
}

func (a Row) add(b Row) Row {
	return Row{Day: a.Day, Project: a.Project, Runs: a.Runs + b.Runs, Events: a.Events + b.Events,
		Observations: a.Observations + b.Observations, Duplicates: a.Duplicates + b.Duplicates,
		Redactions: a.Redactions + b.Redactions, InputTokens: a.InputTokens + b.InputTokens,
		OutputTokens: a.OutputTokens + b.OutputTokens, CacheCreationTokens: a.CacheCreationTokens + b.CacheCreationTokens,
		CacheReadTokens: a.CacheReadTokens + b.CacheReadTokens, CostUSD: a.CostUSD + b.CostUSD}
}

// Line is a row in one line of text, as doctor shows its totals.
func (a Row) Line() string {
	return fmt.Sprintf("%d runs, %d events, %d observations, %d duplicates skipped, %d secrets redacted, %s tokens in (%s cache read, %s cache write), %s out, $%.4f",
		a.Runs, a.Events, a.Observations, a.Duplicates, a.Redactions, count(a.InputTokens), count(a.CacheReadTokens),
		count(a.CacheCreationTokens), count(a.OutputTokens), a.CostUSD)
}

// Render writes the report as a table for a person.
func Render(w io.Writer, r *Report) {
	scope := "all projects"
	if r.Project != "" {
		scope = "project " + r.Project
	}
	fmt.Fprintf(w, "observer activity, last %d day(s) to %s, %s\n", r.Days, r.To.Add(-time.Nanosecond).Format(time.DateOnly), scope)
	if r.BudgetUSD > 0 {
		fmt.Fprintf(w, "today $%.4f of the $%.2f daily budget (CLAUDE_MEM_DAILY_BUDGET_USD)\n", r.TodayUSD, r.BudgetUSD)
	} else {
		fmt.Fprintf(w, "today $%.4f; no daily budget (CLAUDE_MEM_DAILY_BUDGET_USD=0)\n", r.TodayUSD)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "day\tproject\truns\tevents\tobservations\tduplicates\tredacted\tinput\tcache read\tcache write\toutput\tcost USD\t")
	for _, row := range append(r.Rows, r.Total) {
		day, proj := row.Day, row.Project
		if day == "" {
			day, proj = "total", ""
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%.4f\t\n", day, proj, row.Runs, row.Events,
			row.Observations, row.Duplicates, row.Redactions, count(row.InputTokens), count(row.CacheReadTokens),
			count(row.CacheCreationTokens), count(row.OutputTokens), row.CostUSD)
	}
	tw.Flush()
	if len(r.RedactedByKind) > 0 {
		fmt.Fprintf(w, "\nsecrets redacted at capture, by kind: %s\n", r.RedactedByKind)
	}
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
