// Command dist packs the plugin (a build tool run by the Makefile, never shipped):
//
//	dist build   -version V -goos OS -goarch ARCH -o FILE    the hook binary (make build, make binaries)
//	dist stage   -version V -hook FILE -goos OS -dir DIR      the plugin as a directory (make install)
//	dist archive -version V -epoch S -bins DIR -out DIR OS/ARCH...   archives + SHA256SUMS (make dist)
//
// archive reads DIR/<os>-<arch>/hook[.exe] for each platform.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/dist"
	"github.com/claude-mem/claude-mem-go/internal/hookbin"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: dist build|stage|archive [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	src := fs.String("src", ".", "the repository root")
	version := fs.String("version", "", "the version stamped into the manifests")
	switch args[0] {
	case "build":
		// The same flags as every test suite's build (hookbin), for the target platform.
		o := hookbin.Options{Env: os.Environ()}
		fs.StringVar(&o.GOOS, "goos", "", "the target GOOS (default the host's)")
		fs.StringVar(&o.GOARCH, "goarch", "", "the target GOARCH (default the host's)")
		fs.StringVar(&o.Out, "o", "bin/hook", "the binary to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		o.Root, o.Version = *src, *version
		return hookbin.Build(context.Background(), o)
	case "stage":
		hook := fs.String("hook", "bin/hook", "the executable to ship")
		goos := fs.String("goos", "", "the executable's GOOS")
		dir := fs.String("dir", "", "the directory to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		b, err := os.ReadFile(*hook)
		if err != nil {
			return err
		}
		files, err := dist.Payload(*src, dist.Platform{OS: *goos}, *version, b)
		if err != nil {
			return err
		}
		return dist.Stage(*dir, files)
	case "archive":
		epoch := fs.Int64("epoch", 0, "every entry's mtime, in Unix seconds (the commit time)")
		bins := fs.String("bins", "", "holds <os>-<arch>/hook[.exe]")
		out := fs.String("out", "dist", "where the archives and SHA256SUMS go")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var names []string
		for _, arg := range fs.Args() {
			p, err := dist.ParsePlatform(arg)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(filepath.Join(*bins, p.OS+"-"+p.Arch, filepath.Base(p.Hook())))
			if err != nil {
				return err
			}
			files, err := dist.Payload(*src, p, *version, b)
			if err != nil {
				return err
			}
			name, err := dist.Archive(*out, p, *version, files, time.Unix(*epoch, 0))
			if err != nil {
				return err
			}
			fmt.Println(filepath.Join(*out, name))
			names = append(names, name)
		}
		return dist.WriteSums(*out, names)
	}
	return fmt.Errorf("unknown command %q: want build, stage or archive", args[0])
}
