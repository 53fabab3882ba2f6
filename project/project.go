// Package project derives the project a hook event belongs to from its cwd, refusing names
// and places that are not a user's project and honouring CLAUDE_MEM_EXCLUDED_PROJECTS.
package project

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claude-mem/claude-mem-go/hostpath"
	"github.com/claude-mem/claude-mem-go/selfcapture"
)

// All is the project argument that means every project, in every command that takes
// --project and in the MCP tools.
const All = "*"

// Filter is the project a --project value selects: "" (every project) for All or for
// none given, else the name.
func Filter(arg string) string {
	if arg = strings.TrimSpace(arg); arg == All {
		return ""
	}
	return arg
}

// Options carries what Derive needs besides the cwd.
type Options struct {
	Home     string   // expands a leading ~ in Excluded
	GOOS     string   // the platform whose path rules apply (also used for Ours)
	Excluded []string // CLAUDE_MEM_EXCLUDED_PROJECTS globs
	// Ours names the guard's directories (data dir, executable dir, and CLAUDE_PLUGIN_ROOT
	// and CLAUDE_CONFIG_DIR in its Env); a cwd inside them is refused. Its Cwd and GOOS
	// are not used: Derive's cwd and Options.GOOS are.
	Ours selfcapture.Input
}

// Project is a derived project: Name, and Root, the repository's directory (the main
// repository's for a worktree) or the cwd when there is no repository.
type Project struct{ Name, Root string }

// RefusedError says a cwd cannot be a project, and why: "version-like name", "empty name",
// "filesystem root", "drive root", or "inside <which dir> <path>".
type RefusedError struct{ Path, Name, Reason string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("project: refused cwd %s (name %q): %s", e.Path, e.Name, e.Reason)
}

// ExcludedError says a project matched a CLAUDE_MEM_EXCLUDED_PROJECTS pattern.
type ExcludedError struct{ Path, Name, Pattern string }

func (e *ExcludedError) Error() string {
	return fmt.Sprintf("project: cwd %s (name %q) excluded by CLAUDE_MEM_EXCLUDED_PROJECTS pattern %q", e.Path, e.Name, e.Pattern)
}

// Derive returns the project for cwd, a *RefusedError or an *ExcludedError. It costs one
// stat per directory level walked (and a read of a .git file when there is one); no git
// process is run.
func Derive(cwd string, o Options) (Project, error) {
	goos := o.GOOS
	c := hostpath.Canonical(cwd, goos)
	refuse := func(name, reason string) (Project, error) {
		return Project{}, &RefusedError{Path: cwd, Name: name, Reason: reason}
	}
	if hostpath.IsRoot(c, goos) {
		if goos == "windows" {
			return refuse("", "drive root")
		}
		return refuse("", "filesystem root")
	}
	ours := o.Ours
	ours.GOOS = goos
	if d, ok := selfcapture.Owner(ours, c); ok {
		return refuse(hostpath.Base(c, goos), "inside "+d.String())
	}
	p := Project{Name: hostpath.Base(c, goos), Root: c}
	if c != "" && hostpath.OnHost(goos) && filepath.IsAbs(c) {
		if root, ok := findRepo(c, goos); ok {
			p = Project{Name: hostpath.Base(root, goos), Root: root}
		}
	}
	switch {
	case p.Name == "":
		return refuse("", "empty name")
	case versionLike(p.Name):
		return refuse(p.Name, "version-like name")
	}
	if pat, ok := excluded(o, cwd, c, p); ok {
		return Project{}, &ExcludedError{Path: cwd, Name: p.Name, Pattern: pat}
	}
	return p, nil
}

// findRepo walks up from dir to the first directory holding .git and returns the project's
// root: that directory, or the main repository when .git is a worktree's gitdir file.
func findRepo(dir, goos string) (string, bool) {
	marker, fi, ok := dotGit(dir)
	if !ok {
		return "", false
	}
	if fi.Mode().IsRegular() {
		if main, ok := worktreeMain(marker, goos); ok {
			return main, true
		}
	}
	return filepath.Dir(marker), true
}

// worktreeMain reads a .git file and, when its `gitdir:` is <main>/.git/worktrees/<name>,
// returns <main>. Any other gitdir (a submodule's <super>/.git/modules/<name>, a bare
// repository) is not a worktree of a main checkout.
func worktreeMain(gitFile, goos string) (string, bool) {
	gitdir, ok := pointer(gitFile, "gitdir:")
	if !ok {
		return "", false
	}
	worktrees := filepath.Dir(gitdir)
	dotgit := filepath.Dir(worktrees)
	if filepath.Base(worktrees) != "worktrees" || filepath.Base(dotgit) != ".git" {
		return "", false
	}
	// The gitdir may itself be reached through links; Root is always a resolved path.
	return hostpath.Canonical(filepath.Dir(dotgit), goos), true
}

// versionLike reports names such as 13.12.4, v2.1.0, 1.0.0-beta.1, 2026.11 or 1.2: an
// optional v, dot-separated numbers (at least two), and an optional -pre/+build suffix.
// v8-engine, python3, web2 and 2048-game are names.
func versionLike(name string) bool {
	s := name
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		s = s[1:]
	}
	groups := 0
	for {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 {
			return false
		}
		groups++
		s = s[n:]
		if len(s) == 0 || s[0] != '.' {
			break
		}
		s = s[1:]
	}
	if groups < 2 {
		return false
	}
	if s == "" {
		return true
	}
	if len(s) < 2 || s[0] != '-' && s[0] != '+' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if b := s[i]; !(b == '.' || b == '-' || b == '+' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z') {
			return false
		}
	}
	return true
}

// excluded returns the first pattern that matches: one with a separator against the cwd
// (as given and resolved) or the project root, one without against the project name.
func excluded(o Options, cwd, canonical string, p Project) (string, bool) {
	goos := o.GOOS
	sep, seps := '/', "/"
	if goos == "windows" {
		sep, seps = '\\', `/\`
	}
	for _, raw := range o.Excluded {
		given := strings.TrimSpace(raw)
		if given == "" {
			continue
		}
		pat := given
		if given == "~" || len(given) > 1 && given[0] == '~' && strings.IndexByte(seps, given[1]) >= 0 {
			if o.Home == "" {
				continue
			}
			pat = o.Home + given[1:]
		} else if !strings.ContainsAny(given, seps) {
			if match(hostpath.Key(pat, goos), hostpath.Key(p.Name, goos), sep) {
				return given, true
			}
			continue
		}
		k := hostpath.Key(pat, goos)
		for _, subject := range []string{cwd, canonical, p.Root} {
			if subject != "" && match(k, hostpath.Key(subject, goos), sep) {
				return given, true
			}
		}
	}
	return "", false
}
