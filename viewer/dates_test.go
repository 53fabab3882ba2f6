package viewer

import (
	"html"
	"regexp"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/when"
)

var (
	dayHeading = regexp.MustCompile(`<h2><time datetime="([^"]+)">([^<]+)</time></h2>`)
	stamped    = regexp.MustCompile(`<time datetime="([^"]+)">([^<]+)</time>`)
)

// readsBack: s, passed back as since and (unless sinceOnly) as until in loc, holds at.
func readsBack(s string, loc *time.Location, at time.Time, sinceOnly bool) bool {
	since, err1 := when.Start(s, at, loc)
	until, err2 := when.End(s, at, loc)
	return err1 == nil && err2 == nil && !at.Before(since) && (sinceOnly || at.Before(until))
}

// The dates the viewer shows for a record (its timeline day heading, its page's time, as
// text and as the datetime attribute) read back as since/until holding the record, at
// UTC−8, UTC and UTC+9; the record is of 1 Dec 17:00 at UTC−8 (2 Dec 01:00 UTC), and of
// 2 Dec 01:00 at UTC+9 (1 Dec 16:00 UTC), a day apart from UTC's. A heading's
// attribute is its day's first instant, passed back as since only. The control: the same
// dates shown in UTC lose the record in the zones that are not UTC.
func TestShownDatesReadBack(t *testing.T) {
	for _, z := range testkit.DateZones() {
		loc, at := z.Loc, z.At
		f := newFixtureIn(t, loc)
		f.observe(f.db(), "sess-late", "late", []store.Observation{{Type: "change", Title: "Late change", At: at}}, nil)
		tl := f.get("/timeline?project=late", 200)
		heads := dayHeading.FindAllStringSubmatch(tl, -1)
		page := stamped.FindAllStringSubmatch(f.get("/record/"+idOf(t, tl, `/record/`), 200), -1)
		if len(heads) != 1 || len(page) == 0 {
			t.Fatalf("at %v: headings %q, record page times %q", loc, heads, page)
		}
		shown := []struct {
			s         string
			form      when.Form
			sinceOnly bool
		}{{heads[0][1], when.Instant, true}, {heads[0][2], when.LongDay, false}, {page[0][1], when.Instant, false}, {page[0][2], when.Zoned, false}}
		lost := 0
		for _, sh := range shown {
			if !readsBack(html.UnescapeString(sh.s), loc, at, sh.sinceOnly) {
				t.Errorf("at %v: %q shown for a record of %v does not read back to hold it", loc, sh.s, at)
			}
			if !readsBack(when.Show(at, time.UTC, sh.form), loc, at, sh.sinceOnly) {
				lost++
			}
		}
		if loc != time.UTC && lost == 0 {
			t.Errorf("control at %v: the dates shown in UTC lost nothing; the test cannot tell", loc)
		}
	}
}
