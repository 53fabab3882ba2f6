package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/internal/textwrap"
	"github.com/claude-mem/claude-mem-go/settings"
)

// command is one subcommand, declared once: the general help, `help NAME`, `NAME --help`,
// and every usage error are generated from it.
type command struct {
	name     string
	operands string // what follows the flags in the usage line, e.g. "QUERY"
	synopsis string // the whole usage line after the name, when flags alone cannot say it
	summary  string // one line for the general help
	// interspersed: flags may come after operands (search flaky test --json); otherwise the
	// first operand ends the flags, as in package flag. `--` always ends them.
	interspersed bool
	internal     bool // started by Claude Code or the plugin, not typed by a person
	// flags declares the command's flags on fs and returns the action, which reads them.
	flags func(fs *flag.FlagSet) action
}

// action runs a command with its operands and returns the exit status.
type action func(p *proc, operands []string) int

// commandTable is the command table, in the order the help lists them. Set by init, since
// help's action (and every usage error) reads it: an initializer would be a cycle.
var commandTable []*command

func init() {
	commandTable = []*command{
		doctorCommand, searchCommand, statsCommand, viewerCommand, forgetCommand, exportCommand,
		importCommand, allowCommand, versionCommand, helpCommand, observeCommand, upgradeCommand, mcpCommand,
	}
}

func lookup(name string) *command {
	for _, c := range commandTable {
		if c.name == name {
			return c
		}
	}
	return nil
}

// userName is the command's name as a person runs it: the ~/.local/bin/claude-mem link to
// bin/hook, which Claude Code never runs (hooks.json runs bin/hook).
const userName = "claude-mem"

// prog is the command's name as the user invoked it (claude-mem, hook), for usage and
// errors.
func (p *proc) prog() string {
	if p.name == "" {
		return "hook"
	}
	return strings.TrimSuffix(filepath.Base(p.name), ".exe")
}

// command is how the user runs this binary, for the commands printed for them to run
// (doctor.Command): claude-mem, when that name on their PATH is this binary.
func (p *proc) command() string {
	return doctor.Command(p.env.Get("PATH"), settings.Home(p.env, p.goos), p.exe)
}

// dispatch parses args for c and runs it: --help and -h print c's help (exit 0), a bad
// flag is a usage error (exit 2).
func dispatch(p *proc, c *command, args []string) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	act := c.flags(fs)
	ops, err := parseArgs(fs, args, c.interspersed)
	if errors.Is(err, flag.ErrHelp) {
		c.help(p.stdout, p.prog(), fs)
		return 0
	}
	if err != nil {
		return p.usageError(c.name, flagError(err))
	}
	return act(p, ops)
}

// parseArgs parses flags, and operands between them when interspersed, until `--`.
func parseArgs(fs *flag.FlagSet, args []string, interspersed bool) ([]string, error) {
	var ops []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); len(rest) == 0 || !interspersed || n > 0 && args[n-1] == "--" {
			return append(ops, rest...), nil
		}
		ops, args = append(ops, rest[0]), rest[1:]
	}
}

// flagError says package flag's errors in the help's spelling (dashed: -o, --name).
func flagError(err error) string {
	msg := err.Error()
	for _, r := range []struct{ prefix, say string }{
		{"flag provided but not defined: -", "unknown flag %s"},
		{"flag needs an argument: -", "%s needs a value"},
	} {
		if name, ok := strings.CutPrefix(msg, r.prefix); ok {
			return fmt.Sprintf(r.say, dashed(strings.TrimLeft(name, "-")))
		}
	}
	if v, rest, ok := strings.Cut(strings.TrimPrefix(msg, "invalid value "), " for flag -"); ok && strings.HasPrefix(msg, "invalid value ") {
		name, _, _ := strings.Cut(rest, ":")
		return fmt.Sprintf("%s: %s is not a valid value", dashed(name), v)
	}
	if v, name, ok := strings.Cut(strings.TrimPrefix(msg, "invalid boolean value "), " for -"); ok && strings.HasPrefix(msg, "invalid boolean value ") {
		name, _, _ = strings.Cut(name, ":")
		return fmt.Sprintf("%s: %s is not true or false", dashed(name), v)
	}
	return msg
}

// usageError prints "<prog> <name>: msg" and the command's usage line on stderr; exit 2.
func (p *proc) usageError(name, msg string) int {
	fmt.Fprintf(p.stderr, "%s %s: %s\n", p.prog(), name, msg)
	if c := lookup(name); c != nil {
		io.WriteString(p.stderr, usage(p.prog(), c.usageLine(nil)))
	}
	return 2
}

