// Package fakeproto is the contract between the fake `claude` CLI (tests/fakeclaude) and the
// tests that drive it: the scenario it reads beside its executable and the record it writes
// for every invocation.
package fakeproto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ImportPath is the fake's package, for `go build`.
const ImportPath = "github.com/claude-mem/claude-mem-go/tests/fakeclaude"

// AllTools is the tool list Claude Code 2.1.328 reports in its init line when nothing
// restricts it (fixtures/claude-code-2.1.328/streamjson-out-*.jsonl).
var AllTools = []string{
	"Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree",
	"ExitWorktree", "ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings",
	"ScheduleWakeup", "SendMessage", "Skill", "TaskStop", "ToolSearch", "WebFetch",
	"WebSearch", "Workflow", "Write",
}

// Scenario tells the fake how to behave. It is read from ScenarioPath(exe): the observer
// spawns claude with an allowlisted environment, so the fake cannot be steered by env vars.
// A missing file means the zero Scenario: valid credentials of any value, a default answer.
// Unknown fields are an error, so a typo in a test fails loudly instead of being ignored.
type Scenario struct {
	// Answer is the assistant's text; empty means one <observation> block that quotes the
	// first 40 characters of the input.
	Answer string `json:"answer,omitempty"`
	// Answers, when set, are the answers of successive invocations, Answer ignored: the
	// nth invocation of the fake (counted by the records already written) gets Answers[n],
	// and those past the end get the last one.
	Answers []Reply `json:"answers,omitempty"`
	// Status is the API's HTTP status for every request: 0 (or 200) answers, 401 the invalid
	// key stream, 403 the permission stream, 429 and 529 a rate-limit or overloaded error.
	Status int `json:"status,omitempty"`
	// ValidCredentials, when non-empty, lists the credentials the API accepts; any other
	// gets the 401 stream.
	ValidCredentials []string `json:"valid_credentials,omitempty"`
	// HelperHonored says whether the apiKeyHelper given with --settings is used (default
	// true): whether the real CLI honors it together with --setting-sources= is unmeasured.
	HelperHonored *bool `json:"helper_honored,omitempty"`
	// AuthFailExit is the exit status after an authentication failure (no credential, 401,
	// 403); default 1, the fixtures do not record the real one.
	AuthFailExit *int `json:"auth_fail_exit,omitempty"`
	// APIErrorExit is the exit status after a 429 or 529 error; default 1.
	APIErrorExit *int `json:"api_error_exit,omitempty"`
	// Hang makes the fake print the init line and then sleep until a signal kills it.
	Hang bool `json:"hang,omitempty"`
	// IgnoreSIGTERM makes only SIGKILL stop it.
	IgnoreSIGTERM bool `json:"ignore_sigterm,omitempty"`
	// Crash makes it write a line to stderr and exit 2 once its input is read.
	Crash bool `json:"crash,omitempty"`
	// SpawnGrandchild starts a sleeping child in the fake's own process group.
	SpawnGrandchild bool `json:"spawn_grandchild,omitempty"`
	// SendMessage makes the fake use SendMessage when that tool is in its tool set.
	SendMessage bool `json:"send_message,omitempty"`
	// Print is written to stdout as assistant text lines, and Stderr to stderr, before the
	// answer: what a child may say about its credential.
	Print  string `json:"print,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// FloodBytes makes the fake print that many bytes of assistant lines before answering
	// (it is stopped long before, if the caller caps its output).
	FloodBytes int64 `json:"flood_bytes,omitempty"`
	// FillDisk, when set, is a file the fake fills until its filesystem is full (ENOSPC)
	// once its answer's result line is in transcript.jsonl of its cwd (the observer's run
	// dir keeps its stdout there), before it exits: the disk fills while the answer is
	// stored, after the transcript kept it.
	FillDisk string `json:"fill_disk,omitempty"`
	// Usage, when set, is what the success result line reports: its usage tokens,
	// total_cost_usd, duration_ms and duration_api_ms (modelUsage carries the same
	// tokens and cost for the model in use).
	Usage *Usage `json:"usage,omitempty"`
}

// Reply is one invocation's answer: the shapes of what a model returns (§24).
type Reply struct {
	Text string `json:"text,omitempty"`
	// Raw is appended to Text in the output's JSON strings byte for byte (JSON cannot
	// carry bytes that are not UTF-8, the CLI's output might): it is base64 in the file.
	Raw []byte `json:"raw,omitempty"`
	// Continue are the parts written after cuts at the output limit, which the CLI asks for
	// (2.1.328, tests/e2e TestMaxTokensStreams): a synthetic user turn before each, and the
	// result line holds only the last part.
	Continue []string `json:"continue,omitempty"`
	// Cut makes the CLI give up on the answer after its parts, as after 3 continuations:
	// its error max_output_tokens on a synthetic assistant line and an error result, exit 1.
	Cut bool `json:"cut,omitempty"`
}

// Usage is a result line's cost and usage.
type Usage struct {
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CostUSD             float64 `json:"cost_usd"`
	DurationMS          int64   `json:"duration_ms"`
	DurationAPIMS       int64   `json:"duration_api_ms"`
}

// HelperIsHonored applies the default of HelperHonored.
func (s Scenario) HelperIsHonored() bool { return s.HelperHonored == nil || *s.HelperHonored }

// AuthFailExitCode applies the default of AuthFailExit.
func (s Scenario) AuthFailExitCode() int { return intOr(s.AuthFailExit, 1) }

// APIErrorExitCode applies the default of APIErrorExit.
func (s Scenario) APIErrorExitCode() int { return intOr(s.APIErrorExit, 1) }

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Bool and Int make the optional Scenario fields easy to fill in.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to i.
func Int(i int) *int { return &i }

// Outcome values in Record.Outcome.
const (
	OutcomeOK            = "ok"
	OutcomeHijacked      = "hijacked"       // a hook injected context: empty answer
	OutcomeNoCredentials = "no_credentials" // "Not logged in"
	OutcomeInvalidKey    = "invalid_key"    // 401
	OutcomeForbidden     = "forbidden"      // 403
	OutcomeRateLimited   = "rate_limited"   // 429
	OutcomeOverloaded    = "overloaded"     // 529
	OutcomeCrash         = "crash"
	OutcomeHang          = "hang"
	OutcomeUsageError    = "usage_error" // bad argv: exit 1 before any output
	OutcomeNoInput       = "no_input"    // stream-json input with no user message
)

// Record is what one invocation saw and did, written to RecordsDir(exe) as
// <unix-nano>-<pid>.json. Nothing is redacted: tests compare credentials on purpose, and
// these files live in temporary directories.
type Record struct {
	Pid        int               `json:"pid"`
	Executable string            `json:"executable"`
	Argv       []string          `json:"argv"` // os.Args, argv[0] included
	Env        map[string]string `json:"env"`
	Cwd        string            `json:"cwd"`
	Stdin      string            `json:"stdin"` // everything read from stdin
	Flags      Flags             `json:"flags"`
	// Positionals are the non-flag arguments (the prompt, or what a flag failed to take).
	Positionals []string `json:"positionals"`
	Prompts     []string `json:"prompts"` // the text of each user message
	// SettingSources are the sources in effect (user, project, local); ConfigDir is
	// CLAUDE_CONFIG_DIR or $HOME/.claude.
	SettingSources []string  `json:"setting_sources"`
	ConfigDir      string    `json:"config_dir"`
	SettingsFiles  []string  `json:"settings_files"` // settings files read
	SettingsErrors []string  `json:"settings_errors,omitempty"`
	HooksLoaded    []Hook    `json:"hooks_loaded"`
	HooksRan       []HookRun `json:"hooks_ran"`
	// InjectedContext is what hooks injected; non-empty means the run was hijacked.
	InjectedContext string     `json:"injected_context"`
	Tools           []string   `json:"tools"`
	MCPServers      []string   `json:"mcp_servers"`
	Credential      Credential `json:"credential"`
	APIAttempts     int        `json:"api_attempts"` // requests the fake "sent" to the API
	SessionID       string     `json:"session_id"`
	Outcome         string     `json:"outcome"`
	Error           string     `json:"error,omitempty"` // the usage error printed
	ExitCode        int        `json:"exit_code"`
	FilesWritten    []string   `json:"files_written"` // transcripts and sent messages
	SentMessages    []string   `json:"sent_messages"`
	GrandchildPID   int        `json:"grandchild_pid,omitempty"`
}

// Flags are the parsed flags. A flag that was not given is null (nil); `--tools=` is [""].
type Flags struct {
	Print                bool     `json:"print"`
	InputFormat          string   `json:"input_format"`
	OutputFormat         string   `json:"output_format"`
	Verbose              bool     `json:"verbose"`
	SettingSources       *string  `json:"setting_sources"`
	Tools                []string `json:"tools"`
	DisallowedTools      []string `json:"disallowed_tools"`
	AllowedTools         []string `json:"allowed_tools"`
	StrictMCPConfig      bool     `json:"strict_mcp_config"`
	MCPConfig            []string `json:"mcp_config"`
	PermissionMode       string   `json:"permission_mode"`
	NoSessionPersistence bool     `json:"no_session_persistence"`
	Model                string   `json:"model"`
	Settings             *string  `json:"settings"`
	SystemPrompt         *string  `json:"system_prompt"`
}

// Hook is one command hook found in a settings source.
type Hook struct {
	Source  string `json:"source"` // user, project, local or flag (--settings)
	File    string `json:"file,omitempty"`
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"` // seconds
}

