// Package cmdtable is a command-line tool's table of subcommands, each declared once: the
// general help, `help NAME`, `NAME --help`, every usage line and every usage error are
// generated from it, and flags are parsed by it (operands between them when a command
// takes them so). P is what an action runs with: the process, as values.
package cmdtable

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/claude-mem/claude-mem-go/internal/textwrap"
)

// Command is one subcommand.
type Command[P any] struct {
	Name     string
	Operands string // what follows the flags in the usage line, e.g. "QUERY"
	Summary  string // one line for the general help
	// Choices are alternatives shown as one, in the usage line's lead: "A | B | C".
	Choices []Choice
	// Required are flags the command cannot run without, shown without brackets.
	Required []string
	// Interspersed: flags may come after operands (search flaky test --json); otherwise the
	// first operand ends the flags, as in package flag. `--` always ends them.
	Interspersed bool
	Internal     bool // started by the tool itself or its host, not typed by a person
	// Flags declares the command's flags on fs and returns the action, which reads them.
	Flags func(fs *flag.FlagSet) Action[P]
}

// Choice is a group of alternatives: exactly one when Required (shown bare), at most one
// otherwise (in brackets). Operands, when set, is the first alternative: the command's
// operands (forget ID… | --session S).
type Choice struct {
	Operands bool
	Flags    []string
	Required bool
}

// Action runs a command with its operands and returns the exit status.
type Action[P any] func(p P, operands []string) int

// Table is the tool's commands and the words of its general help.
type Table[P any] struct {
	Commands []*Command[P] // in the order the help lists them
	// Intro is the general help's paragraph after its usage line, for the tool named prog.
	Intro func(prog string) string
	// InternalHeading heads the commands marked Internal, after the others.
	InternalHeading string
}

