package stats

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/when"
)

// The day stats shows for a run, in its rows and its text, passed back as since and as
// until in the user's zone, holds the run, at UTC−8, UTC and UTC+9: a run of 1 Dec 17:00 at
// UTC−8 (2 Dec 01:00 UTC), and of 2 Dec 01:00 at UTC+9 (1 Dec 16:00 UTC). The control: the
// day shown in UTC loses the run in the zones that are not UTC.
func TestShownDaysReadBack(t *testing.T) {
	ctx := context.Background()
	for _, z := range testkit.DateZones() {
		db, err := memory.Memory{DataDir: t.TempDir()}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.RecordRun(ctx, store.RunRecord{ID: "r", Project: "api", Outcome: "ok", StartedAt: z.At, Events: 1}); err != nil {
			t.Fatal(err)
		}
		r, err := Build(ctx, db, z.At.Add(time.Hour), z.Loc, 1, "", 0)
		if err != nil || len(r.Rows) != 1 {
			t.Fatalf("at %v: %+v %v; want one row", z.Loc, r, err)
		}
		var b bytes.Buffer
		Render(&b, r)
		day := r.Rows[0].Day
		if !strings.Contains(b.String(), "to "+day+",") {
			t.Errorf("at %v: the text does not head its day %s:\n%s", z.Loc, day, b.String())
		}
		holds := func(s string) bool {
			since, err1 := when.Start(s, z.At, z.Loc)
			until, err2 := when.End(s, z.At, z.Loc)
			return err1 == nil && err2 == nil && !z.At.Before(since) && z.At.Before(until)
		}
		if !holds(day) {
			t.Errorf("at %v: the run of %v is shown on %s, which read back does not hold it", z.Loc, z.At, day)
		}
		if control := when.Show(z.At, time.UTC, when.Date); z.Loc != time.UTC && holds(control) {
			t.Errorf("control at %v: the day in UTC, %s, holds the run too; the test cannot tell", z.Loc, control)
		}
	}
}
