// Package spawn decides how one run of the observer's headless `claude -p` child is started
// and read: one declared spec, no shell, an allowlisted environment, a lease that lets a
// crashed hook's child be reaped, the outcome classified from stream-json, its run dir kept
// and pruned.
package spawn

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
)

// PermissionMode never asks: the child is unattended and, having no tools, has nothing to ask
// about.
const PermissionMode = "dontAsk"

// DisallowedTools is denied on top of `--tools=` (no tools at all), so that a CLI which ever
// ignored the empty tool list still could not message peer sessions, start agents, run
// commands, touch files or reach the web. The peer-messaging tools come first: they are the
// ones an observer has abused (SendMessage to the user's session).
var DisallowedTools = []string{
	"SendMessage", "ListAgents",
	// agents, tasks and workflows
	"Task", "Agent", "TaskStop", "TaskOutput", "TaskCreate", "TaskGet", "TaskUpdate", "TaskList",
	"Workflow", "ReportFindings", "Skill", "SlashCommand", "ToolSearch",
	// execution and scheduling
	"Bash", "BashOutput", "KillShell", "KillBash", "Monitor", "CronCreate", "CronDelete",
	"CronList", "ScheduleWakeup", "EnterWorktree", "ExitWorktree", "EnterPlanMode", "ExitPlanMode",
	// files
	"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep", "LS", "LSP",
	"TodoWrite", "ListMcpResourcesTool", "ReadMcpResourceTool",
	// web
	"WebFetch", "WebSearch",
}

// Spec is everything an observer spawn is made of. BuildSpec is the one place it is built;
// Run starts exactly what it says; Redacted is what is logged and what doctor prints.
type Spec struct {
	Binary          string
	Via             string
	Args            []string // Args[0] == Binary
	Dir             string   // the run's cwd: <data>/observer-sessions/<run-id>
	Env             []string // sorted KEY=VALUE; holds the one credential in clear
	RefusedEnv      []string // CLAUDE_MEM_PASS_ENV names not passed, each with the reason
	SettingSources  string
	Tools           string
	DisallowedTools []string
	PermissionMode  string
	SessionDir      string // <data>/observer-sessions, the parent of every run's Dir (see Prune)
	ConfigDir       string // <data>/observer-config, the child's CLAUDE_CONFIG_DIR
	Auth            auth.Source
	Model           string
	SystemPrompt    string // --system-prompt: the observer's instructions; "" sends Claude Code's default (and the instructions go in the message)
	Timeout         time.Duration
	RunID           string
	// SettingsFile is <Dir>/settings.json, which Run writes (0600) with the apiKeyHelper and
	// argv names with --settings: argv is readable by every local user (ps), a 0700 run dir
	// is not. Empty for the other sources.
	SettingsFile string
}

// SettingsFileName is the apiKeyHelper settings file in a run dir (DESIGN.md §18).
const SettingsFileName = "settings.json"

// SpecInput is what a spawn is built from.
type SpecInput struct {
	Settings *settings.Settings
	Env      settings.Env // the hook process's environment
	GOOS     string       // runtime.GOOS of the process: windows names are case-insensitive
	Binary   claudebin.Result
	Auth     auth.Source
	RunID    string
}

// Variables the child always gets, whatever the parent has.
const (
	envMaxRetries = "CLAUDE_CODE_MAX_RETRIES"
	envNoUpdater  = "DISABLE_AUTOUPDATER"
	envNoTraffic  = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"
)

var fixedEnv = [][2]string{
	{envname.Internal, "1"}, // marks the child's own hooks and events as ours (self-capture guard)
	{envMaxRetries, "1"},    // a 401 otherwise takes minutes of retries before failing
	{envNoUpdater, "1"},     // an unattended child must not rewrite the binary others run
	{envNoTraffic, "1"},     // no telemetry, error reporting or update checks from a background child
}

