package cmdtable

import (
	"bytes"
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// env is what the test actions run with: the operands they got.
type env struct{ got []string }

func cmd(name string, decl func(fs *flag.FlagSet), c Command[*env]) *Command[*env] {
	c.Name = name
	c.Flags = func(fs *flag.FlagSet) Action[*env] {
		decl(fs)
		return func(e *env, ops []string) int { e.got = ops; return 0 }
	}
	return &c
}

var table = &Table[*env]{
	Commands: []*Command[*env]{
		cmd("find", func(fs *flag.FlagSet) {
			fs.Int("limit", 20, "at most `N` hits")
			fs.Bool("json", false, "print JSON")
		}, Command[*env]{Operands: "QUERY", Summary: "find things", Interspersed: true}),
		cmd("drop", func(fs *flag.FlagSet) {
			fs.String("session", "", "of session `S`")
			fs.String("before", "", "before `DATE`")
			fs.Bool("yes", false, "do not ask")
			fs.Bool("dry-run", false, "remove nothing")
		}, Command[*env]{Operands: "ID…", Summary: "drop things", Choices: []Choice{{Operands: true, Flags: []string{"session", "before"}, Required: true}}}),
		cmd("allow", func(fs *flag.FlagSet) {
			fs.Bool("check", false, "only check")
			fs.Bool("remove", false, "take it back")
			fs.Bool("json", false, "print JSON")
		}, Command[*env]{Summary: "allow things", Choices: []Choice{{Flags: []string{"check", "remove"}}}}),
		cmd("run", func(fs *flag.FlagSet) {
			fs.String("session", "", "the session `ID`")
			fs.Bool("final", false, "also summarize")
		}, Command[*env]{Required: []string{"session"}, Internal: true, Summary: "run one"}),
	},
	Intro:           func(prog string) string { return prog + " does things.\n" },
	InternalHeading: "Started by the host:",
}

// The usage line, generated: the choices first (required bare, optional in brackets), the
// required flags, then the other flags by name, then the operands no choice took.
func TestUsageLine(t *testing.T) {
	for name, want := range map[string]string{
		"find":  "find [--json] [--limit N] QUERY",
		"drop":  "drop ID… | --session S | --before DATE [--dry-run] [--yes]",
		"allow": "allow [--check | --remove] [--json]",
		"run":   "run --session ID [--final]",
	} {
		if got := table.Lookup(name).UsageLine(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if table.Lookup("nope") != nil {
		t.Error("a command that is not in the table was found")
	}
}

// A choice or a required flag naming no flag is a table's mistake, found at once.
func TestUsageLineOfAMistypedFlagPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `no flag "sesion"`) {
			t.Errorf("recovered %v, want the mistyped flag named", r)
		}
	}()
	cmd("bad", func(fs *flag.FlagSet) { fs.String("session", "", "") }, Command[*env]{Required: []string{"sesion"}}).UsageLine()
}

func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		cmd      string
		args     []string
		rc       int
		got      []string
		out, err string
	}{
		{"find", []string{"a", "--json", "b", "--", "--limit"}, 0, []string{"a", "b", "--limit"}, "", ""},
		{"drop", []string{"1", "--yes"}, 0, []string{"1", "--yes"}, "", ""}, // not interspersed: the first operand ends the flags
		{"find", []string{"--limit", "x", "q"}, 2, nil, "", "t find: --limit: \"x\" is not a valid value\nusage: t find [--json] [--limit N] QUERY\n"},
		{"find", []string{"--json=maybe", "q"}, 2, nil, "", "t find: --json: \"maybe\" is not true or false\nusage: t find [--json] [--limit N] QUERY\n"},
		{"find", []string{"-n", "2"}, 2, nil, "", "t find: unknown flag -n\nusage: t find [--json] [--limit N] QUERY\n"},
		{"find", []string{"--limit"}, 2, nil, "", "t find: --limit needs a value\nusage: t find [--json] [--limit N] QUERY\n"},
		{"run", []string{"-h"}, 0, nil, "usage: t run --session ID [--final]\n\nRun one\n\nFlags:\n  --final       also summarize\n  --session ID  the session ID\n", ""},
	} {
		var out, errb bytes.Buffer
		e := &env{}
		rc := table.Dispatch(e, table.Lookup(tc.cmd), tc.args, IO{Prog: "t", Out: &out, Err: &errb})
		if rc != tc.rc || !reflect.DeepEqual(e.got, tc.got) || out.String() != tc.out || errb.String() != tc.err {
			t.Errorf("%s %q: rc %d, operands %q\nstdout %q\nstderr %q\nwant %d, %q\nstdout %q\nstderr %q",
				tc.cmd, tc.args, rc, e.got, out.String(), errb.String(), tc.rc, tc.got, tc.out, tc.err)
		}
	}
}

// The general help: the intro, the commands with their summaries, the internal ones under
// their heading, and a wide usage line wrapped under its command.
func TestUsage(t *testing.T) {
	want := "usage: t [command]\n\nt does things.\n\nCommands:\n" +
		"  find [--json] [--limit N] QUERY\n                              find things\n" +
		"  drop ID… | --session S | --before DATE [--dry-run] [--yes]\n                              drop things\n" +
		"  allow [--check | --remove] [--json]\n                              allow things\n" +
		"\nStarted by the host:\n" +
		"  run --session ID [--final]  run one\n" +
		"\nRun 't help COMMAND' or 't COMMAND --help' for a command's flags.\n"
	if got := table.Usage("t"); got != want {
		t.Errorf("\n%s\nwant\n%s", got, want)
	}
	var errb bytes.Buffer
	if rc := table.UnknownCommand(IO{Prog: "t", Err: &errb}, "frob"); rc != 2 || errb.String() != "t: unknown command \"frob\"\n\n"+want {
		t.Errorf("unknown command: rc %d %q", rc, errb.String())
	}
}
