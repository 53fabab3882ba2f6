package main

import (
	"flag"
	"github.com/claude-mem/claude-mem-go/internal/cmdtable"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/settings"
)

// The search command line: flags anywhere among the query's words, `--` ends them, and a
// bad flag or value is a usage error (exit 2, one line naming it, the usage line) instead of
// query words (`-n 2 flaky` once matched "Vitest 2").
func TestSearchCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want searchOpts
	}{
		{[]string{"queue", "race"}, searchOpts{limit: 20, query: "queue race"}},
		{[]string{"--project", "web", "--limit=5", "--json", "a:b", "c"}, searchOpts{project: "web", limit: 5, json: true, query: "a:b c"}},
		{[]string{"x", "--project=api", "y"}, searchOpts{project: "api", limit: 20, query: "x y"}},
		{[]string{"--", "--json", "-bar"}, searchOpts{limit: 20, query: "--json -bar"}},
		{[]string{"foo", "--", "-bar"}, searchOpts{limit: 20, query: "foo -bar"}},
	} {
		fs := flag.NewFlagSet("search", flag.ContinueOnError)
		var got searchOpts
		act := searchCommand.Flags(fs)
		ops, err := cmdtable.Parse(fs, tc.args, true)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		_ = act // the action reads the same flag values the parse set
		fs.VisitAll(func(f *flag.Flag) {
			switch f.Name {
			case "project":
				got.project = f.Value.String()
			case "json":
				got.json = f.Value.String() == "true"
			case "limit":
				got.limit = int(f.Value.(flag.Getter).Get().(int))
			}
		})
		got.query = strings.Join(ops, " ")
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "2", "flaky"}, "hook search: unknown flag -n\n"},
		{[]string{"foo", "-bar"}, "hook search: unknown flag --bar\n"},
		{[]string{"--limit"}, "hook search: --limit needs a value\n"},
		{[]string{"--limit", "x", "y"}, "hook search: --limit: \"x\" is not a valid value\n"},
		{[]string{"--limit", "0", "y"}, "hook search: --limit 0: at least 1\n"},
		{[]string{"--json=maybe", "y"}, "hook search: --json: \"maybe\" is not true or false\n"},
		{[]string{"--json"}, "hook search: no query\n"},
	} {
		rc, out, errs := runProc(t, settings.Env{}, "", append([]string{"search"}, tc.args...)...)
		if rc != 2 || out != "" || errs != tc.want+"usage: hook search [--author NAME] [--json] [--limit N] [--project P] QUERY\n" {
			t.Errorf("%q: rc %d stdout %q stderr %q; want 2 and %q with the usage line", tc.args, rc, out, errs, tc.want)
		}
	}
}

// help NAME, NAME --help and NAME -h print the same generated help on stdout, exit 0; the
// usage line there is the one usage errors print.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands.Commands {
		_, want, _ := runProc(t, settings.Env{}, "", "help", c.Name)
		if !strings.HasPrefix(unwrapped(want), unwrapped("usage: hook "+c.UsageLine()+"\n\n"+cmdtable.UpperFirst(c.Summary)+"\n")) {
			t.Errorf("help %s:\n%s", c.Name, want)
		}
		for _, h := range []string{"--help", "-h"} {
			rc, out, errs := runProc(t, settings.Env{}, "", c.Name, h)
			if rc != 0 || out != want || errs != "" {
				t.Errorf("%s %s: rc %d stdout %q stderr %q; want 0 and help's text", c.Name, h, rc, out, errs)
			}
		}
		if !strings.Contains(unwrapped(commands.Usage("hook")), " "+unwrapped(c.UsageLine())) {
			t.Errorf("the general help does not list %s as %q", c.Name, c.UsageLine())
		}
	}
	_, out, _ := runProc(t, settings.Env{}, "", "help", "search")
	for _, want := range []string{"  --limit N      at most N hits (default 20)\n", "  --json         print one JSON object per hit\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help search lacks %q:\n%s", want, out)
		}
	}
	if rc, _, errs := runProc(t, settings.Env{}, "", "help", "frob"); rc != 2 || !strings.HasPrefix(errs, `hook: unknown command "frob"`) {
		t.Errorf("help frob: rc %d stderr %q", rc, errs)
	}
}

// Usage and errors name the command as the user invoked it (a claude-mem link).
func TestNamedAsInvoked(t *testing.T) {
	var out, errb strings.Builder
	p := &proc{name: "/home/u/.local/bin/claude-mem", args: []string{"search"}, stdout: &out, stderr: &errb, env: settings.Env{}}
	if rc := run(p); rc != 2 || !strings.HasPrefix(errb.String(), "claude-mem search: no query\nusage: claude-mem search ") {
		t.Errorf("rc %d stderr %q", rc, errb.String())
	}
	errb.Reset()
	p.args = []string{"frob"}
	run(p)
	if !strings.Contains(errb.String(), "usage: claude-mem [command]") || !strings.Contains(errb.String(), "Run 'claude-mem help COMMAND'") {
		t.Errorf("%q", errb.String())
	}
}

// isTerminal is what turns the bold marks on: a file or a buffer is no terminal.
func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&strings.Builder{}) {
		t.Error("a file or a buffer is not a terminal")
	}
}

// unwrapped is text with its lines joined and spaces collapsed: help wrapped at
// cmdtable.Width reads as its words again.
func unwrapped(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestHelpFitsAScreen: every line of the general help, of each command's help and of each
// usage error is at most cmdtable.Width (100) columns. The control: the forget usage line and
// the mcp summary are wider than that unwrapped, so the wrapping is what keeps them in.
func TestHelpFitsAScreen(t *testing.T) {
	outputs := map[string]string{"help": commands.Usage("claude-mem")}
	for _, c := range commands.Commands {
		_, out, _ := runProc(t, settings.Env{}, "", "help", c.Name)
		outputs["help "+c.Name] = out
		_, _, errs := runProc(t, settings.Env{}, "", c.Name, "--frob")
		outputs[c.Name+" --frob"] = errs
	}
	for name, out := range outputs {
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > cmdtable.Width {
				t.Errorf("%s: line %d has %d columns: %q", name, i+1, n, l)
			}
		}
	}
	if n := len("usage: claude-mem " + forgetCommand.UsageLine()); n <= cmdtable.Width {
		t.Errorf("control: the forget usage line is %d columns unwrapped; the test no longer shows wrapping", n)
	}
}
