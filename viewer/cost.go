package viewer

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
)

// costDays is how many local days the cost page shows unless ?days= says otherwise.
const costDays = 30

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 720.0, 200.0
	chartPad       = 36.0
)

// costDay is one local day, summed over the projects shown.
type costDay struct {
	Day                                    string
	Runs, Events, Observations, Duplicates int
	InputTokens, OutputTokens, CacheTokens int64
	CostUSD                                float64
	X, Y, W, H                             float64 // the day's bar
	Label                                  string  // the bar's tooltip
}

type costData struct {
	Project string
	Days    int
	Rows    []costDay
	Total   costDay
	Max     float64 // the chart's top, in dollars
	Width   float64
	Height  float64
	Base    float64 // the y of the chart's baseline
	Ticks   []costTick
}

type costTick struct {
	Y     float64
	Label string
}

func (s *server) cost(w http.ResponseWriter, r *http.Request) {
	d := costData{Project: r.URL.Query().Get("project"), Days: costDays, Width: chartW, Height: chartH, Base: chartH - chartPad/2}
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && n >= 1 && n <= 366 {
		d.Days = n
	}
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db != nil {
			now := s.cfg.Now().In(s.cfg.Loc)
			to := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, s.cfg.Loc)
			stats, err := db.DailyStats(r.Context(), to.AddDate(0, 0, -d.Days), to, s.cfg.Loc, d.Project)
			if err != nil {
				return err
			}
			d.Rows, d.Total = sumDays(stats)
		}
		d.layout()
		s.render(w, http.StatusOK, "cost", page{Title: "Cost", Nav: "cost", Notice: notice, Data: d})
		return nil
	})
}

// sumDays folds the per-project rows into one row per day, in day order, and a total.
func sumDays(stats []store.DayStats) ([]costDay, costDay) {
	var rows []costDay
	var total costDay
	at := map[string]int{}
	for _, st := range stats {
		i, ok := at[st.Day]
		if !ok {
			i = len(rows)
			at[st.Day] = i
			rows = append(rows, costDay{Day: st.Day})
		}
		for _, c := range []*costDay{&rows[i], &total} {
			c.Runs += st.Runs
			c.Events += st.Events
			c.Observations += st.Observations
			c.Duplicates += st.Duplicates
			c.InputTokens += st.InputTokens
			c.OutputTokens += st.OutputTokens
			c.CacheTokens += st.CacheCreationTokens + st.CacheReadTokens
			c.CostUSD += st.CostUSD
		}
	}
	slices.SortFunc(rows, func(a, b costDay) int { return strings.Compare(a.Day, b.Day) })
	return rows, total
}

// layout places each day's bar: height proportional to its cost.
func (d *costData) layout() {
	for _, r := range d.Rows {
		d.Max = max(d.Max, r.CostUSD)
	}
	if d.Max == 0 {
		d.Max = 1
	}
	plotH := d.Base - chartPad/2
	for i := range 3 {
		v := d.Max * float64(i) / 2
		d.Ticks = append(d.Ticks, costTick{Y: d.Base - plotH*float64(i)/2, Label: fmt.Sprintf("$%.2f", v)})
	}
	if len(d.Rows) == 0 {
		return
	}
	slot := (chartW - chartPad*1.5) / float64(len(d.Rows))
	for i := range d.Rows {
		r := &d.Rows[i]
		r.W = max(slot*0.7, 1)
		r.X = chartPad*1.5 + slot*float64(i) + (slot-r.W)/2
		r.H = plotH * r.CostUSD / d.Max
		r.Y = d.Base - r.H
		r.Label = fmt.Sprintf("%s: $%.4f, %d runs, %d tokens in, %d out", r.Day, r.CostUSD, r.Runs, r.InputTokens, r.OutputTokens)
	}
}
