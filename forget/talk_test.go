package forget

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// talk runs the conversation over a filled memory with stdin, on a terminal or not, and
// returns the exit status, stdout, stderr and the rows left.
func talk(t *testing.T, o Options, stdin string, terminal bool) (int, string, string, map[string]int) {
	t.Helper()
	db, path := memory(t)
	var out, errb bytes.Buffer
	tk := Talk{Prog: "claude-mem", In: strings.NewReader(stdin), Out: &out, Err: &errb, IsTerminal: func() bool { return terminal }}
	rc := tk.Run(context.Background(), db, nil, o)
	return rc, out.String(), errb.String(), rows(t, path)
}

const plan1 = "Would forget: 1 observation\n  - Zebrafish validator checks login emails\n"

// On a terminal forget asks, and only y or yes removes; off one, without --yes, it refuses
// (exit 2) and asks nothing; --yes asks nobody anywhere.
func TestTalkAsks(t *testing.T) {
	one := Options{Sel: Selector{Refs: obs(1)}}
	yes := one
	yes.Yes = true
	for _, tc := range []struct {
		name     string
		o        Options
		stdin    string
		terminal bool
		rc       int
		out, err string
		left     int // observations
	}{
		{"no answer", one, "", true, ExitFailed, plan1 + "Forget these? [y/N] Nothing removed.\n", "", 4},
		{"enter", one, "\n", true, ExitFailed, plan1 + "Forget these? [y/N] Nothing removed.\n", "", 4},
		{"n", one, "n\n", true, ExitFailed, plan1 + "Forget these? [y/N] Nothing removed.\n", "", 4},
		{"nope", one, "nope\n", true, ExitFailed, plan1 + "Forget these? [y/N] Nothing removed.\n", "", 4},
		{"y", one, "y\n", true, ExitDone, plan1 + "Forget these? [y/N] Forgot 1 observation.\n", "", 3},
		{" YES ", one, " YES \n", true, ExitDone, plan1 + "Forget these? [y/N] Forgot 1 observation.\n", "", 3},
		{"off a terminal, y piped in", one, "y\n", false, ExitRefused, plan1,
			"claude-mem forget: stdin is not a terminal, so nothing was removed: run again with --yes to forget these\n", 4},
		{"--yes off a terminal", yes, "", false, ExitDone, plan1 + "Forgot 1 observation.\n", "", 3},
		{"--yes on a terminal", yes, "n\n", true, ExitDone, plan1 + "Forgot 1 observation.\n", "", 3},
	} {
		rc, out, errs, left := talk(t, tc.o, tc.stdin, tc.terminal)
		if rc != tc.rc || out != tc.out || errs != tc.err || left["observations"] != tc.left {
			t.Errorf("%s: rc %d, %d observations left\nstdout %q\nstderr %q\nwant %d, %d left\nstdout %q\nstderr %q",
				tc.name, rc, left["observations"], out, errs, tc.rc, tc.left, tc.out, tc.err)
		}
	}
}

// What the plan says: plurals, ids of no record, nothing selected, a dry run, a rewrite.
func TestTalkSays(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        Options
		rc       int
		out, err string
		left     int
	}{
		{"a dry run removes nothing", Options{Sel: Selector{Session: "s1"}, DryRun: true}, ExitDone,
			"Would forget: 2 observations, 1 summary, 1 prompt, 2 events, 1 session\n" +
				"  - Zebrafish validator checks login emails\n  - Quokka cookie cache\n  - Fix the login form\nDry run: nothing removed.\n", "", 4},
		{"ids of no record are named", Options{Sel: Selector{Refs: []vocab.Ref{{Kind: vocab.KindObservation, ID: 99}, {Kind: vocab.KindSummary, ID: 9}}}, Yes: true},
			ExitDone, "Nothing to forget.\n", "claude-mem forget: no observation #99\nclaude-mem forget: no summary #S9\n", 4},
		{"nothing, then the rewrite asked for", Options{Sel: Selector{Refs: obs(99)}, Yes: true, Vacuum: true}, ExitDone,
			"Nothing to forget.\nDatabase rewritten: the removed text is in no free page or WAL frame.\n", "claude-mem forget: no observation #99\n", 4},
		{"nothing on a dry run rewrites nothing", Options{Sel: Selector{Refs: obs(99)}, DryRun: true, Vacuum: true}, ExitDone,
			"Nothing to forget.\n", "claude-mem forget: no observation #99\n", 4},
		{"--yes --vacuum", Options{Sel: Selector{Refs: obs(1)}, Yes: true, Vacuum: true}, ExitDone,
			plan1 + "Forgot 1 observation.\nDatabase rewritten: the removed text is in no free page or WAL frame.\n", "", 3},
	} {
		rc, out, errs, left := talk(t, tc.o, "", false)
		if rc != tc.rc || out != tc.out || errs != tc.err || left["observations"] != tc.left {
			t.Errorf("%s: rc %d, %d observations left\nstdout %q\nstderr %q\nwant %d, %d left\nstdout %q\nstderr %q",
				tc.name, rc, left["observations"], out, errs, tc.rc, tc.left, tc.out, tc.err)
		}
	}
}

