// Package stats is `hook stats`: what the observer did and cost, per local day and project,
// with totals, from the runs and redactions the store keeps (§17).
package stats

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// Row is one day and project, or a total (Day and Project empty). The JSON names are the
// documented shape of `hook stats --json`.
type Row struct {
	Day          string `json:"day,omitempty"`
	Project      string `json:"project,omitempty"`
	Runs         int    `json:"runs"`
	Events       int    `json:"events"`
	Observations int    `json:"observations"`
	Duplicates   int    `json:"duplicates"`
	Redactions   int    `json:"redactions"`
	// Unrecorded counts the runs whose process was gone before their cost was known: the
	// cost below leaves them out.
	Unrecorded          int     `json:"unrecorded"`
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CostUSD             float64 `json:"cost_usd"`
	// Answers counts the runs' answers per verdict, every verdict named (§24); Reasons,
	// per verdict, how many of them gave each reason (an answer may give several).
	Answers map[vocab.Verdict]int            `json:"answers"`
	Reasons map[vocab.Verdict]map[string]int `json:"answer_reasons"`
}

// Answered is how many runs gave an answer.
func (a Row) Answered() int {
	n := 0
	for _, c := range a.Answers {
		n += c
	}
	return n
}

// MaxUnusableRate is the share of a day's answers that may be unusable before doctor says
// so (§24): above it, the model or the batches need a look.
const MaxUnusableRate = 0.05

// UnusableRate is the share of answers nothing could be kept from (0 without answers).
func (a Row) UnusableRate() float64 {
	if n := a.Answered(); n > 0 {
		return float64(a.Answers[vocab.VerdictUnusable]) / float64(n)
	}
	return 0
}

// ReasonsLine is the reasons per verdict in one line: "salvaged: code_fence 2, truncated 1;
// unusable: prose_only 1", verdicts in their order, reasons by name; "" with none.
func (a Row) ReasonsLine() string {
	var parts []string
	for _, v := range vocab.Verdicts {
		if rs := a.Reasons[v]; len(rs) > 0 {
			parts = append(parts, string(v)+": "+CountsText(rs))
		}
	}
	return strings.Join(parts, "; ")
}

// CountsText is counts by name, in one line: "code_fence 2, truncated 1".
func CountsText(counts map[string]int) string {
	var items []string
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		items = append(items, fmt.Sprintf("%s %d", name, counts[name]))
	}
	return strings.Join(items, ", ")
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
func Empty(now time.Time, loc *time.Location, days int, project string, budgetUSD float64) *Report {
	days = max(days, 1)
	today, end := budget.Day(now, loc)
	return &Report{Days: days, Project: project, From: today.AddDate(0, 0, 1-days), To: end, Rows: []Row{}, BudgetUSD: budgetUSD,
		RedactedByKind: redact.Counts{}, Total: Row{}.add(Row{})}
}

// Build reads the last days local days (at least 1) in loc for project ("" = all) and
// today's cost against budgetUSD. A nil db (no database yet: memory.ReadAny) is the Empty
// report.
func Build(ctx context.Context, db *store.DB, now time.Time, loc *time.Location, days int, project string, budgetUSD float64) (*Report, error) {
	r := Empty(now, loc, days, project, budgetUSD)
	if db == nil {
		return r, nil
	}
	today, end := budget.Day(now, loc)
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
		Duplicates: d.Duplicates, Redactions: d.Redactions, Unrecorded: d.Unrecorded, InputTokens: d.InputTokens, OutputTokens: d.OutputTokens,
		CacheCreationTokens: d.CacheCreationTokens, CacheReadTokens: d.CacheReadTokens, CostUSD: d.CostUSD,
		Answers: d.Answers, Reasons: d.Reasons}.add(Row{})
}

// add sums a and b into a row of its own (a's day and project), its maps new: every
// verdict in Answers, the verdicts with reasons in Reasons.
func (a Row) add(b Row) Row {
	r := Row{Day: a.Day, Project: a.Project, Runs: a.Runs + b.Runs, Events: a.Events + b.Events,
		Observations: a.Observations + b.Observations, Duplicates: a.Duplicates + b.Duplicates,
		Redactions: a.Redactions + b.Redactions, Unrecorded: a.Unrecorded + b.Unrecorded, InputTokens: a.InputTokens + b.InputTokens,
		OutputTokens: a.OutputTokens + b.OutputTokens, CacheCreationTokens: a.CacheCreationTokens + b.CacheCreationTokens,
		CacheReadTokens: a.CacheReadTokens + b.CacheReadTokens, CostUSD: a.CostUSD + b.CostUSD,
		Answers: map[vocab.Verdict]int{}, Reasons: map[vocab.Verdict]map[string]int{}}
	for _, v := range vocab.Verdicts {
		r.Answers[v] = a.Answers[v] + b.Answers[v]
		for _, src := range []map[string]int{a.Reasons[v], b.Reasons[v]} {
			for name, n := range src {
				if r.Reasons[v] == nil {
					r.Reasons[v] = map[string]int{}
				}
				r.Reasons[v][name] += n
			}
		}
	}
	return r
}

