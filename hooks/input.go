// Package hooks is hook mode: it reads one Claude Code hook event from stdin, admits or
// drops it, hands it to the event's pure handler, and writes the one JSON answer to stdout.
package hooks

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/nesting"
)

// MaxInput is the most stdin hook mode reads; a larger event is discarded with a WARN.
const MaxInput = 16 << 20

// MaxDepth bounds an event's nesting, checked by a scan before it is parsed: gjson's
// validation recurses per level, so 6 million levels (under MaxInput) overflowed the
// stack and crashed the hook, and 1 MiB of '[' cost 245 MB. A real event nests a dozen.
const MaxDepth = 512

// Input is the part of a hook event the handlers use.
type Input struct {
	Event          string
	SessionID      string
	TranscriptPath string
	Cwd            string
	Source         string // SessionStart: startup, resume, clear, compact
	Reason         string // SessionEnd
	Prompt         string
	LastMessage    string // Stop: last_assistant_message, the turn's conclusion
	ToolName       string
	ToolUseID      string
	ToolInput      string // raw JSON text
	ToolResponse   string // raw JSON text (PostToolUse) or the error text (PostToolUseFailure)
	IsError        bool
	AgentID        string // set on tool events inside a subagent
}

// BadInputError says why stdin was not a usable hook event; it never carries the payload.
type BadInputError struct{ Problem string }

func (e *BadInputError) Error() string { return "bad hook input: " + e.Problem }

// Handled events; anything else is answered with exit 0 and no output.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SessionEnd         = "SessionEnd"
)

// Parse validates data before any lookup and extracts the fields. Only fixed paths are
// looked up: no gjson path is ever built from input. The event name is returned even when a
// later field is bad, so SessionStart can still answer.
func Parse(data string) (Input, error) {
	if len(strings.TrimSpace(data)) == 0 {
		return Input{}, &BadInputError{"empty input"}
	}
	if nesting.Over(data, MaxDepth) {
		return Input{}, &BadInputError{"nested over 512 levels"}
	}
	if !gjson.Valid(data) {
		return Input{}, &BadInputError{"not valid JSON"}
	}
	root := gjson.Parse(data)
	if !root.IsObject() {
		return Input{}, &BadInputError{"not a JSON object"}
	}
	name := root.Get("hook_event_name")
	if !name.Exists() {
		return Input{}, &BadInputError{"hook_event_name missing"}
	}
	if name.Type != gjson.String {
		return Input{}, &BadInputError{"hook_event_name is not a string"}
	}
	in := Input{
		Event:          clean(name.Str),
		SessionID:      str(root, "session_id"),
		TranscriptPath: str(root, "transcript_path"),
		Cwd:            str(root, "cwd"),
		Source:         str(root, "source"),
		Reason:         str(root, "reason"),
		Prompt:         str(root, "prompt"),
		LastMessage:    str(root, "last_assistant_message"),
		ToolName:       str(root, "tool_name"),
		ToolUseID:      str(root, "tool_use_id"),
		ToolInput:      raw(root, "tool_input"),
		AgentID:        str(root, "agent_id"),
	}
	if in.Event == PostToolUseFailure {
		in.ToolResponse, in.IsError = str(root, "error"), true
	} else {
		in.ToolResponse = raw(root, "tool_response")
	}
	if !handled(in.Event) {
		return in, nil
	}
	switch {
	case in.Cwd == "":
		return in, &BadInputError{"cwd missing"}
	case !filepath.IsAbs(in.Cwd) && !isWindowsAbs(in.Cwd):
		return in, &BadInputError{"cwd is not an absolute path"}
	case in.SessionID == "":
		return in, &BadInputError{"session_id missing"}
	}
	return in, nil
}

func handled(event string) bool {
	switch event {
	case SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SessionEnd:
		return true
	}
	return false
}

func str(root gjson.Result, path string) string {
	if v := root.Get(path); v.Type == gjson.String {
		return clean(v.Str)
	}
	return ""
}

func raw(root gjson.Result, path string) string {
	if v := root.Get(path); v.Exists() {
		return clean(v.Raw)
	}
	return ""
}

// clean makes a value safe to store and print: invalid UTF-8 becomes U+FFFD.
func clean(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// isWindowsAbs accepts C:\x and \\server\share, which Claude Code on Windows sends.
func isWindowsAbs(p string) bool {
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return strings.HasPrefix(p, `\\`)
}
