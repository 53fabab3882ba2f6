package auth

import "time"

// Kind names an auth source; the values are those CLAUDE_MEM_AUTH_SOURCE accepts.
type Kind string

// The sources, in the order Resolve tries them.
const (
	KindEnv          Kind = "env"
	KindAPIKey       Kind = "apiKey"
	KindAPIKeyHelper Kind = "apiKeyHelper"
	KindKeychain     Kind = "keychain"
	KindCredentials  Kind = "credentials"
)

// Source is the chosen credential and what it puts into the observer's spawn.
type Source struct {
	Kind      Kind
	From      string    // where it came from: "environment", ".env", a file path, "keychain (login.keychain-db)", …
	EnvVar    string    // the one credential variable the child gets (CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_API_KEY); empty for apiKeyHelper
	Value     Secret    // its value
	Helper    string    // apiKeyHelper command, handed over as --settings {"apiKeyHelper":…}
	ExpiresAt time.Time // zero when the credential does not expire
}
