package auth

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/settings"
)

func TestFingerprint(t *testing.T) {
	valid := now.Add(time.Hour)
	write := func(t *testing.T, p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// base is a darwin user with an env token, a credentials file and a login keychain.
	base := func(t *testing.T) Inputs {
		home := t.TempDir()
		write(t, filepath.Join(home, ".claude", ".credentials.json"), oauthJSON(fileToken, fileRefresh, valid))
		write(t, filepath.Join(home, "Library", "Keychains", "login.keychain-db"), "keychain v1")
		return Inputs{
			Env:    settings.Env{"HOME": home, "USER": "alice", "PATH": "/bin", varOAuthToken: envToken},
			DotEnv: settings.Env{},
			Home:   home, GOOS: "darwin", Now: now, Run: &fakeRunner{},
		}
	}
	// touch moves a file's mtime without changing its size.
	touch := func(t *testing.T, p string) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		change  func(t *testing.T, in *Inputs)
		changes bool
	}{
		{"nothing", func(t *testing.T, in *Inputs) {}, false},
		{"clock, runner, lineage without the app, unrelated env", func(t *testing.T, in *Inputs) {
			in.Now = in.Now.Add(time.Hour)
			in.Run = nil
			in.Lineage = []string{"/bin/zsh"}
			in.Env["PATH"] = "/usr/bin"
			in.Env["CLAUDE_CODE_SESSION_ID"] = "x"
		}, false},
		{"env token changed", func(t *testing.T, in *Inputs) { in.Env[varOAuthToken] = dotenvToken }, true},
		{"env token removed", func(t *testing.T, in *Inputs) { delete(in.Env, varOAuthToken) }, true},
		{"api key in .env added", func(t *testing.T, in *Inputs) { in.DotEnv[varAPIKey] = apiKey }, true},
		{"credentials.json rewritten", func(t *testing.T, in *Inputs) {
			write(t, filepath.Join(in.Home, ".claude", ".credentials.json"), oauthJSON(fileToken+"x", fileRefresh, valid.Add(time.Hour)))
		}, true},
		{"credentials.json touched, same size", func(t *testing.T, in *Inputs) {
			touch(t, filepath.Join(in.Home, ".claude", ".credentials.json"))
		}, true},
		{"credentials.json removed", func(t *testing.T, in *Inputs) {
			if err := os.Remove(filepath.Join(in.Home, ".claude", ".credentials.json")); err != nil {
				t.Fatal(err)
			}
		}, true},
		// Any app's write changes the keychain file: it must not lift a pause by itself
		// (a re-login shows up in the resolved Source's Identity instead).
		{"login keychain file written", func(t *testing.T, in *Inputs) {
			touch(t, filepath.Join(in.Home, "Library", "Keychains", "login.keychain-db"))
		}, false},
		{"settings.json with a helper appeared", func(t *testing.T, in *Inputs) {
			write(t, filepath.Join(in.Home, ".claude", "settings.json"), `{"apiKeyHelper":"/bin/k"}`)
		}, true},
		{"CLAUDE_CONFIG_DIR set", func(t *testing.T, in *Inputs) { in.Env[varConfigDir] = filepath.Join(in.Home, "cfg") }, true},
		{"pin", func(t *testing.T, in *Inputs) { in.Pin = "credentials" }, true},
		{"helper setting", func(t *testing.T, in *Inputs) { in.Helper = "/bin/k" }, true},
		{"desktop lineage", func(t *testing.T, in *Inputs) {
			in.Lineage = []string{"/Applications/Claude.app/Contents/MacOS/Claude"}
		}, true},
	}
	hexFP := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base(t)
			before := Fingerprint(in)
			if again := Fingerprint(in); again != before {
				t.Fatalf("unstable: %s then %s", before, again)
			}
			if !hexFP.MatchString(before) {
				t.Fatalf("fingerprint %q is not 32 hex digits", before)
			}
			tt.change(t, &in)
			after := Fingerprint(in)
			if (after != before) != tt.changes {
				t.Fatalf("fingerprint %s → %s, want changed=%v", before, after, tt.changes)
			}
		})
	}
}

func TestSourceIdentity(t *testing.T) {
	a := Source{Kind: KindKeychain, From: "keychain (login.keychain-db)", EnvVar: "CLAUDE_CODE_OAUTH_TOKEN", Value: Secret("sk-ant-oat01-IDENTITYSECRET-aaaa")}
	b := a
	b.Value = Secret("sk-ant-oat01-IDENTITYSECRET-bbbb")
	if a.Identity() == b.Identity() {
		t.Fatal("a changed credential value kept the same identity")
	}
	if same := a; a.Identity() != same.Identity() {
		t.Fatal("identity is unstable: the same credential has another")
	}
	if strings.Contains(a.Identity(), "IDENTITYSECRET") {
		t.Fatal("identity reveals the value")
	}
}
