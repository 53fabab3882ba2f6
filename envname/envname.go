// Package envname spells, once, every environment variable claude-mem reads or sets: its
// own CLAUDE_MEM_* names (Ours says who each is for), Claude Code's, the credential
// variables, the platform's, and the marker the observer child carries.
package envname

// The user's settings (DESIGN.md §7): each read from the environment, then settings.json,
// then its default (package settings); DataDir from the environment only. Every one is a
// row of the README's settings table.
const (
	MaxConcurrentAgents = "CLAUDE_MEM_MAX_CONCURRENT_AGENTS"
	Model               = "CLAUDE_MEM_MODEL"
	ClaudePath          = "CLAUDE_MEM_CLAUDE_PATH"
	AuthSource          = "CLAUDE_MEM_AUTH_SOURCE"
	APIKeyHelper        = "CLAUDE_MEM_API_KEY_HELPER"
	PreserveProxy       = "CLAUDE_MEM_PRESERVE_PROXY"
	PassEnv             = "CLAUDE_MEM_PASS_ENV"
	ContextObservations = "CLAUDE_MEM_CONTEXT_OBSERVATIONS"
	ExcludedProjects    = "CLAUDE_MEM_EXCLUDED_PROJECTS"
	SkipTools           = "CLAUDE_MEM_SKIP_TOOLS"
	ObserverTimeout     = "CLAUDE_MEM_OBSERVER_TIMEOUT"
	ObserverRetention   = "CLAUDE_MEM_OBSERVER_RETENTION"
	LogLevel            = "CLAUDE_MEM_LOG_LEVEL"
	DataDir             = "CLAUDE_MEM_DATA_DIR"
	DailyBudgetUSD      = "CLAUDE_MEM_DAILY_BUDGET_USD"
	BatchEvents         = "CLAUDE_MEM_BATCH_EVENTS"
	BatchWait           = "CLAUDE_MEM_BATCH_WAIT"
	SkipSubagents       = "CLAUDE_MEM_SKIP_SUBAGENTS"
	SystemPrompt        = "CLAUDE_MEM_OBSERVER_SYSTEM_PROMPT"
	RedactSecrets       = "CLAUDE_MEM_REDACT_SECRETS"
	LoadedMessage       = "CLAUDE_MEM_LOADED_MESSAGE"
	SyncURL             = "CLAUDE_MEM_SYNC_URL"
	Machine             = "CLAUDE_MEM_MACHINE"
)

// The observer child's marker: every child carries Internal=1, and hooks inherit their
// session's environment, so an event whose hook sees it is the observer's own.
const Internal = "CLAUDE_MEM_INTERNAL"

// The test suites' own: where the recorded Claude Code fixtures are (Fixtures, read by
// internal/fixtures), the real claude the end-to-end tests run, the opt-in cost
// comparison, an older build to compare signal handling with, and where the browser test
// leaves its screenshots.
const (
	Fixtures   = "CLAUDE_MEM_FIXTURES"
	E2EClaude  = "CLAUDE_MEM_E2E_CLAUDE"
	E2ECost    = "CLAUDE_MEM_E2E_COST"
	HookBefore = "CLAUDE_MEM_HOOK_BEFORE"
	Artifacts  = "CLAUDE_MEM_ARTIFACTS"
)

// Use is who one of our names is for.
type Use int

const (
	Setting  Use = iota + 1 // the user's: documented in the README's settings table
	Marker                  // set by claude-mem on its own child, never by a user
	TestOnly                // read by the test suites only, documented where they are
)

// Ours is every CLAUDE_MEM_* name, with its use: a name the code or the README spells and
// this does not hold fails envname's tests.
var Ours = map[string]Use{
	MaxConcurrentAgents: Setting, Model: Setting, ClaudePath: Setting, AuthSource: Setting,
	APIKeyHelper: Setting, PreserveProxy: Setting, PassEnv: Setting, ContextObservations: Setting,
	ExcludedProjects: Setting, SkipTools: Setting, ObserverTimeout: Setting, ObserverRetention: Setting,
	LogLevel: Setting, DataDir: Setting, DailyBudgetUSD: Setting, BatchEvents: Setting,
	BatchWait: Setting, SkipSubagents: Setting, SystemPrompt: Setting, RedactSecrets: Setting,
	LoadedMessage: Setting, SyncURL: Setting, Machine: Setting,
	Internal: Marker,
	Fixtures: TestOnly, E2EClaude: TestOnly, E2ECost: TestOnly, HookBefore: TestOnly, Artifacts: TestOnly,
}

// Claude Code's.
const (
	ClaudeConfigDir  = "CLAUDE_CONFIG_DIR"  // its user config dir (default ~/.claude)
	PluginRoot       = "CLAUDE_PLUGIN_ROOT" // set in a plugin's hooks: the plugin's directory
	Entrypoint       = "CLAUDE_CODE_ENTRYPOINT"
	OAuthToken       = "CLAUDE_CODE_OAUTH_TOKEN"
	StorageConfigDir = "CLAUDE_SECURESTORAGE_CONFIG_DIR"
	ClaudeCodePath   = "CLAUDE_CODE_PATH" // the claude executable, after ClaudePath
	SessionID        = "CLAUDE_CODE_SESSION_ID"
)

// The Messages API's.
const (
	APIKey  = "ANTHROPIC_API_KEY"
	BaseURL = "ANTHROPIC_BASE_URL"
)

// The platform's.
const (
	Home        = "HOME"
	UserProfile = "USERPROFILE" // windows' home
	Path        = "PATH"
	User        = "USER"
	LogName     = "LOGNAME"
	TmpDir      = "TMPDIR"
	CACerts     = "NODE_EXTRA_CA_CERTS"
)

// Proxy are the proxy variables, in both spellings the tools read.
var Proxy = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
}
