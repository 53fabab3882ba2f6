package viewer

import (
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/claude-mem/claude-mem-go/stats"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// costDays is how many local days the cost page shows unless ?days= says otherwise.
const costDays = 14

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 720.0, 220.0
	chartLeft      = 54.0 // room for the axis labels
	chartPad       = 18.0
	chartBottom    = 24.0 // room for the day labels
)

// bar is one local day of the chart: all projects' cost together.
type bar struct {
	Day        string
	CostUSD    float64
	Runs       int
	X, Y, W, H float64
	LX         float64 // the middle of the bar, where its label goes
	Label      string  // the day under its bar, on every few bars
}

type tick struct {
	Y     float64
	Label string
}

type costData struct {
	*stats.Report
	Bars          []bar
	Ticks         []tick
	Width, Height float64
	Base          float64 // the y of the chart's baseline
	// Verdicts head the answers table; Answers are its rows, the total last (§24).
	Verdicts []vocab.Verdict
	Answers  []answerRow
}

// answerRow is one day and project (or the total) of the answers table: the answers per
// verdict in Verdicts' order, the unusable share, and the reasons.
type answerRow struct {
	Day, Project string
	Counts       []int
	Unusable     string
	Over         bool // the unusable share is over what doctor accepts
	Reasons      string
}

func (s *server) cost(w http.ResponseWriter, r *http.Request) {
	days := costDays
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && n >= 1 && n <= 366 {
		days = n
	}
	project := r.URL.Query().Get("project")
	s.withDB(w, r, func(db *store.DB, notice string) error {
		rep := stats.Empty(s.cfg.Now(), s.cfg.Loc, days, project, s.cfg.BudgetUSD)
		if db != nil {
			var err error
			if rep, err = stats.Build(r.Context(), db, s.cfg.Now(), s.cfg.Loc, days, project, s.cfg.BudgetUSD); err != nil {
				return err
			}
		}
		d := costData{Report: rep, Width: chartW, Height: chartH, Base: chartH - chartBottom, Verdicts: vocab.Verdicts}
		d.layout()
		for _, row := range append(rep.Rows, rep.Total) {
			d.Answers = append(d.Answers, answerRowOf(row))
		}
		s.render(w, http.StatusOK, "cost", page{Title: "Cost", Nav: "cost", Notice: notice, Data: d})
		return nil
	})
}

func answerRowOf(r stats.Row) answerRow {
	a := answerRow{Day: r.Day, Project: r.Project, Reasons: r.ReasonsLine(), Unusable: "–"}
	for _, v := range vocab.Verdicts {
		a.Counts = append(a.Counts, r.Answers[v])
	}
	if r.Answered() > 0 {
		a.Unusable = fmt.Sprintf("%.1f%%", 100*r.UnusableRate())
		a.Over = r.UnusableRate() > stats.MaxUnusableRate
	}
	return a
}

// layout makes one bar per local day of the report, oldest on the left, its height
// proportional to the day's cost, and three labelled grid lines.
func (d *costData) layout() {
	at := map[string]int{}
	loc := d.From.Location() // the report's local days
	for day := d.From; day.Before(d.To); day = day.AddDate(0, 0, 1) {
		key := when.Show(day, loc, when.Date)
		at[key] = len(d.Bars)
		d.Bars = append(d.Bars, bar{Day: key, Label: when.Show(day, loc, when.DayMonth)})
	}
	every := (len(d.Bars) + 6) / 7 // at most about seven labels
	for i := range d.Bars {
		if (len(d.Bars)-1-i)%every != 0 { // today is always labelled
			d.Bars[i].Label = ""
		}
	}
	top := 0.0
	for _, row := range d.Rows {
		if i, ok := at[row.Day]; ok {
			d.Bars[i].CostUSD += row.CostUSD
			d.Bars[i].Runs += row.Runs
			top = max(top, d.Bars[i].CostUSD)
		}
	}
	top = axisTop(top)
	plotH := d.Base - chartPad
	for i := range 3 {
		d.Ticks = append(d.Ticks, tick{Y: d.Base - plotH*float64(i)/2, Label: axisLabel(top*float64(i)/2, top)})
	}
	slot := (chartW - chartLeft) / float64(max(len(d.Bars), 1))
	for i := range d.Bars {
		b := &d.Bars[i]
		b.W = max(slot*0.7, 1)
		b.X = chartLeft + slot*float64(i) + (slot-b.W)/2
		b.H = plotH * b.CostUSD / top
		b.Y = d.Base - b.H
		b.LX = b.X + b.W/2
	}
}

// axisSteps are the chart's tops within a power of ten: each is a round number, and so is
// its half, the middle grid line.
var axisSteps = []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}

// axisTop is the smallest round number at or above the costliest day's cost (1 when
// nothing cost anything), the top of the chart's axis.
func axisTop(maxUSD float64) float64 {
	if maxUSD <= 0 {
		return 1
	}
	base := math.Pow(10, math.Floor(math.Log10(maxUSD)))
	for _, m := range axisSteps {
		if m*base >= maxUSD*(1-1e-9) {
			return m * base
		}
	}
	return 10 * base
}

// axisLabel is a grid line's amount on an axis up to top: in cents, as precise as the
// grid needs, when top is under a dollar (a day of $0.0011 reads 0.06¢ and 0.12¢, not
// $0.00 at every line); in dollars, with cents only when a line needs them, above.
func axisLabel(usd, top float64) string {
	if top < 1 {
		cents := math.Round(usd*100*1e6) / 1e6 // the float product's noise off
		return strconv.FormatFloat(cents, 'f', -1, 64) + "¢"
	}
	if math.Round(top/2) != top/2 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.0f", usd)
}
