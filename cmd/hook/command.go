package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/internal/cmdtable"
	"github.com/claude-mem/claude-mem-go/settings"
)

// command is one subcommand, declared once (package cmdtable generates its help, usage
// line and usage errors); an action runs it with the process as values.
type (
	command = cmdtable.Command[*proc]
	action  = cmdtable.Action[*proc]
)

// commands is the command table, in the order the help lists them. Set by init, since
// help's action (and every usage error) reads it: an initializer would be a cycle.
var commands *cmdtable.Table[*proc]

func init() {
	commands = &cmdtable.Table[*proc]{
		Commands: []*command{
			doctorCommand, searchCommand, statsCommand, viewerCommand, forgetCommand, exportCommand,
			importCommand, syncCommand, teamCommand, shareCommand, unshareCommand, allowCommand, versionCommand,
			helpCommand, observeCommand, upgradeCommand, mcpCommand, syncRunCommand,
		},
		Intro: func(prog string) string {
			return fmt.Sprintf("With no command, %s reads one Claude Code hook event on stdin (hook mode); on a\nterminal it prints this help instead.\n", prog)
		},
		InternalHeading: "Started by Claude Code and the plugin:",
	}
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

// io is where help and usage errors go.
func (p *proc) io() cmdtable.IO { return cmdtable.IO{Prog: p.prog(), Out: p.stdout, Err: p.stderr} }

// command is how the user runs this binary, for the commands printed for them to run
// (doctor.Command): claude-mem, when that name on their PATH is this binary.
func (p *proc) command() string {
	return doctor.Command(p.env.Get("PATH"), settings.Home(p.env, p.goos), p.exe)
}

// usageError prints "<prog> <name>: msg" and the command's usage line on stderr; exit 2.
func (p *proc) usageError(name, msg string) int { return commands.UsageError(p.io(), name, msg) }

// unexpected is the usage error of a command that takes no operands but got some.
func (p *proc) unexpected(name string, ops []string) int {
	return p.usageError(name, fmt.Sprintf("unexpected %q", ops[0]))
}
