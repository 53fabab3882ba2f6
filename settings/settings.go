package settings

import "time"

// Settings is the effective configuration of one process.
type Settings struct {
	DataDir             string
	MaxConcurrentAgents int // 0: never spawn an observer (search-only mode)
	Model               string
	ClaudePath          string // CLAUDE_MEM_CLAUDE_PATH; CLAUDE_CODE_PATH is read by claudebin from the environment
	AuthSource          string // "auto" or an auth.Kind
	APIKeyHelper        string
	PreserveProxy       bool
	PassEnv             []string
	ContextObservations int // most observations SessionStart reads; its 8,000-byte budget is what bounds the text
	ExcludedProjects    []string
	SkipTools           []string
	ObserverTimeout     time.Duration
	ObserverRetention   int
	LogLevel            string
	DailyBudgetUSD      float64       // 0: no cap
	BatchEvents         int           // pending events that make Stop start a run
	BatchWait           time.Duration // age of the oldest pending event that makes Stop start a run
	SkipSubagents       bool          // drop tool events that carry an agent_id
	SystemPrompt        bool          // observer instructions as --system-prompt (false: in the user message, for comparison)
	RedactSecrets       bool          // captured text passes the redactor before it is kept (false: kept as is)
	LoadedMessage       bool          // SessionStart tells the person, in one systemMessage line, that memory loaded
	SyncURL             string        // the sync server (DESIGN §25); "": sync is off. Shown only through ShownURL
	Machine             string        // this machine's name in synced records; "": the host name

	DotEnv        Env      // the allowlisted entries of <data>/.env
	DotEnvIgnored []string // keys .env set that are not allowlisted (WARNed by name)
	Values        []Value  // every key with its effective value and origin, for `hook doctor`
	Errors        []*Error // settings errors, in key order, then the data dir's refused entries
}

// Origin is where an effective value came from.
type Origin string

const (
	FromEnv     Origin = "env"
	FromFile    Origin = "settings.json"
	FromDefault Origin = "default"
)

// Value is one key's effective value.
type Value struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Origin Origin `json:"origin"`
	Error  string `json:"error,omitempty"`
}

// Error is a settings error: a value that could not be used, and the default used instead.
type Error struct {
	Key     string
	Value   string
	Problem string
	Default string
	Err     error // the cause, when there is one: a *private.Error for a file another user could have written
}

func (e *Error) Error() string {
	return e.Key + "=" + e.Value + ": " + e.Problem + "; using " + e.Default
}

func (e *Error) Unwrap() error { return e.Err }
