package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/viewer"
)

// viewerCommand is `claude-mem viewer [--port N] [--no-open]`: serves the local web UI until
// Ctrl-C or SIGTERM. Nothing listens before it starts or after it returns.
var viewerCommand = &command{
	Name: "viewer", Summary: "open the local web viewer (loopback only) until Ctrl-C",
	Flags: func(fs *flag.FlagSet) action {
		port := fs.Int("port", 0, "`N`: the port on 127.0.0.1 and ::1 (0: a free one)")
		noOpen := fs.Bool("no-open", false, "print the address without opening a browser")
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) > 0:
				return p.unexpected("viewer", ops)
			case *port < 0 || *port > 65535:
				return p.usageError("viewer", fmt.Sprintf("--port %d: not a port (0 to 65535)", *port))
			}
			return viewerCmd(p, *port, *noOpen)
		}
	},
}

func viewerCmd(p *proc, port int, noOpen bool) int {
	ctx, stop := signalContext()
	defer stop()
	st := setupFor(p, false) // a reader; forget makes the data dir when it first writes
	defer st.closeLog.Close()
	token, err := viewer.NewToken()
	if err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: %v\n", p.prog(), err)
		return 1
	}
	host, err := viewer.NewHost()
	if err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: %v\n", p.prog(), err)
		return 1
	}
	ln, bound, err := viewer.Listen(port)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: %v\n", p.prog(), err)
		return 1
	}
	h, err := viewer.New(viewer.Config{
		Memory: memoryOf(p, st),
		Report: func(ctx context.Context) *doctor.Report { return doctor.Build(ctx, doctorInputs(ctx, p, st)) },
		Now:    p.now, Loc: p.loc, BudgetUSD: st.s.DailyBudgetUSD, Host: host, Port: bound, Token: token,
		ContextObservations: st.s.ContextObservations, Command: p.command(),
	})
	if err != nil {
		ln.Close()
		fmt.Fprintf(p.stderr, "%s viewer: %v\n", p.prog(), err)
		return 1
	}
	url := viewer.URL(host, bound, token)
	fmt.Fprintf(p.stdout, "claude-mem viewer: %s\nPress Ctrl-C to stop it.\n", url)
	if argv := viewer.Opener(p.goos, p.env.Get, ""); argv != nil && !noOpen {
		if launcher, err := viewer.WriteLauncher(st.s.DataDir, bound, url); err != nil {
			fmt.Fprintf(p.stderr, "%s viewer: cannot open a browser (%v); open the address above\n", p.prog(), err)
		} else {
			defer os.Remove(launcher)
			openBrowser(p, viewer.Opener(p.goos, p.env.Get, launcher))
		}
	}
	st.log.Info().Int("port", bound).Msg("viewer started")
	if err := viewer.Serve(ctx, ln, h); err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: %v\n", p.prog(), err)
		return 1
	}
	st.log.Info().Msg("viewer stopped")
	return 0
}

// openBrowser starts the opener without a shell and without waiting for the browser; a
// failure only leaves the printed address to open by hand.
func openBrowser(p *proc, argv []string) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: cannot open a browser (%v); open the address above\n", p.prog(), err)
		return
	}
	// Stdio nil is the null device: the opener never writes over the printed address.
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: os.TempDir(), Env: p.env.List(), Stdin: nil, Stdout: nil, Stderr: nil}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(p.stderr, "%s viewer: cannot open a browser (%v); open the address above\n", p.prog(), err)
		return
	}
	go cmd.Wait()
}
