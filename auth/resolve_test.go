package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/claude-mem/claude-mem-go/internal/fixtures"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/settings"
)

// Fixture secrets: none may ever appear in a reason, a candidate or an error.
const (
	envToken     = "sk-ant-oat01-ENVtok-Qw3rTy9uIoPaSdFgHjKlZxCvBnM1234567890abcdefABCDEF"
	dotenvToken  = "sk-ant-oat01-DOTENVtok-Zx8cVbNm4qWeRtYuIoPlKjHgFdSa0987654321fedcbaFEDC"
	apiKey       = "sk-ant-api03-APIkey-Mn2bVcXz7lKjHgFdSaPoIuYtReWq1122334455667788990011"
	fileToken    = "sk-ant-oat01-FILEtok-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2Mm3Nn4Oo5Pp6"
	fileRefresh  = "sk-ant-ort01-FILErefresh-Qq1Rr2Ss3Tt4Uu5Vv6Ww7Xx8Yy9Zz0Aa1Bb2Cc3Dd4E"
	chainToken   = "sk-ant-oat01-KEYCHAINtok-Ff1Gg2Hh3Ii4Jj5Kk6Ll7Mm8Nn9Oo0Pp1Qq2Rr3Ss4T"
	chainRefresh = "sk-ant-ort01-KEYCHAINrefresh-Uu1Vv2Ww3Xx4Yy5Zz6Aa7Bb8Cc9Dd0Ee1Ff2Gg3"
)

var fixtureSecrets = []string{envToken, dotenvToken, apiKey, fileToken, fileRefresh, chainToken, chainRefresh}

var now = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

