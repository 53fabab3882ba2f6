package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/logfile"
	"github.com/claude-mem/claude-mem-go/settings"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// proc is the process as values: only main fills it from the real process.
type proc struct {
	args           []string
	env            settings.Env
	stdin          io.Reader
	stdout, stderr io.Writer
	now            func() time.Time
	loc            *time.Location // the user's local time zone: the budget's day
	exe            string
	cwd            string
	xdgDataHome    string
	xdgCacheHome   string // the capture journal's fallback dir is under it
	tempDir        string // … else under this one
	goos           string
	pid, ppid      int
	isTerminal     func() bool // stdin is a terminal a person can answer on
}

const usage = `usage: hook [command]

With no command, hook reads one Claude Code hook event on stdin (hook mode); on a
terminal it prints this help instead.

Commands:
  doctor [--json] [--retry]   report setup, auth, settings, health and the observer spawn spec
  search [--project P] [--limit N] [--json] QUERY
                              search stored memory
  stats [--days N] [--project P] [--json]
                              what the observer did and cost, per day and project
  observe --session ID [--final]
                              run the observer for a session (started by hook mode)
  mcp                         the memory tools for the model, an MCP server on stdio
                              (started by Claude Code from the plugin's .mcp.json)
  viewer [--port N] [--no-open]
                              open the local web viewer (127.0.0.1 only) until Ctrl-C
  forget ID… | --session S | --project P | --before DATE [--dry-run] [--yes] [--vacuum]
                              remove memory: shows what goes and asks first
  export [--project P] [--since DATE] [-o FILE]
                              write memory as JSONL (a backup, or for another machine)
  import FILE                 add an export's memory; what is already there is skipped
  allow-tools [--check | --remove] [--json]
                              let the model call the memory tools without asking (a rule
                              in Claude Code's user settings; --remove takes it back)
  version                     print the version
  help                        print this help
`

func run(p *proc) int {
	if len(p.args) == 0 {
		// Claude Code never runs a hook on a terminal: a person typed a bare `hook`, and
		// waiting for hook JSON would look like a hang.
		if p.isTerminal != nil && p.isTerminal() {
			fmt.Fprint(p.stderr, usage)
			return 2
		}
		return hookMode(p)
	}
	switch p.args[0] {
	case "version", "--version":
		fmt.Fprintf(p.stdout, "claude-mem hook %s\n", version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(p.stdout, usage)
		return 0
	case "doctor":
		return doctorCmd(p, p.args[1:])
	case "search":
		return searchCmd(p, p.args[1:])
	case "observe":
		return observeCmd(p, p.args[1:])
	case "stats":
		return statsCmd(p, p.args[1:])
	case "mcp":
		return mcpCmd(p, p.args[1:])
	case "viewer":
		return viewerCmd(p, p.args[1:])
	case "forget":
		return forgetCmd(p, p.args[1:])
	case "export":
		return exportCmd(p, p.args[1:])
	case "import":
		return importCmd(p, p.args[1:])
	case "allow-tools":
		return allowCmd(p, p.args[1:])
	}
	fmt.Fprintf(p.stderr, "hook: unknown command %q\n\n%s", p.args[0], usage)
	return 2
}

// envState is what setup found: settings, the data dir's state and the log.
type envState struct {
	s          *settings.Settings
	dataDirErr error
	log        zerolog.Logger
	closeLog   io.Closer
}

func setup(p *proc) *envState {
	st := &envState{}
	st.s, st.dataDirErr = settings.Load(p.env, p.xdgDataHome, p.goos)
	if st.dataDirErr == nil {
		st.dataDirErr = settings.EnsureDataDir(st.s.DataDir)
	}
	logDir := st.s.DataDir
	if st.dataDirErr != nil {
		logDir = ""
	}
	st.log, st.closeLog = logfile.Open(logDir, st.s.LogLevel, p.pid, p.now)
	for _, e := range st.s.Errors {
		st.log.Warn().Str("key", e.Key).Str("problem", e.Problem).Str("using", e.Default).Msg("settings error")
	}
	for _, k := range st.s.DotEnvIgnored {
		st.log.Warn().Str("key", k).Msg(".env key not allowed; ignored")
	}
	return st
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
