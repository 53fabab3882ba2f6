package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/store"
)

const exportUsage = "usage: hook export [--project P] [--since DATE] [-o FILE]"

// exportCmd is `hook export`: the memory as JSONL on stdout, or in FILE (0600, written
// whole under a temporary name then renamed, so a failed export leaves no half file).
func exportCmd(p *proc, args []string) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f store.ExportFilter
	fs.StringVar(&f.Project, "project", "", "")
	since := fs.String("since", "", "")
	out := fs.String("o", "", "")
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected %q", fs.Arg(0))
	}
	if err == nil && *since != "" {
		if f.Since, err = parseDate(*since, p.loc); err != nil {
			err = fmt.Errorf("--since: %w", err)
		}
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "hook export: %v\n%s\n", err, exportUsage)
		return 2
	}
	m, close, ok := openMemory(p, "export", true)
	defer close()
	if !ok {
		return 1
	}
	if *out == "" {
		if _, err := archive.Export(m.ctx, m.db, p.stdout, f, version, p.now()); err != nil {
			fmt.Fprintf(p.stderr, "hook export: %v\n", err)
			return 1
		}
		return 0
	}
	c, err := exportFile(m.ctx, m.db, *out, f, p)
	if err != nil {
		fmt.Fprintf(p.stderr, "hook export: %v\n", err)
		return 1
	}
	fmt.Fprintf(p.stdout, "Exported %s to %s\n", nouns(noun{c.Sessions, "session", "sessions"}, noun{c.Prompts, "prompt", "prompts"},
		noun{c.Observations, "observation", "observations"}, noun{c.Summaries, "summary", "summaries"}), *out)
	return 0
}

func exportFile(ctx context.Context, db *store.DB, path string, f store.ExportFilter, p *proc) (archive.Counts, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return archive.Counts{}, err
	}
	defer os.Remove(tmp.Name())
	c, err := archive.Export(ctx, db, tmp, f, version, p.now())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return c, err
}
