// Command hook is claude-mem: every Claude Code hook (no arguments) and the doctor, search,
// observe, forget, export, import and version subcommands, in one static executable.
package main

import (
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/adrg/xdg"
	"github.com/mattn/go-isatty"

	"github.com/claude-mem/claude-mem-go/cmd/hook/internal/coverdir"
	"github.com/claude-mem/claude-mem-go/settings"

	// Imported for its init, which Go runs among the first (it needs only os/signal): it
	// holds SIGTERM, SIGINT and SIGHUP until hook mode's record is appended.
	_ "github.com/claude-mem/claude-mem-go/cmd/hook/internal/holdsig"
)

func main() {
	coverdir.Restore()
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	env := settings.EnvFrom(os.Environ())
	// The temp fallback's name carries the uid; Windows has none (-1), and its temp dir is
	// the user's own.
	uid := ""
	if id := os.Getuid(); id >= 0 {
		uid = strconv.Itoa(id)
	}
	host, _ := os.Hostname()
	os.Exit(run(&proc{
		name: os.Args[0], args: os.Args[1:], env: env,
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		now: time.Now, loc: time.Local, exe: exe, cwd: cwd, xdgDataHome: xdg.DataHome, xdgRuntimeDir: env.Get("XDG_RUNTIME_DIR"), xdgCacheHome: xdg.CacheHome, tempDir: os.TempDir(), uid: uid, goos: runtime.GOOS, pid: os.Getpid(), ppid: os.Getppid(), hostname: host,
		isTerminal:     func() bool { return isatty.IsTerminal(os.Stdin.Fd()) || isatty.IsCygwinTerminal(os.Stdin.Fd()) },
		stderrTerminal: func() bool { return isTerminal(os.Stderr) }, columns: func() int { return terminalWidth(os.Stdout) },
	}))
}