// HookRun is one executed hook.
type HookRun struct {
	Source   string `json:"source"`
	Event    string `json:"event"`
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Outcome  string `json:"outcome"` // success, error, cancelled (timed out)
}

// Credential sources, as the init line's apiKeySource would name them.
const (
	CredOAuthToken = "CLAUDE_CODE_OAUTH_TOKEN"
	CredAPIKey     = "ANTHROPIC_API_KEY"
	CredHelper     = "apiKeyHelper"
	CredNone       = "none"
)

// Credential is the credential the fake used.
type Credential struct {
	Source      string `json:"source"`
	Value       string `json:"value"`
	Helper      string `json:"helper,omitempty"`       // the apiKeyHelper command run
	HelperError string `json:"helper_error,omitempty"` // why it gave no key
}

// SentMessage is what the fake "sent" with SendMessage.
type SentMessage struct {
	SessionID string `json:"session_id"`
	To        string `json:"to"`
	Message   string `json:"message"`
}

// ScenarioPath is where the fake at exe reads its scenario. exe is the fake's
// os.Executable, which Linux resolves through symlinks: link or copy the fake to the name
// the product should find (a hard link keeps its own path), do not symlink it.
func ScenarioPath(exe string) string { return exe + ".scenario.json" }

// RecordsDir is where the fake at exe writes one record per invocation.
func RecordsDir(exe string) string { return exe + ".records" }

