package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/settings"
)

// The variables and settings Resolve reads.
const (
	varOAuthToken = envname.OAuthToken
	varAPIKey     = envname.APIKey
	varConfigDir  = envname.ClaudeConfigDir
	// Claude Code 2.1.x reads its credential store from here when it is defined (empty
	// meaning ~/.claude), before CLAUDE_CONFIG_DIR.
	varStorageDir = envname.StorageConfigDir
	settingHelper = envname.APIKeyHelper
	settingPin    = envname.AuthSource
)

// CredentialVars is every variable that can carry an Anthropic credential into a claude
// process. The observer's environment holds exactly one of them: Source.EnvVar.
// Cloud-provider credentials (Bedrock, Vertex, Foundry) are not listed: a user passes
// those deliberately with CLAUDE_MEM_PASS_ENV.
var CredentialVars = []string{
	varOAuthToken,
	varAPIKey,
	"ANTHROPIC_AUTH_TOKEN",                       // bearer token for gateways
	"CLAUDE_CODE_OAUTH_REFRESH_TOKEN",            // headless login import
	"CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR",    // the desktop app's delivery path
	"CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR",        // API key on an inherited fd
	"CLAUDE_CODE_SESSION_ACCESS_TOKEN",           // remote sessions
	"CLAUDE_CODE_WEBSOCKET_AUTH_FILE_DESCRIPTOR", // remote sessions
	"CLAUDE_SESSION_INGRESS_TOKEN_FILE",          // remote sessions
}

// order is DESIGN.md §9: a usable env token is tried, and wins, before any platform
// credential, so an expired keychain item can never shadow it.
var order = []Kind{KindEnv, KindAPIKey, KindAPIKeyHelper, KindKeychain, KindCredentials}

// platformSkew is how long a platform credential must still be valid: a token that dies
// while the observer runs would fail the run as auth_failed.
const platformSkew = 60 * time.Second

// Inputs is everything Resolve looks at; cmd/hook gathers it from the process.
type Inputs struct {
	Env     settings.Env // the process environment
	DotEnv  settings.Env // allowlisted <data>/.env entries
	Pin     string       // CLAUDE_MEM_AUTH_SOURCE: "auto"/"" or a Kind
	Helper  string       // CLAUDE_MEM_API_KEY_HELPER (effective setting)
	Home    string
	GOOS    string
	Now     time.Time
	Run     Runner   // for `security` on darwin
	Lineage []string // executable paths/names of the process's ancestors, nearest first
}

// Candidate is one source Resolve tried, for logs and `hook doctor`. It never holds a
// secret.
type Candidate struct {
	Kind    Kind   `json:"kind"`
	From    string `json:"from"` // where it was looked for or found
	Usable  bool   `json:"usable"`
	Present bool   `json:"present"` // the source exists (a value, a file, a keychain item) even if unusable
	Reason  string `json:"reason"`  // why it is unusable, or what it is when usable
}

// Error is Resolve's answer when no source is usable.
type Error struct {
	Pinned     Kind        // the pinned source, or "" in auto mode
	Candidates []Candidate // every source tried, in order
}

// Best is the candidate whose reason tells the user most: the first source that exists
// but cannot be used (an expired login says more than "not set"), else the first tried.
func (e *Error) Best() Candidate {
	for _, c := range e.Candidates {
		if c.Present && !c.Usable {
			return c
		}
	}
	if len(e.Candidates) > 0 {
		return e.Candidates[0]
	}
	return Candidate{}
}

// SignedOut reports that no source exists at all (nothing set, no login, no helper): a
// setup step not taken yet, not a credential that failed.
func (e *Error) SignedOut() bool {
	if e.Pinned != "" {
		return false
	}
	for _, c := range e.Candidates {
		if c.Present {
			return false
		}
	}
	return true
}

func (e *Error) Error() string {
	best := e.Best()
	switch {
	case e.Pinned != "":
		return fmt.Sprintf("%s (%s=%s pins this source; no other is tried)", best.Reason, settingPin, e.Pinned)
	case best.Present:
		return best.Reason
	}
	tried := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		tried[i] = string(c.Kind)
	}
	return fmt.Sprintf("no credential found (tried %s): set %s (from `claude setup-token`) or %s, or log in with Claude Code",
		strings.Join(tried, ", "), varOAuthToken, varAPIKey)
}

// PinError is a CLAUDE_MEM_AUTH_SOURCE value that names no source.
type PinError struct{ Value string }

func (e *PinError) Error() string {
	names := []string{"auto"}
	for _, k := range order {
		names = append(names, string(k))
	}
	return fmt.Sprintf("%s=%q is not one of %s", settingPin, e.Value, strings.Join(names, ", "))
}

// ParsePin reads a CLAUDE_MEM_AUTH_SOURCE value: "" or "auto" is auto mode (Kind ""),
// otherwise one Kind, matched case-insensitively.
func ParsePin(s string) (Kind, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "auto") {
		return "", nil
	}
	for _, k := range order {
		if strings.EqualFold(s, string(k)) {
			return k, nil
		}
	}
	return "", &PinError{Value: s}
}

