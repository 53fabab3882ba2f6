package claudebin

import (
	"fmt"
	"strings"

	"github.com/claude-mem/claude-mem-go/envname"
)

// How a Result was found; the values appear in logs and `hook doctor`.
const (
	ViaClaudeMemPath  = envname.ClaudePath
	ViaClaudeCodePath = envname.ClaudeCodePath
	ViaPATH           = envname.Path
	ViaNativeLink     = "native installer link"
	ViaNativeVersions = "native installer versions"
	ViaKnownLocation  = "known install location"
	ViaEditor         = "editor extension"
)

// Result is a claude executable that can be started, and how it was found.
type Result struct {
	Path string
	Via  string
}

// Probe is one place Resolve looked, and why it was not taken.
type Probe struct {
	Path   string `json:"path"`
	Reason string `json:"reason"` // "not found", "not executable", "is a directory", "dangling link", …
}

// NotFoundError is returned when no place held a usable claude executable.
type NotFoundError struct {
	Probed []Probe // every place probed, in order
}

func (e *NotFoundError) Error() string {
	parts := make([]string, len(e.Probed))
	for i, p := range e.Probed {
		parts[i] = p.Path + " (" + p.Reason + ")"
	}
	return "claude CLI not found; probed: " + strings.Join(parts, ", ")
}

// UnspawnableError is returned when a claude executable was found (or named by a setting)
// but cannot be started.
type UnspawnableError struct {
	Path    string
	Setting string // the setting that named Path, when one did
	Err     error
}

func (e *UnspawnableError) Error() string {
	if e.Setting != "" {
		return fmt.Sprintf("%s=%s cannot be started: %v", e.Setting, e.Path, e.Err)
	}
	return fmt.Sprintf("claude CLI at %s cannot be started: %v", e.Path, e.Err)
}

func (e *UnspawnableError) Unwrap() error { return e.Err }