// --json is one object; forgot is null on a dry run, and the dry run removes nothing.
func TestTalkJSON(t *testing.T) {
	sel := Selector{Refs: append(obs(1), vocab.Ref{Kind: vocab.KindPrompt, ID: 9})}
	rc, out, errs, left := talk(t, Options{Sel: sel, JSON: true, DryRun: true}, "", false)
	want := `{"dry_run":true,"missing":["P9"],"plan":{"observations":1,"summaries":0,"prompts":0,"answers":0,"events":0,"sessions":0,"journals":0,"transcripts":0,"titles":["Zebrafish validator checks login emails"],"more":0},"forgot":null,"vacuumed":false}` + "\n"
	if rc != 0 || out != want || errs != "" || left["observations"] != 4 {
		t.Errorf("dry run: rc %d, %d left\n%q\nstderr %q\nwant\n%q", rc, left["observations"], out, errs, want)
	}
	rc, out, _, left = talk(t, Options{Sel: sel, JSON: true, Yes: true, Vacuum: true}, "", false)
	if rc != 0 || !strings.Contains(out, `"forgot":{"observations":1,`) || !strings.HasSuffix(out, `"vacuumed":true}`+"\n") || left["observations"] != 3 {
		t.Errorf("--yes --vacuum: rc %d, %d left, %q", rc, left["observations"], out)
	}
	rc, out, _, _ = talk(t, Options{Sel: Selector{Refs: obs(99)}, JSON: true, Yes: true}, "", false)
	if rc != 0 || !strings.Contains(out, `"forgot":{"observations":0,`) || !strings.Contains(out, `"titles":[]`) {
		t.Errorf("nothing, --yes: rc %d, %q; want forgot all zero, titles []", rc, out)
	}
}

func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		p    Plan
		want string
	}{
		{Plan{}, "nothing"},
		{Plan{Observations: 1, Summaries: 2, Journals: 1, Transcripts: 2}, "1 observation, 2 summaries, 1 pending journal, 2 observer run transcripts"},
		{Plan{Prompts: 2, Answers: 1, Events: 3, Sessions: 1}, "2 prompts, 1 answer, 3 events, 1 session"},
	} {
		if got := Counts(tc.p); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestOptionsFinish(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, loc)
	for _, tc := range []struct {
		ops    []string
		before string
		o      Options // before Finish
		want   Selector
		bad    string
	}{
		{[]string{"12", "#13"}, "", Options{}, Selector{Refs: obs(12, 13)}, ""},
		{[]string{"S3", "#p7"}, "", Options{}, Selector{Refs: []vocab.Ref{{Kind: vocab.KindSummary, ID: 3}, {Kind: vocab.KindPrompt, ID: 7}}}, ""},
		{nil, "2026-11-30", Options{}, Selector{Before: time.Date(2026, 11, 30, 0, 0, 0, 0, loc)}, ""},
		{nil, "7d", Options{}, Selector{Before: now.AddDate(0, 0, -7)}, ""},
		{nil, "", Options{Sel: Selector{Session: "s1"}, JSON: true, DryRun: true}, Selector{Session: "s1"}, ""},
		{nil, "", Options{}, Selector{}, "nothing selected"},
		{[]string{"abc"}, "", Options{}, Selector{}, `"abc" is not a record id`},
		{nil, "yesterday", Options{}, Selector{}, `--before: "yesterday" is not a date`},
		{nil, "", Options{Sel: Selector{Session: "s1"}, JSON: true}, Selector{}, "--json asks nothing"},
	} {
		o := tc.o
		err := o.Finish(tc.ops, tc.before, now, loc)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q %q: %v, want %q", tc.ops, tc.before, err, tc.bad)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(o.Sel, tc.want) {
			t.Errorf("%q %q: %+v, %v; want %+v", tc.ops, tc.before, o.Sel, err, tc.want)
		}
	}
}
