package main

import (
	"fmt"
	"io"
	"os"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/store"
)

// importCmd is `hook import FILE` (- for stdin): the whole file is checked before anything
// is stored, and a record already stored is skipped, so importing twice adds nothing.
func importCmd(p *proc, args []string) int {
	if len(args) != 1 || (len(args[0]) > 1 && args[0][0] == '-') {
		fmt.Fprintln(p.stderr, "usage: hook import FILE")
		return 2
	}
	name := args[0]
	var in io.Reader = p.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(p.stderr, "hook import: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	m, close, ok := openMemory(p, "import", false)
	defer close()
	if !ok {
		return 1
	}
	res, err := archive.Import(m.ctx, m.db, in)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook import: %s: %v; nothing imported\n", name, err)
		return 1
	}
	fmt.Fprintf(p.stdout, "Imported %s:\n", name)
	for _, k := range []struct {
		kind string
		c    store.ImportCount
	}{{"sessions", res.Sessions}, {"prompts", res.Prompts}, {"observations", res.Observations}, {"summaries", res.Summaries}} {
		fmt.Fprintf(p.stdout, "  %-13s %d added, %d skipped\n", k.kind, k.c.Added, k.c.Skipped)
	}
	return 0
}
