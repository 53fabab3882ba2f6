package project

import (
	"bufio"
	"bytes"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Key is a project's name across machines (DESIGN §25): the normalized `origin` remote of
// the repository holding dir (RemoteKey), else name. Two checkouts of one remote under
// different directory names have one key; two repositories that share a directory name
// have two. It reads .git (a worktree's gitdir and commondir files) and the config file;
// no git process is run, since a hook's time is counted in milliseconds. A url.<base>.
// insteadOf rewrite in a global git config is not applied: only the repository's file is
// read.
func Key(dir, name string) string {
	if dir != "" && filepath.IsAbs(dir) {
		if config, ok := gitConfig(filepath.Clean(dir)); ok {
			if k, ok := RemoteKey(originURL(config)); ok {
				return k
			}
		}
	}
	return name
}

// gitConfig walks up from dir to the first .git and returns the path of the repository's
// config: <dir>/.git/config, or, for a .git file (a worktree, a submodule), the config of
// its gitdir's common dir.
func gitConfig(dir string) (string, bool) {
	marker, fi, ok := dotGit(dir)
	if !ok {
		return "", false
	}
	if fi.IsDir() {
		return filepath.Join(marker, "config"), true
	}
	gitdir, ok := pointer(marker, "gitdir:")
	if !ok {
		return "", false
	}
	// A linked worktree's gitdir (<main>/.git/worktrees/<name>) names the shared dir in its
	// commondir file; a submodule's has none and holds its own config.
	if common, ok := pointer(filepath.Join(gitdir, "commondir"), ""); ok {
		gitdir = common
	}
	return filepath.Join(gitdir, "config"), true
}

// dotGit walks up from dir to the first .git (a directory, or a worktree's or submodule's
// gitdir file) and returns its path and what it is.
func dotGit(dir string) (string, os.FileInfo, bool) {
	for {
		marker := filepath.Join(dir, ".git")
		if fi, err := os.Stat(marker); err == nil {
			return marker, fi, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, false
		}
		dir = parent
	}
}

// pointer reads a one-line file of a path (after prefix, when given) and returns it
// resolved against the file's directory.
func pointer(file, prefix string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(prefix))
	p := filepath.FromSlash(string(bytes.TrimSpace(rest)))
	if !ok || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(file), p)
	}
	return filepath.Clean(p), true
}

// maxConfig bounds what is read of a config file: a repository's is a few hundred bytes.
const maxConfig = 1 << 20

// originURL is the url of [remote "origin"] in a git config file, "" when there is none.
// It reads git's syntax as far as a remote's url needs: section names and keys in any
// case, the subsection exactly, # and ; comments, a quoted value.
func originURL(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxConfig))
	sc.Buffer(make([]byte, 0, 4096), maxConfig)
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			head, _, _ := strings.Cut(line[1:], "]")
			section, sub, _ := strings.Cut(head, " ")
			in = strings.EqualFold(section, "remote") && strings.TrimSpace(sub) == `"origin"`
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "url") {
			continue
		}
		return configValue(v)
	}
	return ""
}

// configValue is a config value without its comment and quotes.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// RemoteKey normalizes a remote URL to host/path: `git@github.com:Acme/payments-api.git`,
// `https://user@github.com/acme/payments-api` and `ssh://git@github.com:22/acme/payments-api.git`
// are all `github.com/acme/payments-api`. The user (and any password or token in it), the
// port, a query, a trailing `.git` and slashes are dropped, and the whole key is lowercased:
// GitHub, GitLab, Bitbucket and Azure DevOps resolve owner and repository names in any case,
// and the URLs people clone with differ in case (copied from a page, typed), while two
// different repositories whose paths differ only in case on one host are all but unheard
// of. A path on this machine (`/srv/git/x.git`, `file://…`, `../x`) names no repository
// another machine can reach: ok is false.
func RemoteKey(remote string) (key string, ok bool) {
	remote = strings.TrimSpace(remote)
	var host, path string
	if i := strings.Index(remote, "://"); i > 0 {
		u, err := url.Parse(remote)
		if err != nil || u.Scheme == "file" || u.Host == "" {
			return "", false
		}
		host, path = u.Hostname(), u.Path
	} else {
		// scp-like: [user@]host:path, where the colon comes before any slash.
		colon := strings.Index(remote, ":")
		if b := strings.Index(remote, "]:"); b > 0 && strings.Contains(remote[:b], "[") {
			colon = b + 1 // [user@][v6 address]:path
		}
		if colon <= 0 || strings.Contains(remote[:colon], "/") {
			return "", false
		}
		host, path = remote[:colon], remote[colon+1:]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		host = strings.Trim(host, "[]")
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.Trim(path, "/")
	if host == "" || path == "" {
		return "", false
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return strings.ToLower(host + "/" + path), true
}
