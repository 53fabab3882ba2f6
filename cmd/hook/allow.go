package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/claude-mem/claude-mem-go/internal/cmdtable"

	"github.com/claude-mem/claude-mem-go/permit"
	"github.com/claude-mem/claude-mem-go/settings"
)

// allowCommand is `claude-mem allow-tools [--check | --remove | --backup-only] [--json]`: the
// permission rule that lets the model call the memory tools, in Claude Code's user settings
// (make install asks first, after --backup-only has kept the user's file).
var allowCommand = &command{
	Name: "allow-tools", Choices: []cmdtable.Choice{{Flags: []string{"check", "remove", "backup-only"}}},
	Summary: "let the model call the memory tools without asking (a rule in Claude Code's user settings)",
	Flags: func(fs *flag.FlagSet) action {
		check := fs.Bool("check", false, "only say whether the tools are allowed (exit 1 when not)")
		remove := fs.Bool("remove", false, "take back the rule allow-tools added")
		backupOnly := fs.Bool("backup-only", false, "only back up the settings file as it is (install runs it first)")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) > 0:
				return p.unexpected("allow-tools", ops)
			case *check && *remove, *check && *backupOnly, *remove && *backupOnly:
				return p.usageError("allow-tools", "--check, --remove and --backup-only: one at a time")
			}
			return allowCmd(p, *check, *remove, *backupOnly, *asJSON)
		}
	},
}

func allowCmd(p *proc, check, remove, backupOnly, asJSON bool) int {
	st := setup(p)
	defer st.closeLog.Close()
	if st.dataDirErr != nil {
		fmt.Fprintf(p.stderr, "%s allow-tools: %v\n", p.prog(), st.dataDirErr)
		return 1
	}
	paths := permit.PathsFor(settings.ClaudeConfigDir(p.env, settings.Home(p.env, p.goos)), st.s.DataDir)
	var r permit.Result
	var err error
	switch {
	case check:
		r.Settings = paths.Settings
		r.State, err = permit.Check(paths.Settings)
		r.Message = fmt.Sprintf("the memory tools are %s in %s", r.State, paths.Settings)
		if r.State == permit.NotAllowed {
			r.Message += "; to allow them: " + p.command() + " allow-tools"
		}
	case backupOnly:
		r, err = permit.BackUp(paths)
	case remove:
		r, err = permit.Disallow(paths)
	default:
		r, err = permit.Allow(paths)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s allow-tools: %v\n", p.prog(), err)
		return 1
	}
	if asJSON {
		_ = json.NewEncoder(p.stdout).Encode(r)
	} else {
		fmt.Fprintln(p.stdout, "claude-mem: "+r.Message)
	}
	if (check || !remove && !backupOnly) && r.State != permit.Allowed {
		return 1
	}
	return 0
}
