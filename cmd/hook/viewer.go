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

// viewerCmd is `hook viewer [--port N] [--no-open]`: serves the local web UI until Ctrl-C
// or SIGTERM. Nothing listens before it starts or after it returns.
func viewerCmd(p *proc, args []string) int {
	fs := flag.NewFlagSet("viewer", flag.ContinueOnError)
	fs.SetOutput(p.stderr)
	port := fs.Int("port", 0, "port on 127.0.0.1 (0: a free one)")
	noOpen := fs.Bool("no-open", false, "print the address without opening a browser")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *port < 0 || *port > 65535 {
		fmt.Fprintln(p.stderr, "usage: hook viewer [--port N] [--no-open]")
		return 2
	}
	ctx, stop := signalContext()
	defer stop()
	st := setup(p)
	defer st.closeLog.Close()
	token, err := viewer.NewToken()
	if err != nil {
		fmt.Fprintf(p.stderr, "hook viewer: %v\n", err)
		return 1
	}
	ln, bound, err := viewer.Listen(*port)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook viewer: %v\n", err)
		return 1
	}
	h, err := viewer.New(viewer.Config{
		DBPath:      dbPath(st.s),
		JournalDirs: journalDirs(p, st),
		Ingest:      func(ctx context.Context) error { return ingestPending(ctx, p, st) },
		Report:      func(ctx context.Context) *doctor.Report { return doctor.Build(ctx, doctorInputs(ctx, p, st)) },
		Now:         p.now, Loc: p.loc, BudgetUSD: st.s.DailyBudgetUSD, Port: bound, Token: token,
	})
	if err != nil {
		ln.Close()
		fmt.Fprintf(p.stderr, "hook viewer: %v\n", err)
		return 1
	}
	url := viewer.URL(bound, token)
	fmt.Fprintf(p.stdout, "claude-mem viewer: %s\nPress Ctrl-C to stop it.\n", url)
	if argv := viewer.Opener(p.goos, p.env.Get, url); argv != nil && !*noOpen {
		openBrowser(p, argv)
	}
	st.log.Info().Int("port", bound).Msg("viewer started")
	if err := viewer.Serve(ctx, ln, h); err != nil {
		fmt.Fprintf(p.stderr, "hook viewer: %v\n", err)
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
		fmt.Fprintf(p.stderr, "hook viewer: cannot open a browser (%v); open the address above\n", err)
		return
	}
	// Stdio nil is the null device: the opener never writes over the printed address.
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: os.TempDir(), Env: p.env.List(), Stdin: nil, Stdout: nil, Stderr: nil}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(p.stderr, "hook viewer: cannot open a browser (%v); open the address above\n", err)
		return
	}
	go cmd.Wait()
}