// passedEnv are passed when the parent has them (DESIGN.md §8).
var passedEnv = []string{
	envname.Path, envname.Home, envname.User, envname.LogName, "LANG", "TZ", envname.TmpDir, "TMP", "TEMP",
	"SYSTEMROOT", envname.UserProfile, "APPDATA", "LOCALAPPDATA",
	envname.CACerts, "SSL_CERT_FILE", "SSL_CERT_DIR", envname.BaseURL,
}

// proxyEnv are passed unless CLAUDE_MEM_PRESERVE_PROXY=false: stripping them broke every
// observer behind a corporate proxy (403).
var proxyEnv = envname.Proxy

// sessionEnv are what the user's Claude Code session puts into its hooks' environment; a
// child carrying them would act as part of that session (peer messaging, its env file, its
// plugin). CLAUDE_MEM_PASS_ENV cannot pass them.
var (
	sessionEnv       = []string{"CLAUDECODE", "CLAUDE_ENV_FILE", "CLAUDE_PID", "CLAUDE_PROJECT_DIR", envname.Entrypoint, "AI_AGENT"}
	sessionEnvPrefix = []string{"CLAUDE_CODE_SESSION_", "CLAUDE_CODE_MESSAGING_", "CLAUDE_CODE_CHILD_", "CLAUDE_PLUGIN_"}
)

// BuildSpec is THE one place an observer spawn is described. It reads nothing from the
// process: everything comes from in.
func BuildSpec(in SpecInput) Spec {
	st := in.Settings
	layout := settings.Layout(st.DataDir)
	sessions := layout.Runs()
	s := Spec{
		Binary:          in.Binary.Path,
		Via:             in.Binary.Via,
		Dir:             filepath.Join(sessions, in.RunID),
		SettingSources:  "",
		Tools:           "",
		DisallowedTools: slices.Clone(DisallowedTools),
		PermissionMode:  PermissionMode,
		SessionDir:      sessions,
		ConfigDir:       layout.ObserverConfig(),
		Auth:            in.Auth,
		Model:           st.Model,
		Timeout:         st.ObserverTimeout,
		RunID:           in.RunID,
	}
	if in.Auth.Kind == auth.KindAPIKeyHelper {
		s.SettingsFile = filepath.Join(s.Dir, SettingsFileName)
	}
	if st.SystemPrompt {
		s.SystemPrompt = prompt.System()
	}
	s.Args = buildArgs(s)
	s.Env, s.RefusedEnv = buildEnv(in, s.ConfigDir)
	return s
}

func buildArgs(s Spec) []string {
	args := []string{s.Binary, "-p",
		"--input-format", "stream-json",
		"--output-format", "stream-json",
		"--verbose",
	}
	args = appendFlag(args, "--setting-sources", s.SettingSources)
	args = appendFlag(args, "--tools", s.Tools)
	args = appendFlag(args, "--disallowedTools", strings.Join(s.DisallowedTools, ","))
	args = append(args, "--strict-mcp-config", "--mcp-config", `{"mcpServers":{}}`)
	args = appendFlag(args, "--permission-mode", s.PermissionMode)
	args = append(args, "--no-session-persistence")
	args = appendFlag(args, "--model", s.Model)
	if s.SystemPrompt != "" {
		args = append(args, "--system-prompt", s.SystemPrompt)
	}
	if s.SettingsFile != "" {
		args = appendFlag(args, "--settings", s.SettingsFile)
	}
	return args
}

// appendFlag writes an empty value as one `--flag=` token, so no flag can swallow the next
// one (`--setting-sources --permission-mode` made the CLI exit 1).
func appendFlag(args []string, flag, value string) []string {
	if value == "" {
		return append(args, flag+"=")
	}
	return append(args, flag, value)
}

// SettingsJSON is the content of SettingsFile: `{"apiKeyHelper":"<cmd>"}`, without HTML
// escaping so the command stays as written. Encoding a string cannot fail.
func (s Spec) SettingsJSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"apiKeyHelper": s.Auth.Helper})
	return b.Bytes()
}

// envSet is an environment under construction; on windows names are case-insensitive, so
// "Path" is PATH and the parent's spelling is kept.
type envSet struct {
	windows bool
	vals    map[string][2]string // folded name → {name, value}
}