// Resolve picks the observer's credential: the first usable source in DESIGN.md §9
// order, or only the pinned one. It stops at the first usable source, so the keychain is
// never read when an environment token is there. The candidates are every source tried,
// the winner last. The keychain is tried only on darwin, unless pinned (then it fails
// with a reason saying so).
func Resolve(ctx context.Context, in Inputs) (Source, []Candidate, error) {
	pin, err := ParsePin(in.Pin)
	if err != nil {
		return Source{}, nil, err
	}
	var tried []Candidate
	for _, k := range order {
		if pin != "" && k != pin {
			continue
		}
		if pin == "" && k == KindKeychain && in.GOOS != "darwin" {
			continue
		}
		src, c := try(ctx, in, k)
		tried = append(tried, c)
		if c.Usable {
			return src, tried, nil
		}
	}
	return Source{}, tried, &Error{Pinned: pin, Candidates: tried}
}

func try(ctx context.Context, in Inputs, k Kind) (Source, Candidate) {
	switch k {
	case KindEnv:
		return fromVar(in, KindEnv, varOAuthToken)
	case KindAPIKey:
		return fromVar(in, KindAPIKey, varAPIKey)
	case KindAPIKeyHelper:
		return fromHelper(in)
	case KindKeychain:
		return fromKeychain(ctx, in)
	default:
		return fromCredentialsFile(in)
	}
}

// value is a variable's value with surrounding whitespace dropped; whitespace-only is
// unset (a stray CR from a CRLF .env must not become part of a token).
func value(env settings.Env, key string) string {
	return strings.TrimSpace(env.Get(key))
}

// fromVar reads a credential variable from the process environment, then from .env.
func fromVar(in Inputs, k Kind, name string) (Source, Candidate) {
	for _, place := range []struct {
		env  settings.Env
		from string
	}{{in.Env, "environment"}, {in.DotEnv, ".env"}} {
		if v := value(place.env, name); v != "" {
			src := Source{Kind: k, From: place.from, EnvVar: name, Value: Secret(v)}
			return src, Candidate{Kind: k, From: place.from, Usable: true, Present: true,
				Reason: name + " from " + place.from}
		}
	}
	return Source{}, Candidate{Kind: k, From: "environment, .env",
		Reason: name + " is not set in the environment or .env"}
}

// configDir is Claude Code's user config directory.
func configDir(in Inputs) string { return settings.ClaudeConfigDir(in.Env, in.Home) }

// storageDir is where Claude Code keeps its credential store, and whether its keychain
// service name carries the directory's hash (only for a CLAUDE_CONFIG_DIR store).
func storageDir(in Inputs) (dir string, hashed bool) {
	if d, ok := in.Env.Lookup(varStorageDir); ok {
		if strings.TrimSpace(d) != "" {
			return d, false
		}
		return filepath.Join(in.Home, ".claude"), false
	}
	if d := in.Env.Get(varConfigDir); strings.TrimSpace(d) != "" {
		return d, true
	}
	return filepath.Join(in.Home, ".claude"), false
}

func settingsPath(in Inputs) string { return filepath.Join(configDir(in), "settings.json") }

func credentialsPath(in Inputs) string {
	dir, _ := storageDir(in)
	return filepath.Join(dir, ".credentials.json")
}

// fromHelper takes CLAUDE_MEM_API_KEY_HELPER, else the apiKeyHelper of Claude Code's
// user settings. The command is handed to the child with --settings; it is not run here.
func fromHelper(in Inputs) (Source, Candidate) {
	if h := strings.TrimSpace(in.Helper); h != "" {
		return Source{Kind: KindAPIKeyHelper, From: settingHelper, Helper: h},
			Candidate{Kind: KindAPIKeyHelper, From: settingHelper, Usable: true, Present: true,
				Reason: "apiKeyHelper from " + settingHelper}
	}
	path := settingsPath(in)
	absent := Candidate{Kind: KindAPIKeyHelper, From: path,
		Reason: settingHelper + " is not set and " + path + " has no apiKeyHelper"}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Source{}, absent
	}
	if err != nil {
		absent.Reason = "cannot read apiKeyHelper: " + readFailure(path, err)
		return Source{}, absent
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		absent.Reason = "cannot read apiKeyHelper: " + path + " is not a valid JSON object"
		return Source{}, absent
	}
	raw, ok := doc["apiKeyHelper"]
	if !ok || string(raw) == "null" {
		return Source{}, absent
	}
	var h string
	if json.Unmarshal(raw, &h) != nil {
		return Source{}, Candidate{Kind: KindAPIKeyHelper, From: path, Present: true,
			Reason: "apiKeyHelper in " + path + " is not a string"}
	}
	if h = strings.TrimSpace(h); h == "" {
		return Source{}, absent
	}
	return Source{Kind: KindAPIKeyHelper, From: path, Helper: h},
		Candidate{Kind: KindAPIKeyHelper, From: path, Usable: true, Present: true,
			Reason: "apiKeyHelper from " + path}
}

// readFailure says which file could not be read and why, once.
func readFailure(path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return "cannot read " + path + ": " + err.Error()
}

// fromCredentialsFile reads Claude Code's plaintext credential store (Linux, Windows,
// and macOS when the keychain was unavailable at login).
func fromCredentialsFile(in Inputs) (Source, Candidate) {
	path := credentialsPath(in)
	c := Candidate{Kind: KindCredentials, From: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.Reason = "no " + path + "; log in with Claude Code (claude, then /login)"
		return Source{}, c
	}
	c.Present = true
	if err != nil {
		c.Reason = readFailure(path, err)
		return Source{}, c
	}
	return platformSource(in, KindCredentials, path, ".credentials.json", data)
}
