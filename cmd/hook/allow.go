package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/claude-mem/claude-mem-go/permit"
	"github.com/claude-mem/claude-mem-go/settings"
)

const allowUsage = "usage: hook allow-tools [--check | --remove] [--json]"

// allowCmd is `hook allow-tools [--check | --remove] [--json]`: the permission rule that lets
// the model call the memory tools, in Claude Code's user settings (make install asks first).
func allowCmd(p *proc, args []string) int {
	fs := flag.NewFlagSet("allow-tools", flag.ContinueOnError)
	fs.SetOutput(p.stderr)
	check := fs.Bool("check", false, "only say whether the tools are allowed (exit 1 when not)")
	remove := fs.Bool("remove", false, "take back the rule allow-tools added")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *check && *remove {
		fmt.Fprintln(p.stderr, allowUsage)
		return 2
	}
	st := setup(p)
	defer st.closeLog.Close()
	if st.dataDirErr != nil {
		fmt.Fprintf(p.stderr, "hook allow-tools: %v\n", st.dataDirErr)
		return 1
	}
	paths := permit.PathsFor(settings.ClaudeConfigDir(p.env, settings.Home(p.env, p.goos)), st.s.DataDir)
	var r permit.Result
	var err error
	switch {
	case *check:
		r.Settings = paths.Settings
		r.State, err = permit.Check(paths.Settings)
		r.Message = fmt.Sprintf("the memory tools are %s in %s", r.State, paths.Settings)
	case *remove:
		r, err = permit.Disallow(paths)
	default:
		r, err = permit.Allow(paths)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "hook allow-tools: %v\n", err)
		return 1
	}
	if *asJSON {
		_ = json.NewEncoder(p.stdout).Encode(r)
	} else {
		fmt.Fprintln(p.stdout, "claude-mem: "+r.Message)
	}
	if (*check || !*remove) && r.State != permit.Allowed {
		return 1
	}
	return 0
}
