package main

import (
	"flag"
	"github.com/claude-mem/claude-mem-go/internal/cmdtable"

	"github.com/claude-mem/claude-mem-go/forget"
)

// forgetCommand is `hook forget`: it shows what goes, asks on a terminal unless --yes
// (refuses, exit 2, when stdin is not a terminal), and removes it (forget.Talk). Exit 1
// when the user says no or the database fails.
var forgetCommand = &command{
	Name: "forget", Operands: "ID…",
	Choices:      []cmdtable.Choice{{Operands: true, Flags: []string{"session", "project", "before"}, Required: true}},
	Interspersed: true, Summary: "remove memory: shows what goes and asks first",
	Flags: func(fs *flag.FlagSet) action {
		o, before := forgetFlags(fs)
		return func(p *proc, ops []string) int {
			if err := o.Finish(ops, *before, p.now(), p.loc); err != nil {
				return p.usageError("forget", err.Error())
			}
			return forgetCmd(p, *o)
		}
	},
}

// forgetFlags declares forget's flags on fs: the options, and --before's text.
func forgetFlags(fs *flag.FlagSet) (*forget.Options, *string) {
	var o forget.Options
	fs.StringVar(&o.Sel.Session, "session", "", "everything of session `S`")
	fs.StringVar(&o.Sel.Project, "project", "", "everything of project `P`")
	before := fs.String("before", "", "everything before `DATE` (YYYY-MM-DD: local midnight, an RFC 3339 time, or an age: 7d)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "show what would go, remove nothing")
	fs.BoolVar(&o.Yes, "yes", false, "do not ask")
	fs.BoolVar(&o.Vacuum, "vacuum", false, "also rewrite the database so no removed text stays in free pages")
	fs.BoolVar(&o.JSON, "json", false, "print what goes (and went) as JSON; with --dry-run or --yes, since it asks nothing")
	return &o, before
}

func forgetCmd(p *proc, o forget.Options) int {
	m, close, ok := openMemory(p, "forget", false)
	defer close()
	if !ok {
		return 1
	}
	talk := forget.Talk{Prog: p.prog(), In: p.stdin, Out: p.stdout, Err: p.stderr, IsTerminal: p.isTerminal}
	return talk.Run(m.ctx, m.db, journalDirs(p, m.st), o)
}
