package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
)

const (
	securityPath    = "/usr/bin/security" // absolute: the detached observer's PATH may be minimal
	keychainService = "Claude Code-credentials"
	keychainTimeout = 10 * time.Second // a keychain prompt nobody answers must not hang the run
	// Claude Code's keychain account when $USER is not a plain name.
	fallbackAccount = "claude-code-user"
)

var plainAccount = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9._-]+$`) })

// loginKeychain is the login keychain file, named explicitly for processes descending
// from the desktop app, whose keychain search list does not include it.
func loginKeychain(home string) string {
	return filepath.Join(home, "Library", "Keychains", "login.keychain-db")
}

// keychainArgs is the argv (after the program) that reads Claude Code's login item,
// the same item Claude Code itself reads: service "Claude Code-credentials" (suffixed
// with the config dir's hash when CLAUDE_CONFIG_DIR moves the store) and the account
// Claude Code writes it under. Without -a, `security` may return the same service's
// mcpOAuth item instead.
func keychainArgs(in Inputs, desktop bool) []string {
	service := keychainService
	if dir, hashed := storageDir(in); hashed {
		sum := sha256.Sum256([]byte(dir))
		service += "-" + hex.EncodeToString(sum[:])[:8]
	}
	args := []string{"find-generic-password"}
	if acct := keychainAccount(in); acct != "" {
		args = append(args, "-a", acct)
	}
	args = append(args, "-s", service, "-w")
	if desktop {
		args = append(args, loginKeychain(in.Home))
	}
	return args
}

// keychainAccount mirrors Claude Code: $USER, and "claude-code-user" when that is not a
// plain name. With no user name at all, no account is named.
func keychainAccount(in Inputs) string {
	u := value(in.Env, envname.User)
	if u == "" {
		u = value(in.Env, envname.LogName)
	}
	if u == "" {
		return ""
	}
	if !plainAccount().MatchString(u) {
		return fallbackAccount
	}
	return u
}

// securityEnv is all `security` needs: the user's home (for the keychain search list)
// and name; none of the caller's credentials.
func securityEnv(in Inputs) []string {
	env := []string{}
	home := in.Env.Get(envname.Home)
	if home == "" {
		home = in.Home
	}
	if home != "" {
		env = append(env, envname.Home+"="+home)
	}
	for _, k := range []string{envname.User, envname.LogName, envname.TmpDir} {
		if v, ok := in.Env.Lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// securityExit names the exit statuses of `security`, which are the low byte of the
// Security framework's OSStatus.
func securityExit(code int) (string, bool) {
	switch code {
	case 36:
		return "user interaction is not allowed (keychain locked, or no login session)", true
	case 44:
		return "item not found", true
	case 50:
		return "no such keychain", true
	case 51:
		return "keychain access denied", true
	case 128:
		return "the keychain prompt was cancelled", true
	}
	return "", false
}

// fromKeychain reads Claude Code's login from the macOS keychain. Any failure leaves the
// next source to be tried.
func fromKeychain(ctx context.Context, in Inputs) (Source, Candidate) {
	desktop := DesktopLineage(in.Env, in.Lineage)
	from := "keychain"
	if desktop {
		from = "keychain (login.keychain-db)"
	}
	c := Candidate{Kind: KindKeychain, From: from}
	if in.GOOS != "darwin" {
		c.Reason = "keychain: the keychain is read only on macOS, not " + in.GOOS
		return Source{}, c
	}
	if in.Run == nil {
		c.Reason = "keychain: no process runner to run " + securityPath
		return Source{}, c
	}
	ctx, cancel := context.WithTimeout(ctx, keychainTimeout)
	defer cancel()
	out, err := in.Run.Output(ctx, securityPath, keychainArgs(in, desktop), securityEnv(in))
	if err != nil {
		c.Reason, c.Present = securityFailure(ctx, err)
		return Source{}, c
	}
	c.Present = true
	return platformSource(in, KindKeychain, from, "keychain", bytes.TrimSpace(out))
}

// securityFailure says why `security` gave no item, and whether the item may exist
// (everything but "not found" and "could not run").
func securityFailure(ctx context.Context, err error) (reason string, present bool) {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("keychain: security gave no answer within %s (a keychain prompt may be waiting)", keychainTimeout), true
	case ctx.Err() != nil:
		return "keychain: cancelled", false
	}
	var exit interface{ ExitCode() int }
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		code := exit.ExitCode()
		reason = fmt.Sprintf("keychain: security exited %d", code)
		if what, ok := securityExit(code); ok {
			reason += ": " + what
		}
		return reason, code != 44
	}
	return "keychain: cannot run " + securityPath + ": " + err.Error(), false
}

// oauthStore is the part of Claude Code's credential JSON that Resolve needs. The refresh
// token is deliberately not a field: it is never decoded, so it cannot be copied.
type oauthStore struct {
	ClaudeAiOauth *struct {
		AccessToken string       `json:"accessToken"`
		ExpiresAt   *json.Number `json:"expiresAt"` // ms since the epoch; null: does not expire
	} `json:"claudeAiOauth"`
}

// platformSource turns keychain or .credentials.json content into a source: usable when
// the access token is non-empty and valid for more than 60 s. name is how the reason
// calls the store; no reason ever quotes its content.
func platformSource(in Inputs, k Kind, from, name string, data []byte) (Source, Candidate) {
	c := Candidate{Kind: k, From: from, Present: true}
	var st oauthStore
	if json.Unmarshal(data, &st) != nil {
		c.Reason = name + " does not hold Claude Code credentials JSON; log in again with Claude Code (claude, then /login)"
		return Source{}, c
	}
	o := st.ClaudeAiOauth
	if o == nil {
		c.Reason = name + " holds no Claude login (no claudeAiOauth); log in with Claude Code (claude, then /login)"
		return Source{}, c
	}
	token := strings.TrimSpace(o.AccessToken)
	if token == "" {
		c.Reason = name + " has an empty access token; log in again with Claude Code (claude, then /login)"
		return Source{}, c
	}
	var expires time.Time
	if o.ExpiresAt != nil {
		ms, err := o.ExpiresAt.Float64()
		if err != nil {
			c.Reason = name + " has an unreadable expiresAt; log in again with Claude Code (claude, then /login)"
			return Source{}, c
		}
		expires = time.UnixMilli(int64(ms)).UTC()
		if !expires.After(in.Now.Add(platformSkew)) {
			when := expires.Format("2006-01-02 15:04 UTC")
			if expires.After(in.Now) {
				c.Reason = name + " token expires " + when + ", within 60 s; open Claude Code to refresh your login"
			} else {
				c.Reason = name + " token expired " + when + "; open Claude Code to refresh your login"
			}
			return Source{}, c
		}
	}
	c.Usable = true
	c.Reason = "Claude login from " + from
	if !expires.IsZero() {
		c.Reason += ", valid until " + expires.Format("2006-01-02 15:04 UTC")
	}
	return Source{Kind: k, From: from, EnvVar: varOAuthToken, Value: Secret(token), ExpiresAt: expires}, c
}
