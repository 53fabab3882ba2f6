package viewer

import (
	"slices"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/stats"
)

// TestCostAxis: the chart's grid lines name amounts a reader can tell apart, in cents under
// a dollar, and the costliest day's bar reaches near the top without passing it. (The old
// labels, $%.2f of the costliest day's halves, fail it: $0.00 at every line for $0.0011.)
func TestCostAxis(t *testing.T) {
	today := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		cost float64
		want []string
	}{
		{0.0011, []string{"0¢", "0.06¢", "0.12¢"}},
		{0.42, []string{"0¢", "25¢", "50¢"}},
		{3, []string{"$0.00", "$1.50", "$3.00"}},
		{120, []string{"$0", "$60", "$120"}},
		{0, []string{"$0.00", "$0.50", "$1.00"}}, // nothing ran: an empty chart, still labelled
	} {
		rep := &stats.Report{Days: 7, From: today.AddDate(0, 0, -6), To: today.AddDate(0, 0, 1),
			Rows: []stats.Row{{Day: today.Format(time.DateOnly), CostUSD: tc.cost}}}
		d := costData{Report: rep, Width: chartW, Height: chartH, Base: chartH - chartBottom}
		d.layout()
		var got []string
		for _, tk := range d.Ticks {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("$%g: axis %q, want %q", tc.cost, got, tc.want)
		}
		last := d.Bars[len(d.Bars)-1]
		plotH := d.Base - chartPad
		if tc.cost > 0 && (last.H > plotH || last.H < plotH/2) {
			t.Errorf("$%g: today's bar is %.1f of the plot's %.1f", tc.cost, last.H, plotH)
		}
		for i := 1; i < len(d.Ticks); i++ {
			if d.Ticks[i].Y >= d.Ticks[i-1].Y {
				t.Errorf("$%g: grid lines not rising: %+v", tc.cost, d.Ticks)
			}
		}
	}
	for _, top := range []float64{0.0011, 0.007, 0.42, 0.7, 1, 3, 9.99, 120, 1e6} {
		if at := axisTop(top); at < top || at > 2*top {
			t.Errorf("axisTop(%g) = %g: not the next round number", top, at)
		}
	}
}
