// Package claudebin finds the claude executable per use (never cached), in the order of DESIGN.md §10, and retries a failed spawn once after a fresh resolve.
package claudebin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/settings"
)

// FS is what Resolve reads: stat and directory listings only, never a process. OSFS is the
// real one; names are absolute host paths.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// OSFS is the host file system.
type OSFS struct{}

func (OSFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OSFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Why a candidate was not taken: a Probe's Reason, or the Err of an UnspawnableError for an
// explicit setting.
var (
	ErrNoFile        = errors.New("not found")
	ErrDanglingLink  = errors.New("dangling link")
	ErrIsDirectory   = errors.New("is a directory")
	ErrNotRegular    = errors.New("not a regular file")
	ErrNotExecutable = errors.New("not executable")
	ErrNotExe        = errors.New("not an .exe")
	ErrShellScript   = errors.New("a .cmd/.bat/.ps1 script cannot be started without a shell")
	ErrRelative      = errors.New("not an absolute path")
)

// Reason strings of probes that are not a single file check.
const (
	reasonNoMatch     = "no match"
	reasonRelativeDir = "relative PATH entry ignored"
	reasonNPMShim     = "npm shim: cannot be started without a shell"
)

// editorDirs are the editors whose extension may carry a native claude binary.
var editorDirs = []string{".vscode", ".vscode-insiders", ".vscode-server", ".cursor", ".windsurf"}

const extensionPrefix = "anthropic.claude-code-"

// Resolve finds the claude executable for goos in the order of DESIGN.md §10. It returns
// *UnspawnableError when an explicit setting names an unusable file (no fallback), and
// *NotFoundError, listing every probe in order, when nothing usable exists. The path returned
// is the one probed, not its symlink target, so a native auto-update that re-points the
// link keeps the result valid.
//
// Paths split: the values in env (HOME, PATH entries, settings) are host paths handed to fsys
// as they are, and absoluteness is the host's rule (filepath.IsAbs). goos decides the rules:
// PATH's list separator, the executable's name and extension, which locations exist, and the
// separator used to join names onto a base path (on windows the one the base already uses,
// since Windows accepts both). So windows rules run on Linux over forward-slash trees.
func Resolve(env settings.Env, fsys FS, goos string) (Result, error) {
	r := &resolver{fs: fsys, windows: goos == "windows", goos: goos, env: env, seen: map[string]error{}}
	r.home = r.getenv(envname.Home)
	if r.home == "" && r.windows {
		r.home = r.getenv(envname.UserProfile)
	}
	for _, key := range []string{ViaClaudeMemPath, ViaClaudeCodePath} {
		if p := r.getenv(key); p != "" {
			return r.explicit(key, p)
		}
	}
	for _, step := range []func() (Result, bool){r.path, r.native, r.known, r.editors} {
		if res, ok := step(); ok {
			return res, nil
		}
	}
	return Result{}, &NotFoundError{Probed: r.probed}
}

// resolver holds one Resolve call's state; nothing outlives the call.
type resolver struct {
	fs      FS
	windows bool
	goos    string
	env     settings.Env
	home    string
	probed  []Probe
	seen    map[string]error // a PATH dir that is also a known location is probed once
	// homeNoted is set once a missing home has been recorded as a probe.
	homeNoted bool
}

// getenv reads a variable; Windows names are case-insensitive (os.Environ says "Path").
func (r *resolver) getenv(key string) string {
	if v, ok := r.env.Lookup(key); ok || !r.windows {
		return v
	}
	var names []string
	for k := range r.env {
		if strings.EqualFold(k, key) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return r.env[names[0]]
}

func (r *resolver) exeName() string {
	if r.windows {
		return "claude.exe"
	}
	return "claude"
}

// join appends names to base with goos's separator: "/" off windows; on windows the separator
// base already uses ("\" for C:\Users\me, "/" for a forward-slash path), "\" by default.
func (r *resolver) join(base string, names ...string) string {
	if !r.windows {
		return path.Join(append([]string{base}, names...)...)
	}
	sep := `\`
	if !strings.Contains(base, `\`) && strings.Contains(base, "/") {
		sep = "/"
	}
	return strings.TrimRight(base, `\/`) + sep + strings.Join(names, sep)
}

func (r *resolver) skip(p, reason string) {
	r.probed = append(r.probed, Probe{Path: p, Reason: reason})
}

// check reports why p is not usable (nil when it is), recording the probe the first time.
func (r *resolver) check(p string) error {
	if err, ok := r.seen[p]; ok {
		return err
	}
	err := r.usable(p)
	r.seen[p] = err
	if err != nil {
		r.skip(p, err.Error())
	}
	return err
}

// usable is the candidate rule: a regular file (through symlinks) with an execute bit; on
// windows a regular file named *.exe, since Windows has no execute bit and a script needs a shell.
func (r *resolver) usable(p string) error {
	fi, err := r.fs.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrNoFile
		}
		return osErr(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = r.fs.Stat(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return ErrDanglingLink
			}
			return osErr(err)
		}
	}
	switch {
	case fi.IsDir():
		return ErrIsDirectory
	case !fi.Mode().IsRegular():
		return ErrNotRegular
	case r.windows:
		switch ext(p) {
		case ".exe":
			return nil
		case ".cmd", ".bat", ".ps1":
			return ErrShellScript
		}
		return ErrNotExe
	case fi.Mode().Perm()&0o111 == 0:
		return ErrNotExecutable
	}
	return nil
}

// ext is p's lowercased extension under windows rules (either separator, any case).
func ext(p string) string { return strings.ToLower(path.Ext(strings.ReplaceAll(p, `\`, "/"))) }

// osErr drops the path from a *fs.PathError: the probe already names it.
func osErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// explicit is step 1: the setting is the answer, usable or not.
func (r *resolver) explicit(key, p string) (Result, error) {
	if rest, ok := strings.CutPrefix(p, "~"); ok && r.home != "" && (rest == "" || rest[0] == '/' || r.windows && rest[0] == '\\') {
		// A settings.json value is not shell-expanded.
		p = r.home + rest
	}
	fail := func(err error) (Result, error) {
		return Result{}, &UnspawnableError{Path: p, Setting: key, Err: err}
	}
	if !filepath.IsAbs(p) {
		return fail(ErrRelative)
	}
	err := r.usable(p)
	if r.windows && errors.Is(err, ErrShellScript) && ext(p) == ".cmd" {
		exe := r.shimTarget(p)
		if err = r.usable(exe); err == nil {
			return Result{Path: exe, Via: key}, nil
		}
		return fail(fmt.Errorf("npm shim cannot be started without a shell, and %s: %w", exe, err))
	}
	if err != nil {
		return fail(err)
	}
	return Result{Path: p, Via: key}, nil
}

// shimTarget maps an npm claude.cmd shim to the native binary of the package beside it:
// npm's global layout puts the shims next to node_modules.
func (r *resolver) shimTarget(shim string) string {
	dir := shim[:max(strings.LastIndexAny(shim, `\/`), 0)]
	return r.join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
}

// splitList splits PATH with goos's list separator; windows entries may be quoted.
func (r *resolver) splitList(list string) []string {
	if !r.windows {
		return strings.Split(list, ":")
	}
	var out []string
	var b strings.Builder
	quoted := false
	for _, c := range list {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteRune(c)
		}
	}
	return append(out, b.String())
}

// path is step 2: claude on PATH (windows: claude.exe, or the binary behind an npm shim).
func (r *resolver) path() (Result, bool) {
	for _, dir := range r.splitList(r.getenv(envname.Path)) {
		if dir == "" {
			continue
		}
		if !filepath.IsAbs(dir) {
			r.skip(dir, reasonRelativeDir)
			continue
		}
		if p := r.join(dir, r.exeName()); r.check(p) == nil {
			return Result{Path: p, Via: ViaPATH}, true
		}
		if !r.windows {
			continue
		}
		shim := r.join(dir, "claude.cmd")
		if fi, err := r.fs.Stat(shim); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		r.skip(shim, reasonNPMShim)
		if exe := r.shimTarget(shim); r.check(exe) == nil {
			return Result{Path: exe, Via: ViaPATH}, true
		}
	}
	return Result{}, false
}

// homeMissing records, once, that the home-relative steps cannot run.
func (r *resolver) homeMissing() bool {
	if r.home != "" {
		return false
	}
	if !r.homeNoted {
		r.homeNoted = true
		reason := "HOME not set"
		if r.windows {
			reason = "HOME and USERPROFILE not set"
		}
		r.skip("~", reason)
	}
	return true
}

// native is step 3: the native installer's link, and when it dangles (an auto-update between
// unlink and re-link) the newest installed version.
func (r *resolver) native() (Result, bool) {
	if r.homeMissing() {
		return Result{}, false
	}
	link := r.join(r.home, ".local", "bin", r.exeName())
	err := r.check(link)
	if err == nil {
		return Result{Path: link, Via: ViaNativeLink}, true
	}
	if !errors.Is(err, ErrDanglingLink) {
		return Result{}, false
	}
	dir := r.join(r.home, ".local", "share", "claude", "versions")
	entries, err := r.fs.ReadDir(dir)
	if err != nil {
		r.skip(dir, osErr(err).Error())
		return Result{}, false
	}
	type cand struct {
		name string
		v    version
	}
	var cands []cand
	for _, e := range entries {
		name := e.Name()
		if r.windows && ext(name) == ".exe" {
			name = name[:len(name)-len(".exe")]
		}
		if v, ok := parseVersion(name); ok {
			cands = append(cands, cand{e.Name(), v})
		}
	}
	if len(cands) == 0 {
		r.skip(r.join(dir, "*"), reasonNoMatch)
		return Result{}, false
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.v.compare(a.v) })
	for _, c := range cands {
		if p := r.join(dir, c.name); r.check(p) == nil {
			return Result{Path: p, Via: ViaNativeVersions}, true
		}
	}
	return Result{}, false
}

// known is step 4: other installers' fixed locations.
func (r *resolver) known() (Result, bool) {
	var cands []string
	hasHome := !r.homeMissing()
	if hasHome {
		cands = append(cands, r.join(r.home, ".claude", "local", r.exeName()))
	}
	if !r.windows {
		cands = append(cands, "/usr/local/bin/claude", "/opt/homebrew/bin/claude")
	}
	if hasHome {
		cands = append(cands,
			r.join(r.home, ".npm-global", "bin", r.exeName()),
			r.join(r.home, ".bun", "bin", r.exeName()))
	}
	for _, p := range cands {
		if r.check(p) == nil {
			return Result{Path: p, Via: ViaKnownLocation}, true
		}
	}
	return Result{}, false
}

// editors is step 5: the native binary shipped inside an editor's Claude Code extension,
// newest version overall first (ties keep the editor order of editorDirs), so a stale copy in
// one editor never beats a current one in another.
func (r *resolver) editors() (Result, bool) {
	if r.homeMissing() {
		return Result{}, false
	}
	type cand struct {
		path string
		v    version
	}
	var cands []cand
	for _, ed := range editorDirs {
		dir := r.join(r.home, ed, "extensions")
		found := false
		entries, _ := r.fs.ReadDir(dir) // a missing dir is the usual "no match"
		for _, e := range entries {
			v, platform, ok := parseExtension(e.Name())
			if !ok {
				continue
			}
			found = true
			p := r.join(dir, e.Name(), "resources", "native-binary", r.exeName())
			if osName := platformOS(platform); osName != "" && osName != r.goos {
				r.skip(p, "built for "+platform)
				continue
			}
			cands = append(cands, cand{p, v})
		}
		if !found {
			r.skip(r.join(dir, extensionPrefix+"*", "resources", "native-binary", r.exeName()), reasonNoMatch)
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.v.compare(a.v) })
	for _, c := range cands {
		if r.check(c.path) == nil {
			return Result{Path: c.path, Via: ViaEditor}, true
		}
	}
	return Result{}, false
}

// version is a release number, compared numerically: 2.1.10 > 2.1.9.
type version []int

// parseVersion accepts MAJOR.MINOR[.PATCH…], digits only; anything else is not a release.
func parseVersion(s string) (version, bool) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return nil, false
	}
	v := make(version, len(parts))
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) compare(w version) int { return slices.Compare(v, w) }

// parseExtension reads an extension dir name, anthropic.claude-code-<version>[-<platform>]
// (VS Code stores ids lowercased), e.g. anthropic.claude-code-2.1.328-darwin-arm64.
func parseExtension(name string) (v version, platform string, ok bool) {
	if len(name) < len(extensionPrefix) || !strings.EqualFold(name[:len(extensionPrefix)], extensionPrefix) {
		return nil, "", false
	}
	ver, platform, _ := strings.Cut(name[len(extensionPrefix):], "-")
	v, ok = parseVersion(ver)
	return v, platform, ok
}

// platformOS maps a VS Code target platform (win32-x64, darwin-arm64, linux-x64, alpine-arm64)
// to a GOOS; "" when unknown, so an unknown platform is still tried.
func platformOS(platform string) string {
	osPart, _, _ := strings.Cut(platform, "-")
	switch osPart {
	case "win32":
		return "windows"
	case "darwin":
		return "darwin"
	case "linux", "alpine":
		return "linux"
	}
	return ""
}