// SentMessagesDir is where the fake at exe writes the messages it sends.
func SentMessagesDir(exe string) string { return filepath.Join(RecordsDir(exe), "sent-messages") }

// EncodeCwd is the projects/ directory name the CLI derives from a cwd:
// `/home/user/project` → `-home-user-project`.
func EncodeCwd(cwd string) string {
	return strings.NewReplacer("/", "-", ".", "-").Replace(cwd)
}

// WriteScenario writes s beside the fake at exe.
func WriteScenario(exe string, s Scenario) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(ScenarioPath(exe), b, 0o644)
}

// LoadScenario reads the scenario beside exe; a missing file is the zero Scenario.
func LoadScenario(exe string) (Scenario, error) {
	var s Scenario
	b, err := os.ReadFile(ScenarioPath(exe))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %w", ScenarioPath(exe), err)
	}
	switch s.Status {
	case 0, 200, 401, 403, 429, 529:
	default:
		return s, fmt.Errorf("%s: unsupported status %d", ScenarioPath(exe), s.Status)
	}
	return s, nil
}

// WriteRecord writes r as <unix-nano>-<pid>.json under RecordsDir(exe), atomically, so a
// reader never sees half a record. Writing again with the same name replaces it.
func WriteRecord(exe, name string, r Record) error {
	dir := RecordsDir(exe)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// The dot keeps ReadRecords from picking up the temporary file.
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// RecordName is the file name of a record: <unix-nano>-<pid>.json.
func RecordName(unixNano int64, pid int) string {
	return strconv.FormatInt(unixNano, 10) + "-" + strconv.Itoa(pid) + ".json"
}

// ReadRecords returns every record of the fake at exe, oldest first; none is not an error.
func ReadRecords(exe string) ([]Record, error) {
	var out []Record
	err := readJSONDir(RecordsDir(exe), func(b []byte) error {
		var r Record
		err := json.Unmarshal(b, &r)
		out = append(out, r)
		return err
	})
	return out, err
}

// ReadSentMessages returns every message the fake at exe sent, in order.
func ReadSentMessages(exe string) ([]SentMessage, error) {
	var out []SentMessage
	err := readJSONDir(SentMessagesDir(exe), func(b []byte) error {
		var m SentMessage
		err := json.Unmarshal(b, &m)
		out = append(out, m)
		return err
	})
	return out, err
}

// readJSONDir calls fn on each *.json file of dir in numeric-then-lexical name order.
func readJSONDir(dir string, fn func([]byte) error) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Slice(names, func(i, j int) bool { return nameLess(names[i], names[j]) })
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, n), err)
		}
	}
	return nil
}

// nameLess orders names by their leading number (unix nanos, or a message counter) so that
// 10.json comes after 9.json.
func nameLess(a, b string) bool {
	na, ea := leadingInt(a)
	nb, eb := leadingInt(b)
	if ea == nil && eb == nil && na != nb {
		return na < nb
	}
	return a < b
}

func leadingInt(s string) (int64, error) {
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(s)
	}
	return strconv.ParseInt(s[:end], 10, 64)
}

// Build compiles the fake into out with the go command; the caller's working directory must
// be inside this module (any test of the module is).
func Build(out string) error {
	cmd := exec.Command("go", "build", "-o", out, ImportPath)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", ImportPath, err, b)
	}
	return nil
}
