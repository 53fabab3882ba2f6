// Package settings decides claude-mem's effective configuration: the data dir, every
// CLAUDE_MEM_* key from the environment, then settings.json, then the default, parsed
// strictly, and the allowlisted .env entries.
package settings

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/claude-mem/claude-mem-go/envname"
)

// Env is a process environment passed as a value, so that only cmd/hook reads the real
// one and every rule below it can be tested with any environment on any platform.
type Env map[string]string

// EnvFrom builds an Env from os.Environ-style KEY=VALUE entries; a later entry wins.
func EnvFrom(kv []string) Env {
	e := make(Env, len(kv))
	for _, s := range kv {
		if k, v, ok := strings.Cut(s, "="); ok && k != "" {
			e[k] = v
		}
	}
	return e
}

// Get returns the value of key, or "" when it is unset.
func (e Env) Get(key string) string { return e[key] }

// Lookup reports the value of key and whether it is set at all.
func (e Env) Lookup(key string) (string, bool) {
	v, ok := e[key]
	return v, ok
}

// List returns the environment as sorted KEY=VALUE entries, the form exec.Cmd.Env takes.
func (e Env) List() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Home is the user's home dir as the environment gives it: HOME, else USERPROFILE on
// Windows; "" when unknown.
func Home(env Env, goos string) string {
	if h := env.Get(envname.Home); h != "" {
		return h
	}
	if goos == "windows" {
		return env.Get(envname.UserProfile)
	}
	return ""
}

// ClaudeConfigDir is Claude Code's user config directory: $CLAUDE_CONFIG_DIR, else
// ~/.claude. Its credentials, settings.json and plugins/ registry live there.
func ClaudeConfigDir(env Env, home string) string {
	if d := env.Get(envname.ClaudeConfigDir); strings.TrimSpace(d) != "" {
		return d
	}
	return filepath.Join(home, ".claude")
}