func (e *envSet) fold(name string) string {
	if e.windows {
		return strings.ToUpper(name)
	}
	return name
}

func (e *envSet) set(name, value string) { e.vals[e.fold(name)] = [2]string{name, value} }

func (e *envSet) has(name string) bool { _, ok := e.vals[e.fold(name)]; return ok }

func (e *envSet) list() []string {
	out := make([]string, 0, len(e.vals))
	for _, kv := range e.vals {
		out = append(out, kv[0]+"="+kv[1])
	}
	sort.Strings(out)
	return out
}

func buildEnv(in SpecInput, configDir string) (env, refused []string) {
	out := &envSet{windows: in.GOOS == "windows", vals: map[string][2]string{}}
	allowed := map[string]bool{}
	for _, n := range passedEnv {
		allowed[out.fold(n)] = true
	}
	if in.Settings.PreserveProxy {
		for _, n := range proxyEnv {
			allowed[out.fold(n)] = true
		}
	}
	isAllowed := func(name string) bool {
		return allowed[out.fold(name)] || strings.HasPrefix(out.fold(name), out.fold("LC_"))
	}
	parent := &envSet{windows: out.windows, vals: map[string][2]string{}}
	for k, v := range in.Env {
		parent.set(k, v)
		if isAllowed(k) {
			out.set(k, v)
		}
	}
	for _, name := range in.Settings.PassEnv {
		if why := refusePassEnv(out, name); why != "" {
			refused = append(refused, name+": "+why)
			continue
		}
		if kv, ok := parent.vals[parent.fold(name)]; ok {
			out.set(kv[0], kv[1])
		}
	}
	// .env fills only what the process environment lacks, and only allowlisted names: its
	// credentials reach the child through auth's choice, not through here.
	for k, v := range in.Settings.DotEnv {
		if isAllowed(k) && !out.has(k) {
			out.set(k, v)
		}
	}
	for _, kv := range fixedEnv {
		out.set(kv[0], kv[1])
	}
	out.set(envname.ClaudeConfigDir, configDir)
	if in.Auth.EnvVar != "" && in.Auth.Kind != auth.KindAPIKeyHelper {
		out.set(in.Auth.EnvVar, in.Auth.Value.Reveal())
	}
	return out.list(), refused
}

// refusePassEnv says why a CLAUDE_MEM_PASS_ENV name is not passed, or "".
func refusePassEnv(e *envSet, name string) string {
	f := e.fold(name)
	if name == "" || strings.ContainsAny(name, "= \t\x00") {
		return "not a variable name"
	}
	for _, c := range auth.CredentialVars {
		if f == e.fold(c) {
			return "a credential variable; the observer gets exactly one, chosen by the auth source"
		}
	}
	for _, s := range sessionEnv {
		if f == e.fold(s) {
			return "a variable of the user's Claude Code session"
		}
	}
	for _, p := range sessionEnvPrefix {
		if strings.HasPrefix(f, e.fold(p)) {
			return "a variable of the user's Claude Code session"
		}
	}
	own := f == e.fold(envname.ClaudeConfigDir)
	for _, kv := range fixedEnv {
		own = own || f == e.fold(kv[0])
	}
	if own {
		return "set by claude-mem itself"
	}
	return ""
}

// NewRunID returns an id that sorts by time (UTC, fixed width) and is unique through a
// random suffix: 20261130T034105.123456789Z-1a2b3c4d.
func NewRunID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go ≥ 1.24)
	return now.UTC().Format(runIDTime) + "-" + hex.EncodeToString(b[:])
}

const runIDTime = "20060102T150405.000000000Z"

