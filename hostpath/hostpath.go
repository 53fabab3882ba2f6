// Package hostpath compares and names paths by the rules of a GOOS given as a value
// (separator, case folding, windows volumes), and touches the filesystem only for paths of
// this host: so the self-capture guard and project derivation are tested for darwin and
// windows on Linux.
package hostpath

import (
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// OnHost reports whether paths written for goos are paths of this machine, so that the
// filesystem may be asked about them. A windows path on a Unix host (or the reverse) is only
// ever compared as text: stat-ing `C:\x` on Linux would look up a relative file.
func OnHost(goos string) bool {
	return goos == runtime.GOOS || (goos != "windows" && runtime.GOOS != "windows")
}

// Canonical returns p cleaned for goos and, when it is an absolute path of this host, with
// symlinks resolved on its longest existing prefix, so a path that does not exist yet still
// resolves through the links above it. Case is preserved; Key folds it. "" stays "".
func Canonical(p, goos string) string {
	if p == "" {
		return ""
	}
	c := clean(p, goos)
	if OnHost(goos) && filepath.IsAbs(c) {
		c = resolve(c)
	}
	return c
}

// Key returns the form in which paths are compared for goos: cleaned lexically (no
// filesystem access) and case-folded where that platform's filesystems ignore case.
func Key(p, goos string) string {
	if p == "" {
		return ""
	}
	c := clean(p, goos)
	if foldsCase(goos) {
		c = strings.ToLower(c)
	}
	return c
}

// IsRoot reports whether p is a filesystem root for goos: "/", or on windows a drive root
// (`C:\`), a UNC share root (`\\server\share`) or a bare `\`.
func IsRoot(p, goos string) bool {
	if p == "" {
		return false
	}
	c := clean(p, goos)
	return strings.HasSuffix(c, separator(goos))
}

// Base returns the last element of p for goos, or "" for a root or an empty path.
func Base(p, goos string) string {
	if p == "" || IsRoot(p, goos) {
		return ""
	}
	c := clean(p, goos)
	return c[strings.LastIndex(c, separator(goos))+1:]
}

// Within compares two keys (see Key): p is d, or d plus a separator is a prefix of p (a root
// already ends in one). "/data/claude-mem2" is not within "/data/claude-mem"; an empty key
// is within nothing and holds nothing.
func Within(p, d, goos string) bool {
	if p == "" || d == "" {
		return false
	}
	if p == d {
		return true
	}
	sep := separator(goos)
	if !strings.HasSuffix(d, sep) {
		d += sep
	}
	return strings.HasPrefix(p, d)
}

// Join appends elements to dir with goos's separator and cleans the result.
func Join(goos, dir string, elem ...string) string {
	return clean(strings.Join(append([]string{dir}, elem...), separator(goos)), goos)
}

func separator(goos string) string {
	if goos == "windows" {
		return `\`
	}
	return "/"
}

// foldsCase: APFS/HFS+ and NTFS are case-insensitive by default, so `/Users/A` and
// `/users/a` name one directory there.
func foldsCase(goos string) bool { return goos == "darwin" || goos == "windows" }

func clean(p, goos string) string {
	if goos == "windows" {
		return cleanWindows(p)
	}
	return path.Clean(p)
}

// cleanWindows cleans a windows path textually, whatever the host: `/` becomes `\`, the
// volume (`C:` or `\\server\share`, also behind a `\\?\` prefix) is kept, and `..` never
// climbs above it. A drive path is always treated as rooted: a hook's cwd is never
// drive-relative.
func cleanWindows(p string) string {
	s := strings.ReplaceAll(p, "/", `\`)
	switch {
	case strings.HasPrefix(s, `\\?\UNC\`):
		s = `\\` + s[len(`\\?\UNC\`):]
	case strings.HasPrefix(s, `\\?\`):
		s = s[len(`\\?\`):]
	}
	vol, rest := "", s
	switch {
	case len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		vol, rest = s[:2], `\`+s[2:]
	case strings.HasPrefix(s, `\\`):
		// \\server\share is the volume; its root is \\server\share\.
		parts := strings.SplitN(s[2:], `\`, 3)
		vol = `\\` + strings.Join(parts[:min(2, len(parts))], `\`)
		rest = `\`
		if len(parts) == 3 {
			rest += parts[2]
		}
	}
	body := path.Clean(strings.ReplaceAll(rest, `\`, "/"))
	return vol + strings.ReplaceAll(body, "/", `\`)
}

func isLetter(b byte) bool { return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }

// resolve evaluates symlinks on the longest prefix of an absolute host path that exists and
// appends the rest unchanged.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolve(parent), filepath.Base(p))
}