// oauthJSON is Claude Code's credential store content.
func oauthJSON(access, refresh string, expires time.Time) string {
	return fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":%q,"expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`,
		access, refresh, expires.UnixMilli())
}

// exitStatus is a failed run's error as a fake Runner reports it.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e exitStatus) ExitCode() int { return int(e) }

// fakeRunner answers every run the same and records each argv and environment.
type fakeRunner struct {
	out   string
	err   error
	calls [][]string
	envs  [][]string
}

func (f *fakeRunner) Output(ctx context.Context, path string, args, env []string) ([]byte, error) {
	f.calls = append(f.calls, append([]string{path}, args...))
	f.envs = append(f.envs, env)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.err != nil {
		return nil, f.err
	}
	return []byte(f.out), nil
}

type resolveCase struct {
	name    string
	goos    string            // default linux
	env     map[string]string // HOME and USER are added
	dotenv  map[string]string
	pin     string
	helper  string
	files   map[string]string // relative to the home directory
	dirs    []string          // directories where a file is expected, relative to home
	lineage []string
	run     *fakeRunner // nil: a runner that fails the test if called
	expired bool        // the caller's deadline has passed

	wantKind    Kind
	wantFrom    string // "~/" is replaced by the home directory
	wantVar     string
	wantValue   string
	wantHelper  string
	wantExpires time.Time
	wantErr     string // substring of the error; the source must be zero
	wantPinned  Kind
	wantTried   []Kind
	wantArgv    []string // the one `security` argv expected ("~/" replaced)
	wantNoRun   bool     // the keychain must not be consulted
}

func TestResolve(t *testing.T) {
	valid := now.Add(8 * time.Hour)
	expired := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	keychainArgv := []string{securityPath, "find-generic-password", "-a", "alice", "-s", "Claude Code-credentials", "-w"}
	desktopArgv := append(slices.Clone(keychainArgv), "~/Library/Keychains/login.keychain-db")

	tests := []resolveCase{
		// One per source.
		{
			name:     "env token from the environment",
			env:      map[string]string{varOAuthToken: envToken},
			wantKind: KindEnv, wantFrom: "environment", wantVar: varOAuthToken, wantValue: envToken,
			wantTried: []Kind{KindEnv},
		},
		{
			name:     "env token from .env when the environment's is whitespace",
			env:      map[string]string{varOAuthToken: " \t"},
			dotenv:   map[string]string{varOAuthToken: dotenvToken + "\r"},
			wantKind: KindEnv, wantFrom: ".env", wantVar: varOAuthToken, wantValue: dotenvToken,
			wantTried: []Kind{KindEnv},
		},
		{
			name:     "api key from the environment",
			env:      map[string]string{varAPIKey: apiKey},
			wantKind: KindAPIKey, wantFrom: "environment", wantVar: varAPIKey, wantValue: apiKey,
			wantTried: []Kind{KindEnv, KindAPIKey},
		},
		{
			name:     "api key from .env",
			dotenv:   map[string]string{varAPIKey: apiKey},
			wantKind: KindAPIKey, wantFrom: ".env", wantVar: varAPIKey, wantValue: apiKey,
			wantTried: []Kind{KindEnv, KindAPIKey},
		},
		{
			// Documented: an OAuth token is the user's subscription; an API key in the
			// environment is often a leftover for other tools and bills per token.
			name:     "api key and env token both set: the env token wins",
			env:      map[string]string{varAPIKey: apiKey, varOAuthToken: envToken},
			wantKind: KindEnv, wantFrom: "environment", wantVar: varOAuthToken, wantValue: envToken,
			wantTried: []Kind{KindEnv},
		},
		{
			name:     "apiKeyHelper from CLAUDE_MEM_API_KEY_HELPER beats settings.json",
			helper:   "  /usr/local/bin/get-key --profile work ",
			files:    map[string]string{".claude/settings.json": `{"apiKeyHelper":"/bin/other"}`},
			wantKind: KindAPIKeyHelper, wantFrom: settingHelper, wantHelper: "/usr/local/bin/get-key --profile work",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper},
		},
		{
			name:     "apiKeyHelper from CLAUDE_CONFIG_DIR/settings.json",
			env:      map[string]string{varConfigDir: "~/cfg"},
			files:    map[string]string{"cfg/settings.json": `{"model":"opus","apiKeyHelper":"~/bin/key.sh"}`, ".claude/settings.json": `{"apiKeyHelper":"/bin/wrong"}`},
			wantKind: KindAPIKeyHelper, wantFrom: "~/cfg/settings.json", wantHelper: "~/bin/key.sh",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper},
		},
		{
			name:     "apiKeyHelper from ~/.claude/settings.json",
			files:    map[string]string{".claude/settings.json": `{"apiKeyHelper":"/opt/key"}`},
			wantKind: KindAPIKeyHelper, wantFrom: "~/.claude/settings.json", wantHelper: "/opt/key",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper},
		},
		{
			name:     "keychain on darwin",
			goos:     "darwin",
			run:      &fakeRunner{out: oauthJSON(chainToken, chainRefresh, valid) + "\n"},
			wantKind: KindKeychain, wantFrom: "keychain", wantVar: varOAuthToken, wantValue: chainToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain},
			wantArgv:  keychainArgv,
		},
		{
			name: "keychain service carries the CLAUDE_CONFIG_DIR hash, as Claude Code names it",
			goos: "darwin",
			env:  map[string]string{varConfigDir: "/Users/alice/.claude-work"},
			run:  &fakeRunner{out: oauthJSON(chainToken, chainRefresh, valid)},
			// sha256("/Users/alice/.claude-work")[:8]
			wantKind: KindKeychain, wantFrom: "keychain", wantVar: varOAuthToken, wantValue: chainToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain},
			wantArgv:  []string{securityPath, "find-generic-password", "-a", "alice", "-s", "Claude Code-credentials-" + sha8("/Users/alice/.claude-work"), "-w"},
		},
		{
			name:     "keychain account is claude-code-user when USER is not a plain name",
			goos:     "darwin",
			env:      map[string]string{"USER": "first.last@example.com"},
			run:      &fakeRunner{out: oauthJSON(chainToken, chainRefresh, valid)},
			wantKind: KindKeychain, wantFrom: "keychain", wantVar: varOAuthToken, wantValue: chainToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain},
			wantArgv:  []string{securityPath, "find-generic-password", "-a", "claude-code-user", "-s", "Claude Code-credentials", "-w"},
		},
		{
			name:     "credentials.json",
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:     "credentials.json under CLAUDE_CONFIG_DIR",
			env:      map[string]string{varConfigDir: "~/alt"},
			files:    map[string]string{"alt/.credentials.json": oauthJSON(fileToken, fileRefresh, valid), ".claude/.credentials.json": oauthJSON(envToken, "", valid)},
			wantKind: KindCredentials, wantFrom: "~/alt/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:     "credentials.json under CLAUDE_SECURESTORAGE_CONFIG_DIR, which beats CLAUDE_CONFIG_DIR",
			env:      map[string]string{varConfigDir: "~/alt", varStorageDir: "~/store"},
			files:    map[string]string{"store/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/store/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:     "credentials.json without expiresAt does not expire (as in Claude Code)",
			files:    map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"` + fileToken + `","expiresAt":null}}`},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},

		// The named cases of issue 6.
		{
			name:     "expired keychain + valid env token: env token, keychain never consulted",
			goos:     "darwin",
			env:      map[string]string{varOAuthToken: envToken},
			run:      &fakeRunner{out: oauthJSON(chainToken, chainRefresh, expired)},
			wantKind: KindEnv, wantFrom: "environment", wantVar: varOAuthToken, wantValue: envToken,
			wantTried: []Kind{KindEnv},
			wantNoRun: true,
		},
		{
			name:     "expired keychain + valid .env token: .env token, keychain never consulted",
			goos:     "darwin",
			dotenv:   map[string]string{varOAuthToken: dotenvToken},
			run:      &fakeRunner{out: oauthJSON(chainToken, chainRefresh, expired)},
			wantKind: KindEnv, wantFrom: ".env", wantVar: varOAuthToken, wantValue: dotenvToken,
			wantTried: []Kind{KindEnv},
			wantNoRun: true,
		},
		{
			name:     "expired credentials.json + valid CLAUDE_CODE_OAUTH_TOKEN in .env: the .env token",
			dotenv:   map[string]string{varOAuthToken: dotenvToken},
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, expired)},
			wantKind: KindEnv, wantFrom: ".env", wantVar: varOAuthToken, wantValue: dotenvToken,
			wantTried: []Kind{KindEnv},
		},
		{
			name:      ".credentials.json with empty tokens: not usable, reason says so",
			files:     map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"","refreshToken":"","expiresAt":0,"scopes":[]}}`},
			wantErr:   ".credentials.json has an empty access token",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:     "desktop lineage: login keychain named; security fails; valid credentials.json used",
			goos:     "darwin",
			lineage:  []string{"/bin/zsh", "/Users/alice/Library/Application Support/Claude/claude-code/2.1.328/claude.app/Contents/MacOS/claude", "/Applications/Claude.app/Contents/MacOS/Claude", "/sbin/launchd"},
			run:      &fakeRunner{err: exitStatus(36)},
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  desktopArgv,
		},
		{
			name:     "desktop lineage from __CFBundleIdentifier: login keychain named",
			goos:     "darwin",
			env:      map[string]string{"__CFBundleIdentifier": "com.anthropic.claudefordesktop"},
			run:      &fakeRunner{out: oauthJSON(chainToken, chainRefresh, valid)},
			wantKind: KindKeychain, wantFrom: "keychain (login.keychain-db)", wantVar: varOAuthToken, wantValue: chainToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain},
			wantArgv:  desktopArgv,
		},
		{
			name:       "pinned keychain unusable: error, no fallback though env token and credentials.json are usable",
			goos:       "darwin",
			pin:        "keychain",
			env:        map[string]string{varOAuthToken: envToken},
			files:      map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			run:        &fakeRunner{err: exitStatus(44)},
			wantErr:    "keychain: security exited 44: item not found (CLAUDE_MEM_AUTH_SOURCE=keychain pins this source; no other is tried)",
			wantPinned: KindKeychain,
			wantTried:  []Kind{KindKeychain},
			wantArgv:   keychainArgv,
		},
		{
			name:       "pinned credentials (any case) expired: error, no fallback to the env token",
			pin:        " Credentials ",
			env:        map[string]string{varOAuthToken: envToken},
			files:      map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, expired)},
			wantErr:    ".credentials.json token expired 2026-11-29 08:00 UTC; open Claude Code to refresh your login",
			wantPinned: KindCredentials,
			wantTried:  []Kind{KindCredentials},
		},
		{
			name:     "pinned credentials usable while an env token is set",
			pin:      "credentials",
			env:      map[string]string{varOAuthToken: envToken},
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindCredentials},
		},
		{
			name:       "pinned keychain off macOS",
			goos:       "windows",
			pin:        "keychain",
			wantErr:    "keychain: the keychain is read only on macOS, not windows",
			wantPinned: KindKeychain,
			wantTried:  []Kind{KindKeychain},
			wantNoRun:  true,
		},
		{
			name:     "pin auto is the order",
			pin:      "AUTO",
			env:      map[string]string{varAPIKey: apiKey},
			wantKind: KindAPIKey, wantFrom: "environment", wantVar: varAPIKey, wantValue: apiKey,
			wantTried: []Kind{KindEnv, KindAPIKey},
		},
		{
			name:      "expiry within 60 s: unusable",
			files:     map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, now.Add(59*time.Second))},
			wantErr:   ".credentials.json token expires 2026-11-29 09:00 UTC, within 60 s; open Claude Code to refresh your login",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "expiry exactly 60 s away: unusable",
			goos:      "darwin",
			run:       &fakeRunner{out: oauthJSON(chainToken, chainRefresh, now.Add(60*time.Second))},
			wantErr:   "keychain token expires 2026-11-29 09:01 UTC, within 60 s",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  keychainArgv,
		},
		{
			name:     "expiry 61 s away: usable",
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, now.Add(61*time.Second))},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: now.Add(61 * time.Second),
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},

		// Failures, and which reason the error carries.
		{
			name:      "nothing anywhere: what was tried and what to do",
			wantErr:   "no credential found (tried env, apiKey, apiKeyHelper, credentials): set CLAUDE_CODE_OAUTH_TOKEN",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "keychain not found is absent: an expired credentials.json is the better reason",
			goos:      "darwin",
			run:       &fakeRunner{err: exitStatus(44)},
			files:     map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, expired)},
			wantErr:   ".credentials.json token expired 2026-11-29 08:00 UTC",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  keychainArgv,
		},
		{
			name:      "expired keychain alone",
			goos:      "darwin",
			run:       &fakeRunner{out: oauthJSON(chainToken, chainRefresh, expired)},
			wantErr:   "keychain token expired 2026-11-29 08:00 UTC; open Claude Code to refresh your login",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  keychainArgv,
		},
		{
			name:     "keychain item without a Claude login falls through",
			goos:     "darwin",
			run:      &fakeRunner{out: `{"mcpOAuth":{"server|abc":{"accessToken":"` + chainToken + `"}}}`},
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  keychainArgv,
		},
		{
			name:      "keychain that cannot be run",
			goos:      "darwin",
			pin:       "keychain",
			run:       &fakeRunner{err: errors.New("fork/exec /usr/bin/security: no such file or directory")},
			wantErr:   "keychain: cannot run /usr/bin/security: fork/exec",
			wantTried: []Kind{KindKeychain}, wantPinned: KindKeychain,
			wantArgv: keychainArgv,
		},
		{
			name:      "keychain not answering in time",
			goos:      "darwin",
			expired:   true,
			run:       &fakeRunner{out: oauthJSON(chainToken, chainRefresh, valid)},
			wantErr:   "keychain: security gave no answer within 10s",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials},
			wantArgv:  keychainArgv,
		},
		{
			name:      "credentials.json that is not JSON: reason quotes none of it",
			files:     map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"` + fileToken + `",`},
			wantErr:   ".credentials.json does not hold Claude Code credentials JSON",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "credentials.json without claudeAiOauth",
			files:     map[string]string{".claude/.credentials.json": `{"mcpOAuth":{}}`},
			wantErr:   ".credentials.json holds no Claude login",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "apiKeyHelper that is not a string",
			files:     map[string]string{".claude/settings.json": `{"apiKeyHelper":["/bin/key"]}`},
			wantErr:   "apiKeyHelper in ~/.claude/settings.json is not a string",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "settings.json that is not JSON is not a helper",
			files:     map[string]string{".claude/settings.json": `{"apiKeyHelper":`},
			wantErr:   "no credential found",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:     "empty CLAUDE_SECURESTORAGE_CONFIG_DIR means ~/.claude, even with CLAUDE_CONFIG_DIR",
			env:      map[string]string{varConfigDir: "~/alt", varStorageDir: ""},
			files:    map[string]string{".claude/.credentials.json": oauthJSON(fileToken, fileRefresh, valid)},
			wantKind: KindCredentials, wantFrom: "~/.claude/.credentials.json", wantVar: varOAuthToken, wantValue: fileToken, wantExpires: valid,
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "credentials.json that cannot be read is present",
			dirs:      []string{".claude/.credentials.json"},
			wantErr:   "cannot read ~/.claude/.credentials.json: is a directory",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "credentials.json with an absurd expiresAt",
			files:     map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"` + fileToken + `","expiresAt":1e400}}`},
			wantErr:   ".credentials.json has an unreadable expiresAt",
			wantTried: []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindCredentials},
		},
		{
			name:      "settings.json that cannot be read is no helper",
			dirs:      []string{".claude/settings.json"},
			pin:       "apiKeyHelper",
			wantErr:   "cannot read apiKeyHelper: cannot read ~/.claude/settings.json: is a directory",
			wantTried: []Kind{KindAPIKeyHelper}, wantPinned: KindAPIKeyHelper,
		},
		{
			name:      "null apiKeyHelper is none",
			pin:       "apiKeyHelper",
			files:     map[string]string{".claude/settings.json": `{"apiKeyHelper":null}`},
			wantErr:   "CLAUDE_MEM_API_KEY_HELPER is not set and ~/.claude/settings.json has no apiKeyHelper",
			wantTried: []Kind{KindAPIKeyHelper}, wantPinned: KindAPIKeyHelper,
		},
		{
			name:      "blank apiKeyHelper is none",
			pin:       "apiKeyHelper",
			helper:    "  ",
			files:     map[string]string{".claude/settings.json": `{"apiKeyHelper":"  "}`},
			wantErr:   "has no apiKeyHelper",
			wantTried: []Kind{KindAPIKeyHelper}, wantPinned: KindAPIKeyHelper,
		},
		{
			name:    "unknown pin names the allowed values",
			pin:     "oauth",
			env:     map[string]string{varOAuthToken: envToken},
			wantErr: `CLAUDE_MEM_AUTH_SOURCE="oauth" is not one of auto, env, apiKey, apiKeyHelper, keychain, credentials`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runResolve(t, tt) })
	}
}

func sha8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func runResolve(t *testing.T, tt resolveCase) {
	home := t.TempDir()
	expand := func(s string) string {
		if rest, ok := strings.CutPrefix(s, "~/"); ok {
			return filepath.Join(home, rest)
		}
		return s
	}
	for rel, content := range tt.files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range tt.dirs {
		if err := os.MkdirAll(filepath.Join(home, rel), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := settings.Env{"HOME": home, "USER": "alice", "PATH": "/usr/bin:/bin"}
	for k, v := range tt.env {
		env[k] = expand(v)
	}
	goos := tt.goos
	if goos == "" {
		goos = "linux"
	}
	run := tt.run
	if run == nil {
		run = &fakeRunner{err: errors.New("unexpected run")}
	}
	in := Inputs{Env: env, DotEnv: settings.Env(tt.dotenv), Pin: tt.pin, Helper: tt.helper, Home: home,
		GOOS: goos, Now: now, Run: run, Lineage: tt.lineage}

	ctx := context.Background()
	if tt.expired {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, 0))
		defer cancel()
	}
	src, tried, err := Resolve(ctx, in)

	// Nothing printable may hold a secret, whatever the outcome.
	printed := fmt.Sprintf("%v|%+v|%#v|%+v", err, tried, src, src)
	for _, s := range fixtureSecrets {
		if strings.Contains(printed, s) {
			t.Fatalf("secret %.20s… printed: %s", s, printed)
		}
	}
	// The refresh token is never copied anywhere.
	for _, r := range []string{fileRefresh, chainRefresh} {
		if src.Value.Reveal() == r || src.Helper == r {
			t.Fatal("refresh token copied into the source")
		}
	}

	if tt.wantErr != "" {
		if err == nil {
			t.Fatalf("Resolve = %+v, want error %q", src, tt.wantErr)
		}
		if !strings.Contains(err.Error(), expand(tt.wantErr)) && !strings.Contains(err.Error(), strings.ReplaceAll(tt.wantErr, "~/", home+"/")) {
			t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
		}
		if src != (Source{}) {
			t.Fatalf("error with a non-zero source %+v", src)
		}
		var ae *Error
		var pe *PinError
		switch {
		case errors.As(err, &pe):
			if tried != nil {
				t.Fatalf("pin error with candidates %+v", tried)
			}
		case errors.As(err, &ae):
			if ae.Pinned != tt.wantPinned {
				t.Fatalf("Pinned = %q, want %q", ae.Pinned, tt.wantPinned)
			}
			if !slices.Equal(ae.Candidates, tried) {
				t.Fatalf("Error.Candidates %+v differ from the returned %+v", ae.Candidates, tried)
			}
		default:
			t.Fatalf("error %T, want *Error or *PinError", err)
		}
		for _, c := range tried {
			if c.Usable {
				t.Fatalf("error with a usable candidate %+v", c)
			}
		}
	} else {
		if err != nil {
			t.Fatalf("Resolve error: %v (candidates %+v)", err, tried)
		}
		want := Source{Kind: tt.wantKind, From: expand(tt.wantFrom), EnvVar: tt.wantVar, Value: Secret(tt.wantValue),
			Helper: tt.wantHelper, ExpiresAt: tt.wantExpires.Truncate(time.Millisecond)}
		if src != want {
			t.Fatalf("source %+v (value %q…), want %+v", src, src.Value.Reveal()[:min(20, len(src.Value))], want)
		}
		if last := tried[len(tried)-1]; !last.Usable || last.Kind != tt.wantKind || last.From != src.From {
			t.Fatalf("last candidate %+v is not the winner", last)
		}
	}

	var kinds []Kind
	for _, c := range tried {
		kinds = append(kinds, c.Kind)
	}
	if !slices.Equal(kinds, tt.wantTried) {
		t.Fatalf("tried %v, want %v", kinds, tt.wantTried)
	}

	switch {
	case tt.wantNoRun:
		if len(run.calls) != 0 {
			t.Fatalf("keychain consulted: %v", run.calls)
		}
	case tt.wantArgv != nil:
		want := make([]string, len(tt.wantArgv))
		for i, a := range tt.wantArgv {
			want[i] = expand(a)
		}
		if len(run.calls) != 1 || !slices.Equal(run.calls[0], want) {
			t.Fatalf("security runs %q, want one %q", run.calls, want)
		}
		for _, kv := range run.envs[0] {
			k, _, _ := strings.Cut(kv, "=")
			if !slices.Contains([]string{"HOME", "USER", "LOGNAME", "TMPDIR"}, k) {
				t.Fatalf("security got %s in its environment", k)
			}
		}
	default:
		if len(run.calls) != 0 {
			t.Fatalf("unexpected runs %v", run.calls)
		}
	}
}

// TestResolveHookEnvFixture resolves with the real hook environment Claude Code 2.1.328
// gives a hook: no credential there, not a desktop lineage, and the session's messaging
// token appears nowhere.
func TestResolveHookEnvFixture(t *testing.T) {
	env := hookEnv(t)
	tok := env.Get("CLAUDE_CODE_MESSAGING_TOKEN")
	if tok == "" {
		t.Fatal("fixture has no CLAUDE_CODE_MESSAGING_TOKEN")
	}
	if DesktopLineage(env, nil) {
		t.Fatal("a headless sdk-cli hook environment taken for the desktop app")
	}
	home := t.TempDir()
	run := &fakeRunner{err: exitStatus(44)}
	_, tried, err := Resolve(context.Background(), Inputs{Env: env, Home: home, GOOS: "darwin", Now: now, Run: run})
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("Resolve error %v, want *Error", err)
	}
	if out := fmt.Sprintf("%v %+v %v", err, tried, run.envs); strings.Contains(out, tok) {
		t.Fatalf("messaging token leaked: %s", out)
	}
	if len(run.calls) != 1 || slices.Contains(run.calls[0], filepath.Join(home, "Library/Keychains/login.keychain-db")) {
		t.Fatalf("security runs %q, want one without the login keychain", run.calls)
	}
}

func hookEnv(t *testing.T) settings.Env {
	t.Helper()
	path, err := fixtures.Path("hook-env-SessionStart.txt")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("fixtures not found (set CLAUDE_MEM_FIXTURES): %v", err)
	}
	return settings.EnvFrom(strings.Split(strings.TrimSpace(string(data)), "\n"))
}

// TestResolveKeychainCannotRun covers the keychain with no runner and a caller that gave
// up: both leave the next source to be tried.
func TestResolveKeychainCannotRun(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		run  Runner
		want string
	}{
		{"no runner", context.Background(), nil, "keychain: no process runner to run /usr/bin/security"},
		{"cancelled", cancelled, &fakeRunner{out: oauthJSON(chainToken, chainRefresh, now.Add(time.Hour))}, "keychain: cancelled"},
	}
	for _, tt := range tests {
		home := t.TempDir()
		_, tried, err := Resolve(tt.ctx, Inputs{Env: settings.Env{}, Home: home, GOOS: "darwin", Now: now, Run: tt.run})
		var ae *Error
		if !errors.As(err, &ae) || len(tried) != 5 || tried[3].Kind != KindKeychain || tried[3].Reason != tt.want || tried[3].Present {
			t.Errorf("%s: err %v, candidates %+v; want keychain reason %q, not present", tt.name, err, tried, tt.want)
		}
	}
}

func TestParsePin(t *testing.T) {
	tests := []struct {
		in   string
		want Kind
		err  bool
	}{
		{"", "", false},
		{"auto", "", false},
		{" Auto ", "", false},
		{"env", KindEnv, false},
		{"apikey", KindAPIKey, false},
		{"apiKeyHelper", KindAPIKeyHelper, false},
		{"KEYCHAIN", KindKeychain, false},
		{"credentials", KindCredentials, false},
		{"credentials.json", "", true},
		{"none", "", true},
	}
	for _, tt := range tests {
		got, err := ParsePin(tt.in)
		var pe *PinError
		if got != tt.want || (err != nil) != tt.err || (tt.err && !errors.As(err, &pe)) {
			t.Errorf("ParsePin(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestErrorBest(t *testing.T) {
	absent := Candidate{Kind: KindEnv, From: "environment, .env", Reason: "not set"}
	broken := Candidate{Kind: KindCredentials, From: "/h/.claude/.credentials.json", Present: true, Reason: "expired"}
	tests := []struct {
		name  string
		cands []Candidate
		want  Candidate
	}{
		{"present beats absent, whatever the order", []Candidate{absent, broken}, broken},
		{"all absent: the first", []Candidate{absent, {Kind: KindAPIKey}}, absent},
		{"none", nil, Candidate{}},
	}
	for _, tt := range tests {
		if got := (&Error{Candidates: tt.cands}).Best(); got != tt.want {
			t.Errorf("%s: Best() = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Signed out is no source at all: a setup step. A source that exists but cannot be used
// (expired, empty), or a pinned one, is a failed credential.
func TestSignedOut(t *testing.T) {
	for _, tc := range []struct {
		err  Error
		want bool
	}{
		{Error{Candidates: []Candidate{{Kind: KindEnv}, {Kind: KindCredentials}}}, true},
		{Error{}, true},
		{Error{Candidates: []Candidate{{Kind: KindEnv}, {Kind: KindCredentials, Present: true, Reason: "expired"}}}, false},
		{Error{Pinned: KindAPIKey, Candidates: []Candidate{{Kind: KindAPIKey}}}, false},
	} {
		if got := tc.err.SignedOut(); got != tc.want {
			t.Errorf("%+v: SignedOut %v, want %v", tc.err, got, tc.want)
		}
	}
}
