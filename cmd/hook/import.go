package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/store"
)

// importCommand is `hook import FILE` (- for stdin; FILE a regular file): a file with a
// bad line anywhere, or one over archive.MaxLine, stores nothing, and a record already
// stored is skipped, so importing twice adds nothing.
var importCommand = &command{
	Name: "import", Operands: "FILE",
	Summary: "add an export's memory; what is already there is skipped",
	Flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "print what was added and skipped as JSON")
		return func(p *proc, ops []string) int {
			if len(ops) != 1 {
				return p.usageError("import", "one FILE (- for stdin)")
			}
			return importCmd(p, ops[0], *asJSON)
		}
	},
}

func importCmd(p *proc, name string, asJSON bool) int {
	// A line may be 16 MiB, held while it is decoded: a soft limit makes the collector
	// return the growing copies of it before the heap doubles (peak RSS of a 100 MB line:
	// 85 MB without, 45 MB with; tests/import_test.go).
	debug.SetMemoryLimit(32 << 20)
	var in io.Reader = p.stdin
	if name != "-" {
		f, err := archive.Open(name)
		if err != nil {
			fmt.Fprintf(p.stderr, "%s import: %v\n", p.prog(), err)
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
	if err != nil && m.ctx.Err() != nil {
		// A signal (SIGINT, SIGTERM): the import's one transaction rolled back.
		fmt.Fprintf(p.stderr, "%s import: %s: stopped (%v); nothing imported\n", p.prog(), name, context.Cause(m.ctx))
		return 1
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s import: %s: %v; nothing imported\n", p.prog(), name, err)
		return 1
	}
	kinds := []struct {
		kind string
		c    store.ImportCount
	}{{"sessions", res.Sessions}, {"prompts", res.Prompts}, {"observations", res.Observations}, {"summaries", res.Summaries}}
	if asJSON {
		// The documented shape: {"file": F, "<kind>": {"added": N, "skipped": N}, …}.
		out := map[string]any{"file": name}
		for _, k := range kinds {
			out[k.kind] = map[string]int{"added": k.c.Added, "skipped": k.c.Skipped}
		}
		_ = json.NewEncoder(p.stdout).Encode(out)
		return 0
	}
	fmt.Fprintf(p.stdout, "Imported %s:\n", name)
	for _, k := range kinds {
		fmt.Fprintf(p.stdout, "  %-13s %d added, %d skipped\n", k.kind, k.c.Added, k.c.Skipped)
	}
	return 0
}
