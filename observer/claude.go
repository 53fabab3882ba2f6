package observer

import (
	"errors"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/settings"
)

// ResolveClaude finds the claude executable now (never a cached path), with the effective
// CLAUDE_MEM_CLAUDE_PATH setting (which may come from settings.json) in front of the env.
func ResolveClaude(env settings.Env, s *settings.Settings, goos string) (claudebin.Result, error) {
	if s.ClaudePath != "" && env.Get(envname.ClaudePath) != s.ClaudePath {
		withPath := make(settings.Env, len(env)+1)
		for k, v := range env {
			withPath[k] = v
		}
		withPath[envname.ClaudePath] = s.ClaudePath
		env = withPath
	}
	return claudebin.Resolve(env, claudebin.OSFS{}, goos)
}

// ClaudeStatus is the live check SessionStart and doctor share (stat and glob only, no
// process): the resolved executable, unless the last spawn found that very file (same path,
// size and mtime) unstartable, which health h remembers.
func ClaudeStatus(env settings.Env, s *settings.Settings, goos string, h health.Health) (claudebin.Result, error) {
	bin, err := ResolveClaude(env, s, goos)
	if err != nil {
		return bin, err
	}
	if h.Setup.State == health.StateRequired &&
		h.Setup.Path == bin.Path && h.Setup.Sig == auth.FileSig(bin.Path) {
		return bin, &claudebin.UnspawnableError{Path: bin.Path, Err: errors.New(h.Setup.Reason)}
	}
	return bin, nil
}
