package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/internal/plural"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/when"
)

// exportCommand is `hook export`: the memory as JSONL on stdout, or in FILE (0600, written
// whole under a temporary name then renamed, so a failed export leaves no half file).
var exportCommand = &command{
	Name: "export", Summary: "write memory as JSONL (a backup, or for another machine)",
	Flags: func(fs *flag.FlagSet) action {
		var f store.ExportFilter
		fs.StringVar(&f.Project, "project", "", "only project `P`")
		since := fs.String("since", "", "only what is from `DATE` on (YYYY-MM-DD: local midnight, an RFC 3339 time, or an age: 7d)")
		out := fs.String("o", "", "write to `FILE` instead of stdout")
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.unexpected("export", ops)
			}
			if *since != "" {
				t, err := when.Start(*since, p.now(), p.loc)
				if err != nil {
					return p.usageError("export", "--since: "+err.Error())
				}
				f.Since = t
			}
			f.Project = project.Filter(f.Project)
			return exportCmd(p, f, *out)
		}
	},
}

func exportCmd(p *proc, f store.ExportFilter, out string) int {
	m, close, ok := openMemory(p, "export", true)
	defer close()
	if !ok {
		return 1
	}
	if out == "" {
		if _, err := archive.Export(m.ctx, m.db, p.stdout, f, version, p.now()); err != nil {
			fmt.Fprintf(p.stderr, "%s export: %v\n", p.prog(), err)
			return 1
		}
		return 0
	}
	c, err := exportFile(m.ctx, m.db, out, f, p)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s export: %v\n", p.prog(), err)
		return 1
	}
	fmt.Fprintf(p.stdout, "Exported %s to %s\n", plural.Join(plural.Of(c.Sessions, "session", "sessions"), plural.Of(c.Prompts, "prompt", "prompts"),
		plural.Of(c.Observations, "observation", "observations"), plural.Of(c.Summaries, "summary", "summaries")), out)
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
