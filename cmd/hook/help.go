package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/claude-mem/claude-mem-go/doctor"
)

// helpCommand and versionCommand say what the binary is: its commands, and its version.
var helpCommand = &command{
	Name: "help", Operands: "[COMMAND]", Summary: "print this help, or a command's",
	Flags: func(*flag.FlagSet) action {
		return func(p *proc, ops []string) int {
			switch {
			case len(ops) == 0:
				fmt.Fprint(p.stdout, commands.Usage(p.prog()))
				return 0
			case len(ops) > 1:
				return p.usageError("help", "one command at a time")
			}
			c := commands.Lookup(ops[0])
			if c == nil {
				return commands.UnknownCommand(p.io(), ops[0])
			}
			c.Help(p.stdout, p.prog())
			return 0
		}
	},
}

var versionCommand = &command{
	Name: "version", Summary: "print the version",
	Flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, `print {"name":"claude-mem","version":…}`)
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.unexpected("version", ops)
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
