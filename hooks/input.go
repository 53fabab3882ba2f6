// Package hooks is hook mode: it reads one Claude Code hook event from stdin, admits or
// drops it, hands it to the event's pure handler, and writes the one JSON answer to stdout.
package hooks

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/nesting"
	"github.com/claude-mem/claude-mem-go/redact"
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
		Prompt:         text(data, "prompt"),
		LastMessage:    text(data, "last_assistant_message"),
		ToolName:       str(root, "tool_name"),
		ToolUseID:      str(root, "tool_use_id"),
		ToolInput:      raw(root, "tool_input"),
		AgentID:        str(root, "agent_id"),
	}
	if in.Event == PostToolUseFailure {
		in.ToolResponse, in.IsError = text(data, "error"), true
	} else {
		in.ToolResponse = raw(root, "tool_response")
	}
	// The short fields are copied out of data (gjson's values are slices of it), so the
	// input is freed once parsed when the long ones are copies too (an escaped prompt):
	// a 15 MB prompt then costs one copy of itself, not that and the input.
	for _, f := range []*string{&in.Event, &in.SessionID, &in.TranscriptPath, &in.Cwd, &in.Source, &in.Reason, &in.ToolName, &in.ToolUseID, &in.AgentID} {
		*f = strings.Clone(*f)
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

// text is the string value of the top-level member key of obj (valid JSON), as str gives
// it, decoded into one copy: gjson decodes an escaped string into a buffer and copies that
// again, and a prompt may be 16 MiB.
func text(obj, key string) string {
	if v, ok := member(obj, key); ok && v[0] == '"' {
		return clean(unquote(v))
	}
	return ""
}

// member is the raw value of obj's first top-level member named key; obj is valid JSON
// (gjson.Valid).
func member(obj, key string) (string, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '"'; {
		end := skipValue(obj, i)
		name := obj[i:end]
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		vend := skipValue(obj, i)
		if name == `"`+key+`"` || strings.IndexByte(name, '\\') >= 0 && unquote(name) == key {
			return obj[i:vend], true
		}
		if i = skipSpace(obj, vend); i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return "", false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue is the end of the valid JSON value that starts at s[i].
func skipValue(s string, i int) int {
	switch s[i] {
	case '"':
		for j := i + 1; ; {
			k := strings.IndexAny(s[j:], `"\`)
			if k < 0 {
				return len(s)
			}
			if j += k; s[j] == '"' {
				return j + 1
			}
			j += 2
		}
	case '{', '[':
		depth := 0
		for j := i; j < len(s); {
			switch s[j] {
			case '"':
				j = skipValue(s, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[j])) {
		j++
	}
	return j
}

// unquote decodes the JSON string literal q (valid: gjson checked the input), in at most
// one copy: none when it holds no escape.
func unquote(q string) string {
	s, _ := redact.Unquote(q)
	return s
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
