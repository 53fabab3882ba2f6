package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/forget"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// On a terminal, forget asks; only y or yes removes.
func TestForgetAsksOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		answer string
		rc     int
		left   int
	}{{"\n", 1, 4}, {"n\n", 1, 4}, {"nope\n", 1, 4}, {"", 1, 4}, {"y\n", 0, 3}, {"YES\n", 0, 3}} {
		data := t.TempDir()
		db, err := memory.Memory{DataDir: data}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		memtest.Fill(t, db)
		db.Close()
		var out, errb bytes.Buffer
		rc := run(&proc{
			args: []string{"forget", "1"}, env: settings.Env{"CLAUDE_MEM_DATA_DIR": data, "HOME": t.TempDir()},
			stdin: strings.NewReader(tc.answer), stdout: &out, stderr: &errb, now: time.Now, goos: "linux",
			isTerminal: func() bool { return true },
		})
		if rc != tc.rc || !strings.Contains(out.String(), "Forget these? [y/N] ") {
			t.Errorf("answer %q: rc %d, stdout %q, stderr %q; want %d and the question", tc.answer, rc, out.String(), errb.String(), tc.rc)
		}
		db, err = memory.Memory{DataDir: data}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.ForgetPreview(context.Background(), store.ForgetScope{Before: memtest.At(1000)}, 0)
		db.Close()
		if err != nil || p.Observations != tc.left {
			t.Errorf("answer %q: %d observations left, %v; want %d", tc.answer, p.Observations, err, tc.left)
		}
	}
}

func obs(id int64) vocab.Ref { return vocab.Ref{Kind: vocab.KindObservation, ID: id} }

func TestParseForgetArgs(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	for _, tc := range []struct {
		args []string
		want forgetOpts
		bad  string
	}{
		{[]string{"12", "#13", "--yes"}, forgetOpts{sel: forget.Selector{Refs: []vocab.Ref{obs(12), obs(13)}}, yes: true}, ""},
		{[]string{"--yes", "12", "--vacuum", "14"}, forgetOpts{sel: forget.Selector{Refs: []vocab.Ref{obs(12), obs(14)}}, yes: true, vacuum: true}, ""},
		{[]string{"S3", "#p7", "12"}, forgetOpts{sel: forget.Selector{Refs: []vocab.Ref{{Kind: vocab.KindSummary, ID: 3},
			{Kind: vocab.KindPrompt, ID: 7}, obs(12)}}}, ""},
		{[]string{"--session", "s1", "--dry-run"}, forgetOpts{sel: forget.Selector{Session: "s1"}, dryRun: true}, ""},
		{[]string{"--project=web", "--before", "2026-11-30"},
			forgetOpts{sel: forget.Selector{Project: "web", Before: time.Date(2026, 11, 30, 0, 0, 0, 0, loc)}}, ""},
		{[]string{"--before", "2026-11-30T10:00:00Z"}, forgetOpts{sel: forget.Selector{Before: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}, ""},
		{nil, forgetOpts{}, "nothing selected"},
		{[]string{"--yes", "--vacuum"}, forgetOpts{}, "nothing selected"},
		{[]string{"abc"}, forgetOpts{}, `"abc" is not a record id: use 12 (observation), S3 (summary) or P7 (prompt)`},
		{[]string{"0"}, forgetOpts{}, `"0" is not a record id`},
		{[]string{"S0"}, forgetOpts{}, `"S0" is not a record id`},
		{[]string{"--before", "yesterday"}, forgetOpts{}, `--before: "yesterday" is not a date`},
		{[]string{"--bogus"}, forgetOpts{}, "flag provided but not defined"},
	} {
		o, err := parseForgetArgs(tc.args, loc)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.bad)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(o, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v", tc.args, o, err, tc.want)
		}
	}
}

// parseForgetArgs is forget's command line as the table parses it.
func parseForgetArgs(args []string, loc *time.Location) (forgetOpts, error) {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o, before := forgetFlags(fs)
	ops, err := parseArgs(fs, args, true)
	if err == nil {
		err = o.finish(ops, *before, time.Now(), loc)
	}
	return *o, err
}