// usageLine is "search [--json] [--limit N] [--project P] QUERY". fs holds the flags (nil:
// declared afresh).
func (c *command) usageLine(fs *flag.FlagSet) string {
	if c.synopsis != "" {
		return c.name + " " + c.synopsis
	}
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
	}
	parts := []string{c.name}
	fs.VisitAll(func(f *flag.Flag) {
		if v, _ := flag.UnquoteUsage(f); v != "" {
			parts = append(parts, "["+dashed(f.Name)+" "+v+"]")
		} else {
			parts = append(parts, "["+dashed(f.Name)+"]")
		}
	})
	if c.operands != "" {
		parts = append(parts, c.operands)
	}
	return strings.Join(parts, " ")
}

// helpWidth is the width help and usage lines wrap at: a terminal's 100 columns, off one too.
const helpWidth = offTerminalWidth

// usage is "usage: <prog> <line>", continued under the command's name when it is wider
// than helpWidth.
func usage(prog, line string) string {
	head := "usage: " + prog + " "
	return textwrap.Wrap(line, helpWidth, head, strings.Repeat(" ", len(head)))
}

// help is `help NAME` and `NAME --help`: the usage line, the summary, and each flag.
func (c *command) help(w io.Writer, prog string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n%s", usage(prog, c.usageLine(fs)), textwrap.Wrap(upperFirst(c.summary), helpWidth, "", ""))
	var lines [][2]string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		v, use := flag.UnquoteUsage(f)
		name := dashed(f.Name)
		if v != "" {
			name += " " + v
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			use += " (default " + f.DefValue + ")"
		}
		lines = append(lines, [2]string{name, use})
		width = max(width, len(name))
	})
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nFlags:")
	}
	for _, l := range lines {
		head := fmt.Sprintf("  %-*s  ", width, l[0])
		io.WriteString(w, textwrap.Wrap(l[1], helpWidth, head, strings.Repeat(" ", len(head))))
	}
}

// usageText is the general help, generated from the table.
func usageText(prog string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s [command]\n\n", prog)
	fmt.Fprintf(&b, "With no command, %s reads one Claude Code hook event on stdin (hook mode); on a\nterminal it prints this help instead.\n", prog)
	for _, internal := range []bool{false, true} {
		if internal {
			b.WriteString("\nStarted by Claude Code and the plugin:\n")
		} else {
			b.WriteString("\nCommands:\n")
		}
		for _, c := range commandTable {
			if c.internal != internal {
				continue
			}
			const col = 30 // where the summaries start
			line, indent := "  "+c.usageLine(nil), strings.Repeat(" ", col)
			if len(line) < col {
				b.WriteString(textwrap.Wrap(c.summary, helpWidth, fmt.Sprintf("%-*s", col, line), indent))
			} else {
				b.WriteString(textwrap.Wrap(c.usageLine(nil), helpWidth, "  ", "    ") + textwrap.Wrap(c.summary, helpWidth, indent, indent))
			}
		}
	}
	fmt.Fprintf(&b, "\nRun '%s help COMMAND' or '%s COMMAND --help' for a command's flags.\n", prog, prog)
	return b.String()
}

// dashed is a flag as the help spells it: -o, --project.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var helpCommand = &command{
	name: "help", operands: "[COMMAND]", summary: "print this help, or a command's",
	flags: func(*flag.FlagSet) action {
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) == 0:
				fmt.Fprint(p.stdout, usageText(p.prog()))
				return 0
			case len(ops) > 1:
				return p.usageError("help", "one command at a time")
			}
			c := lookup(ops[0])
			if c == nil {
				fmt.Fprintf(p.stderr, "%s: unknown command %q\n\n%s", p.prog(), ops[0], usageText(p.prog()))
				return 2
			}
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			c.flags(fs)
			c.help(p.stdout, p.prog(), fs)
			return 0
		}
	},
}

var versionCommand = &command{
	name: "version", summary: "print the version",
	flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, `print {"name":"claude-mem","version":…}`)
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.usageError("version", fmt.Sprintf("unexpected %q", ops[0]))
			}
			if *asJSON {
				_ = json.NewEncoder(p.stdout).Encode(struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				}{doctor.Name, version})
				return 0
			}
			fmt.Fprintf(p.stdout, "%s %s\n", doctor.Name, version)
			return 0
		}
	},
}