// ByDay sums the report's rows per day, all projects together, newest day first.
func (r *Report) ByDay() []Row {
	var out []Row
	for _, row := range r.Rows { // newest day first already
		if n := len(out); n > 0 && out[n-1].Day == row.Day {
			out[n-1] = out[n-1].add(row)
			continue
		}
		out = append(out, Row{Day: row.Day}.add(row))
	}
	return out
}

// Line is a row in one line of text, as doctor shows its totals.
func (a Row) Line() string {
	return fmt.Sprintf("%d runs, %d events, %d observations, %d duplicates skipped, %d secrets redacted, %s tokens in (%s cache read, %s cache write), %s out, $%.4f%s; answers %s",
		a.Runs, a.Events, a.Observations, a.Duplicates, a.Redactions, count(a.InputTokens), count(a.CacheReadTokens),
		count(a.CacheCreationTokens), count(a.OutputTokens), a.CostUSD, a.unrecordedText(), a.answersText())
}

// unrecordedText says how many runs the cost leaves out: " (2 runs unrecorded)", or "".
func (a Row) unrecordedText() string {
	if a.Unrecorded == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d runs unrecorded: their process was gone before their cost was known)", a.Unrecorded)
}

// answersText is the answers per verdict: "12 stored, 3 salvaged, 1 skipped, 0 unusable".
func (a Row) answersText() string {
	parts := make([]string, len(vocab.Verdicts))
	for i, v := range vocab.Verdicts {
		parts[i] = fmt.Sprintf("%d %s", a.Answers[v], v)
	}
	return strings.Join(parts, ", ")
}

// Render writes the report as a table for a person.
func Render(w io.Writer, r *Report) {
	scope := "all projects"
	if r.Project != "" {
		scope = "project " + printable.Text(r.Project)
	}
	fmt.Fprintf(w, "observer activity, last %d day(s) to %s, %s\n", r.Days, when.Show(r.To.Add(-time.Nanosecond), r.To.Location(), when.Date), scope)
	if r.BudgetUSD > 0 {
		fmt.Fprintf(w, "today $%.4f of the $%.2f daily budget (CLAUDE_MEM_DAILY_BUDGET_USD)\n", r.TodayUSD, r.BudgetUSD)
	} else {
		fmt.Fprintf(w, "today $%.4f; no daily budget (CLAUDE_MEM_DAILY_BUDGET_USD=0)\n", r.TodayUSD)
	}
	// Three tables that each fit 100 columns, rather than one 150 wide: what ran, what the
	// answers yielded, what it used. A long project name is elided; a number never is.
	rows := append(slices.Clone(r.Rows), r.Total)
	table(w, "activity", "day\tproject\truns\tevents\tobservations\tduplicates\tredacted\tcost USD", rows, func(row Row) []any {
		return []any{row.Runs, row.Events, row.Observations, row.Duplicates, row.Redactions, fmt.Sprintf("%.4f", row.CostUSD)}
	})
	head := "day\tproject"
	for _, v := range vocab.Verdicts {
		head += "\t" + string(v)
	}
	// A run whose process was gone gave no answer and no cost: counted beside the answers.
	table(w, "answers", head+"\t"+string(vocab.OutcomeUnrecorded), rows, func(row Row) []any {
		var out []any
		for _, v := range vocab.Verdicts {
			out = append(out, row.Answers[v])
		}
		return append(out, row.Unrecorded)
	})
	table(w, "tokens", "day\tproject\tinput\tcache read\tcache write\toutput", rows, func(row Row) []any {
		return []any{count(row.InputTokens), count(row.CacheReadTokens), count(row.CacheCreationTokens), count(row.OutputTokens)}
	})
	var reasons []string
	for _, row := range r.Rows {
		if line := row.ReasonsLine(); line != "" {
			reasons = append(reasons, fmt.Sprintf("  %s %s: %s", row.Day, printable.Text(row.Project), line))
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintf(w, "\nanswers salvaged, skipped or unusable, by reason:\n%s\n", strings.Join(reasons, "\n"))
	}
	if len(r.RedactedByKind) > 0 {
		fmt.Fprintf(w, "\nsecrets redacted at capture, by kind: %s\n", r.RedactedByKind)
	}
}

// maxProject is the widest project name a table shows; a longer one is elided in the middle.
const maxProject = 20

// table writes a blank line, its title, and a right-aligned table: head (tab-separated),
// then per row its day, project and cells; the total row last.
func table(w io.Writer, title, head string, rows []Row, cells func(Row) []any) {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, head+"\t")
	for _, row := range rows {
		day, proj := row.Day, clip.Middle(printable.Text(row.Project), maxProject)
		if day == "" {
			day, proj = "total", ""
		}
		fmt.Fprintf(tw, "%s\t%s\t", day, proj)
		for _, c := range cells(row) {
			fmt.Fprintf(tw, "%v\t", c)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
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