// Lookup is the command named name, or nil.
func (t *Table[P]) Lookup(name string) *Command[P] {
	for _, c := range t.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Width is the width help and usage lines wrap at: a terminal's 100 columns, off one too.
const Width = 100

// IO is where a command's help and errors go, and the tool's name as invoked.
type IO struct {
	Prog     string
	Out, Err io.Writer
}

// Dispatch parses args for c and runs its action: --help and -h print c's help on Out
// (exit 0), a bad flag is a usage error (exit 2).
func (t *Table[P]) Dispatch(p P, c *Command[P], args []string, o IO) int {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	act := c.Flags(fs)
	ops, err := Parse(fs, args, c.Interspersed)
	if errors.Is(err, flag.ErrHelp) {
		c.help(o.Out, o.Prog, fs)
		return 0
	}
	if err != nil {
		return t.UsageError(o, c.Name, FlagError(err))
	}
	return act(p, ops)
}

// Help prints c's help (`help NAME`): the usage line, the summary, and each flag.
func (c *Command[P]) Help(w io.Writer, prog string) {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	c.Flags(fs)
	c.help(w, prog, fs)
}

// Parse parses flags, and operands between them when interspersed, until `--`.
func Parse(fs *flag.FlagSet, args []string, interspersed bool) ([]string, error) {
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

// FlagError says package flag's errors in the help's spelling (dashed: -o, --name).
func FlagError(err error) string {
	msg := err.Error()
	for _, r := range []struct{ prefix, say string }{
		{"flag provided but not defined: -", "unknown flag %s"},
		{"flag needs an argument: -", "%s needs a value"},
	} {
		if name, ok := strings.CutPrefix(msg, r.prefix); ok {
			return fmt.Sprintf(r.say, Dashed(strings.TrimLeft(name, "-")))
		}
	}
	if v, rest, ok := strings.Cut(strings.TrimPrefix(msg, "invalid value "), " for flag -"); ok && strings.HasPrefix(msg, "invalid value ") {
		name, _, _ := strings.Cut(rest, ":")
		return fmt.Sprintf("%s: %s is not a valid value", Dashed(name), v)
	}
	if v, name, ok := strings.Cut(strings.TrimPrefix(msg, "invalid boolean value "), " for -"); ok && strings.HasPrefix(msg, "invalid boolean value ") {
		name, _, _ = strings.Cut(name, ":")
		return fmt.Sprintf("%s: %s is not true or false", Dashed(name), v)
	}
	return msg
}

// UsageError prints "<prog> <name>: msg" and the command's usage line on Err; exit 2.
func (t *Table[P]) UsageError(o IO, name, msg string) int {
	fmt.Fprintf(o.Err, "%s %s: %s\n", o.Prog, name, msg)
	if c := t.Lookup(name); c != nil {
		io.WriteString(o.Err, usage(o.Prog, c.UsageLine()))
	}
	return 2
}

// UnknownCommand prints that name is no command, and the general help, on Err; exit 2.
func (t *Table[P]) UnknownCommand(o IO, name string) int {
	fmt.Fprintf(o.Err, "%s: unknown command %q\n\n%s", o.Prog, name, t.Usage(o.Prog))
	return 2
}

// UsageLine is "search [--json] [--limit N] [--project P] QUERY": the choices, the required
// flags, the other flags in brackets (by name), then the operands.
func (c *Command[P]) UsageLine() string {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	c.Flags(fs)
	return c.usageLine(fs)
}

func (c *Command[P]) usageLine(fs *flag.FlagSet) string {
	shown := func(name string) string {
		f := fs.Lookup(name)
		if f == nil {
			panic(fmt.Sprintf("cmdtable: %s: no flag %q", c.Name, name))
		}
		if v, _ := flag.UnquoteUsage(f); v != "" {
			return Dashed(name) + " " + v
		}
		return Dashed(name)
	}
	parts, taken, operands := []string{c.Name}, map[string]bool{}, c.Operands != ""
	for _, ch := range c.Choices {
		var alts []string
		if ch.Operands {
			alts, operands = append(alts, c.Operands), false
		}
		for _, name := range ch.Flags {
			alts, taken[name] = append(alts, shown(name)), true
		}
		if s := strings.Join(alts, " | "); ch.Required {
			parts = append(parts, s)
		} else {
			parts = append(parts, "["+s+"]")
		}
	}
	for _, name := range c.Required {
		parts, taken[name] = append(parts, shown(name)), true
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !taken[f.Name] {
			parts = append(parts, "["+shown(f.Name)+"]")
		}
	})
	if operands {
		parts = append(parts, c.Operands)
	}
	return strings.Join(parts, " ")
}

// usage is "usage: <prog> <line>", continued under the command's name when it is wider
// than Width.
func usage(prog, line string) string {
	head := "usage: " + prog + " "
	return textwrap.Wrap(line, Width, head, strings.Repeat(" ", len(head)))
}

func (c *Command[P]) help(w io.Writer, prog string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n%s", usage(prog, c.usageLine(fs)), textwrap.Wrap(UpperFirst(c.Summary), Width, "", ""))
	var lines [][2]string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		v, use := flag.UnquoteUsage(f)
		name := Dashed(f.Name)
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
		io.WriteString(w, textwrap.Wrap(l[1], Width, head, strings.Repeat(" ", len(head))))
	}
}

// Usage is the general help: Intro, the commands a person types, then those the tool's
// host starts (InternalHeading), each with its usage line and summary.
func (t *Table[P]) Usage(prog string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s [command]\n\n", prog)
	b.WriteString(t.Intro(prog))
	for _, internal := range []bool{false, true} {
		if internal {
			b.WriteString("\n" + t.InternalHeading + "\n")
		} else {
			b.WriteString("\nCommands:\n")
		}
		for _, c := range t.Commands {
			if c.Internal != internal {
				continue
			}
			const col = 30 // where the summaries start
			line, indent := "  "+c.UsageLine(), strings.Repeat(" ", col)
			if len(line) < col {
				b.WriteString(textwrap.Wrap(c.Summary, Width, fmt.Sprintf("%-*s", col, line), indent))
			} else {
				b.WriteString(textwrap.Wrap(c.UsageLine(), Width, "  ", "    ") + textwrap.Wrap(c.Summary, Width, indent, indent))
			}
		}
	}
	fmt.Fprintf(&b, "\nRun '%s help COMMAND' or '%s COMMAND --help' for a command's flags.\n", prog, prog)
	return b.String()
}

// Dashed is a flag as the help spells it: -o, --project.
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// UpperFirst is s with its first letter upper case: a summary as a help's sentence.
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
