// Package envname spells, once, the environment variables claude-mem reads or sets that are
// not its own settings (those are settings.Key*): Claude Code's, the credential variables,
// the platform's, and the marker the observer child carries.
package envname

// The observer child's marker: every child carries Internal=1, and hooks inherit their
// session's environment, so an event whose hook sees it is the observer's own.
const Internal = "CLAUDE_MEM_INTERNAL"

// Claude Code's.
const (
	ClaudeConfigDir  = "CLAUDE_CONFIG_DIR"  // its user config dir (default ~/.claude)
	PluginRoot       = "CLAUDE_PLUGIN_ROOT" // set in a plugin's hooks: the plugin's directory
	Entrypoint       = "CLAUDE_CODE_ENTRYPOINT"
	OAuthToken       = "CLAUDE_CODE_OAUTH_TOKEN"
	StorageConfigDir = "CLAUDE_SECURESTORAGE_CONFIG_DIR"
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
