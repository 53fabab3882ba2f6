package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/claude-mem/claude-mem-go/settings"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// proc is the process as values: only main fills it from the real process.
type proc struct {
	name           string // os.Args[0]: usage and errors name the command as invoked
	args           []string
	env            settings.Env
	stdin          io.Reader
	stdout, stderr io.Writer
	now            func() time.Time
	loc            *time.Location // the user's local time zone: the budget's day
	exe            string
	cwd            string
	xdgDataHome    string
	xdgRuntimeDir  string // the capture journal's fallback dir is under it
	xdgCacheHome   string // … else under this one
	tempDir        string // … else under this one
	uid            string // the user's id, in the temp fallback's name; "" on Windows
	goos           string
	pid, ppid      int
	hostname       string      // this machine's name on what sync pushes, unless CLAUDE_MEM_MACHINE says
	isTerminal     func() bool // stdin is a terminal a person can answer on
	stderrTerminal func() bool // stderr is a terminal: progress lines are drawn there
	columns        func() int  // stdout's terminal width, 0 off a terminal
}

// offTerminalWidth is the width doctor wraps at off a terminal (a pipe, a file, a page).
const offTerminalWidth = 100

// width is the width to wrap a report at: stdout's terminal's, else $COLUMNS, else
// offTerminalWidth.
func (p *proc) width() int {
	if p.columns != nil {
		if w := p.columns(); w > 0 {
			return w
		}
	}
	if w, err := strconv.Atoi(p.env.Get("COLUMNS")); err == nil && w > 0 {
		return w
	}
	return offTerminalWidth
}

func run(p *proc) int {
	if len(p.args) == 0 {
		// Claude Code runs bin/hook, never on a terminal: a person typed a bare `hook` there,
		// and waiting for hook JSON would look like a hang. The claude-mem link is the
		// person's name for the command alone: bare, it is help wherever it runs, a pipe
		// included.
		if p.prog() == userName || p.isTerminal != nil && p.isTerminal() {
			fmt.Fprint(p.stderr, commands.Usage(p.prog()))
			return 2
		}
		return hookMode(p)
	}
	c, args := commands.Lookup(p.args[0]), p.args[1:]
	switch p.args[0] {
	case "--version":
		c, args = versionCommand, nil
	case "--help", "-h":
		c, args = helpCommand, nil
	}
	if c == nil {
		return commands.UnknownCommand(p.io(), p.args[0])
	}
	return commands.Dispatch(p, c, args, p.io())
}

// signalContext is cancelled by SIGTERM or SIGINT, for the commands: the signal no longer
// kills the process, so what is under way stops cleanly (a write commits or rolls back, an
// observer child is stopped, claimed events are released) and the process exits on its own.
func signalContext() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
}

func exeDir(exe string) string {
	if exe == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Dir(exe)
}