// Redacted is a Spec fit for a log line or doctor's output: secret values are redacted,
// the apiKeyHelper command is kept (it is a command, not a secret).
type Redacted struct {
	Binary          string       `json:"binary"`
	Via             string       `json:"via"`
	Args            []string     `json:"argv"`
	Dir             string       `json:"cwd"`
	Env             []string     `json:"env"`
	RefusedEnv      []string     `json:"refused_env,omitempty"`
	SettingSources  string       `json:"setting_sources"`
	Tools           string       `json:"tools"`
	DisallowedTools []string     `json:"disallowed_tools"`
	PermissionMode  string       `json:"permission_mode"`
	SessionDir      string       `json:"session_dir"`
	ConfigDir       string       `json:"config_dir"`
	Auth            RedactedAuth `json:"auth"`
	Model           string       `json:"model"`
	Timeout         string       `json:"timeout"`
	RunID           string       `json:"run_id"`
	SettingsFile    string       `json:"settings_file,omitempty"`
}

// RedactedAuth is the auth source without its secret in clear (auth.Secret redacts itself).
type RedactedAuth struct {
	Kind      auth.Kind   `json:"kind"`
	From      string      `json:"from,omitempty"`
	EnvVar    string      `json:"env_var,omitempty"`
	Value     auth.Secret `json:"value,omitempty"`
	Helper    string      `json:"helper,omitempty"`
	ExpiresAt string      `json:"expires_at,omitempty"`
}

// Redacted returns the JSON-friendly copy that is logged at INFO on every spawn.
func (s Spec) Redacted() Redacted {
	r := Redacted{
		Binary: s.Binary, Via: s.Via, Args: make([]string, len(s.Args)), Dir: s.Dir,
		RefusedEnv: s.RefusedEnv, SettingSources: s.SettingSources, Tools: s.Tools,
		DisallowedTools: s.DisallowedTools, PermissionMode: s.PermissionMode,
		SessionDir: s.SessionDir, ConfigDir: s.ConfigDir, Model: s.Model,
		Timeout: s.Timeout.String(), RunID: s.RunID, SettingsFile: s.SettingsFile,
		Auth: RedactedAuth{Kind: s.Auth.Kind, From: s.Auth.From, EnvVar: s.Auth.EnvVar,
			Value: s.Auth.Value, Helper: s.Auth.Helper},
	}
	// An apiKeyHelper command is shown (it is how the key is made), but a key written into
	// it (`echo sk-ant-…`) is not.
	known := s.Auth.Value.Reveal()
	for i, a := range s.Args {
		r.Args[i] = redact.Scrub(a, known)
		if i > 0 && s.Args[i-1] == "--system-prompt" && a == prompt.System() {
			// Fixed text, logged on every spawn: named, not repeated.
			r.Args[i] = fmt.Sprintf("<observer instructions, %d characters>", len(a))
		}
	}
	r.Auth.Helper = redact.Scrub(s.Auth.Helper, known)
	if !s.Auth.ExpiresAt.IsZero() {
		r.Auth.ExpiresAt = s.Auth.ExpiresAt.UTC().Format(time.RFC3339)
	}
	r.Env = make([]string, len(s.Env))
	for i, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		r.Env[i] = k + "=" + redactValue(k, v, s.Auth.EnvVar)
	}
	return r
}

// MarshalJSON logs a Spec as its Redacted form, so passing a Spec itself to a logger cannot
// leak the credential in Env.
func (s Spec) MarshalJSON() ([]byte, error) { return json.Marshal(s.Redacted()) }

// Format makes every fmt verb print the Redacted form.
func (s Spec) Format(f fmt.State, verb rune) { fmt.Fprintf(f, "%+v", s.Redacted()) }

// redactValue is the printable value of one variable of the child's environment: the
// short form for a credential variable or a secret-looking name (MY_GATEWAY_KEY, passed
// with CLAUDE_MEM_PASS_ENV), else the value scrubbed (a proxy URL with a token as its
// userinfo, a base URL with ?api_key=…).
func redactValue(name, value, credVar string) string {
	secret := strings.EqualFold(name, credVar)
	for _, c := range auth.CredentialVars {
		secret = secret || strings.EqualFold(name, c)
	}
	if secret {
		return auth.Secret(value).String()
	}
	return redact.ScrubEnv(name, value)
}
