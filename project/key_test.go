package project

import (
	"path/filepath"
	"testing"
)

func TestRemoteKey(t *testing.T) {
	const want = "github.com/acme/payments-api"
	for _, c := range []struct {
		remote, want string
	}{
		{"git@github.com:Acme/payments-api.git", want},
		{"https://user@github.com/acme/payments-api", want},
		{"ssh://git@github.com:22/acme/payments-api.git", want},
		{"https://github.com/acme/payments-api.git/", want},
		{"https://GitHub.COM/ACME/Payments-API", want},
		{"github.com:acme/payments-api", want},
		{"git://github.com/acme/payments-api.git", want},
		{"git+ssh://git@github.com/acme/payments-api.git", want},
		{"https://github.com:443/acme/payments-api?x=1#frag", want},
		// A token in the userinfo never reaches the key.
		{"https://x-access-token:ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/acme/payments-api.git", want},
		{"  git@github.com:acme/payments-api.git\t", want},
		{"ssh://git@gitlab.example.com:2222/group/sub/repo.git", "gitlab.example.com/group/sub/repo"},
		{"git@[::1]:acme/x.git", "::1/acme/x"},
		{"https://dev.azure.com/org/proj/_git/repo", "dev.azure.com/org/proj/_git/repo"},
		// Not a remote another machine reaches, or not a remote at all.
		{"/srv/git/payments-api.git", ""},
		{"../payments-api", ""},
		{"file:///srv/git/payments-api.git", ""},
		{"C:/repos/x", "c/repos/x"}, // scp-like by git's own rule too (a one-letter host)
		{"https://github.com/", ""},
		{"https://github.com/acme/../x", ""},
		{"", ""},
	} {
		got, ok := RemoteKey(c.remote)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("RemoteKey(%q) = %q, %v; want %q", c.remote, got, ok, c.want)
		}
	}
}

const originConfig = `[core]
	repositoryformatversion = 0
[remote "upstream"]
	url = git@github.com:other/fork.git
[Remote "origin"] ; a comment
	fetch = +refs/heads/*:refs/remotes/origin/*
	URL = "git@github.com:Acme/payments-api.git" # trailing comment
[branch "main"]
	remote = origin
`

func TestKey(t *testing.T) {
	skipOnWindows(t)
	tmp := tree(t,
		// One remote, two checkouts under different names.
		"src/payments-api/.git/config="+originConfig,
		"work/pay2/.git/config=[remote \"origin\"]\n\turl = https://user@github.com/acme/payments-api\n",
		// A linked worktree: .git is a file, the config is in the common dir.
		"src/payments-api/.git/worktrees/wt/commondir=../..\n",
		"wt/feature/.git=gitdir: <tmp>/src/payments-api/.git/worktrees/wt\n",
		"wt/feature/deep/dir/",
		// Two different repositories that share a directory name.
		"a/api/.git/config=[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n",
		"b/api/.git/config=[remote \"origin\"]\n\turl = git@gitlab.com:other/api.git\n",
		// No origin (only another remote), no repository at all.
		"c/tool/.git/config=[remote \"upstream\"]\n\turl = git@github.com:acme/tool.git\n",
		"plain/notes/",
		// A submodule's .git file points at its own git dir, with its own config.
		"super/.git/modules/lib/config=[remote \"origin\"]\n\turl = git@github.com:acme/lib.git\n",
		"super/lib/.git=gitdir: ../.git/modules/lib\n",
	)
	at := func(p string) string { return filepath.Join(tmp, filepath.FromSlash(p)) }
	for _, c := range []struct{ dir, name, want string }{
		{"src/payments-api", "payments-api", "github.com/acme/payments-api"},
		{"work/pay2", "pay2", "github.com/acme/payments-api"},
		{"wt/feature/deep/dir", "payments-api", "github.com/acme/payments-api"},
		{"a/api", "api", "github.com/acme/api"},
		{"b/api", "api", "gitlab.com/other/api"},
		{"c/tool", "tool", "tool"},
		{"plain/notes", "notes", "notes"},
		{"super/lib", "lib", "github.com/acme/lib"},
	} {
		if got := Key(at(c.dir), c.name); got != c.want {
			t.Errorf("Key(%s, %q) = %q, want %q", c.dir, c.name, got, c.want)
		}
	}
	if Key(at("a/api"), "api") == Key(at("b/api"), "api") {
		t.Error("two repositories sharing a directory name have one key")
	}
	if Key("relative/dir", "x") != "x" || Key("", "x") != "x" {
		t.Error("a relative or empty dir is not the name")
	}
}

func TestConfigValue(t *testing.T) {
	for in, want := range map[string]string{
		` git@h:a/b.git `:         "git@h:a/b.git",
		` "git@h:a/b.git" # c`:    "git@h:a/b.git",
		` "a;b#c" ; comment`:      "a;b#c",
		` x\"y`:                   `x"y`,
		` https://h/a/b ; remote`: "https://h/a/b",
	} {
		if got := configValue(in); got != want {
			t.Errorf("configValue(%q) = %q, want %q", in, got, want)
		}
	}
}
