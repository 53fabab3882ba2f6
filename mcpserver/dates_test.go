package mcpserver

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/when"
)

// shownDate is one date an answer showed for a record, and the form it was shown in.
type shownDate struct {
	ref, shown string
	form       when.Form
}

// textDate is a record's date in a text line: "#12 2026-11-30 [", "  #1 2026-11-30 10:00 [",
// "#S1 2026-11-30 10:00:12 [".
var textDate = regexp.MustCompile(`(?m)#(\S+) (\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?) \[`)

func textDates(s string) []shownDate {
	var out []shownDate
	for _, m := range textDate.FindAllStringSubmatch(s, -1) {
		f := map[int]when.Form{10: when.Date, 16: when.Minute, 19: when.Second}[len(m[2])]
		out = append(out, shownDate{m[1], m[2], f})
	}
	return out
}

// Every date search, timeline and get_observations show (text and structured content),
// passed back as since and as until, finds the record it was shown for, at UTC−8, UTC and
// UTC+9. A record of 1 Dec 17:00 at UTC−8 (2 Dec 01:00 UTC) is among them. The control: the
// same dates shown in UTC, as these tools did, lose records in the zones that are not UTC.
func TestShownDatesReadBack(t *testing.T) {
	w := newWorld(t)
	w.seed()
	late := time.Date(2026, 12, 2, 1, 0, 0, 5e8, time.UTC)
	d := w.deps(w.webDir)
	d.Now = func() time.Time { return late }
	if res := call(t, connect(t, d), "remember", map[string]any{"title": "Login zebra rollout", "text": "Roll the login change out by zebra stripes."}); res.IsError {
		t.Fatalf("remember: %s", text(res))
	}
	for _, loc := range []*time.Location{time.FixedZone("PST", -8*3600), time.UTC, time.FixedZone("JST", 9*3600)} {
		d.Loc = loc
		cs := connect(t, d)
		var dates []shownDate
		at := map[string]time.Time{}
		index := func(tool string, args map[string]any) {
			res := call(t, cs, tool, args)
			var out IndexOut
			structured(t, res, &out)
			dates = append(dates, textDates(text(res))...)
			for _, e := range out.Entries {
				dates = append(dates, shownDate{e.Ref, e.Time, when.Instant})
			}
		}
		index("search", map[string]any{"query": "login"})
		index("timeline", map[string]any{"query": "zebra"})
		var refs []any
		for _, sd := range dates {
			if !slices.Contains(refs, any(sd.ref)) {
				refs = append(refs, sd.ref)
			}
		}
		res := call(t, cs, "get_observations", map[string]any{"ids": refs})
		var recs RecordsOut
		structured(t, res, &recs)
		dates = append(dates, textDates(text(res))...)
		for _, r := range recs.Records {
			dates = append(dates, shownDate{r.Ref, r.Time, when.Instant})
			ts, err := time.Parse(time.RFC3339, r.Time)
			if err != nil {
				t.Fatalf("%s: time %q: %v", r.Ref, r.Time, err)
			}
			at[r.Ref] = ts
		}
		remembered := slices.ContainsFunc(recs.Records, func(r RecordOut) bool { return at[r.Ref].Equal(late.Truncate(time.Second)) })
		if !remembered || len(dates) < 4*len(at) {
			t.Fatalf("at %v: %d dates shown for %v; want the remembered record and every form", loc, len(dates), at)
		}
		// finds: search with arg=v in every project lists ref.
		finds := func(ref, arg, v string) bool {
			var out IndexOut
			structured(t, call(t, cs, "search", map[string]any{"query": "login", "project": "*", arg: v}), &out)
			return slices.ContainsFunc(out.Entries, func(e EntryOut) bool { return e.Ref == ref })
		}
		lost := 0
		for _, sd := range dates {
			for _, arg := range []string{"since", "until"} {
				if !finds(sd.ref, arg, sd.shown) {
					t.Errorf("at %v: %s shown as %q, passed back as %s, is not found", loc, sd.ref, sd.shown, arg)
				}
				if !finds(sd.ref, arg, when.Show(at[sd.ref], time.UTC, sd.form)) {
					lost++
				}
			}
		}
		if loc != time.UTC && lost == 0 {
			t.Errorf("control at %v: the dates shown in UTC lost no record; the test cannot tell", loc)
		}
	}
}
