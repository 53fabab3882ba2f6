package main

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// shapes/ holds single lines copied verbatim from the 2.1.328 stream-json fixtures (the
// *_max_output_tokens and user_synthetic_continue lines from tests/e2e/testdata, recorded
// from the same CLI); every line the fake prints starts from one of them, so it keeps every
// field the real CLI prints.
//
//go:embed shapes/*.json
var shapes embed.FS

// shape returns a fresh copy of shapes/<name>.json.
func shape(name string) map[string]any {
	b, err := shapes.ReadFile("shapes/" + name + ".json")
	if err != nil {
		panic(err) // embedded at build time: a missing shape is a bug in the fake
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// set assigns v at the path of nested objects in m.
func set(m map[string]any, v any, path ...string) {
	for _, k := range path[:len(path)-1] {
		m = m[k].(map[string]any)
	}
	m[path[len(path)-1]] = v
}

// renameModel re-keys a per-model usage map to the model in use.
func renameModel(m map[string]any, key, model string) {
	usage, ok := m[key].(map[string]any)
	if !ok {
		return
	}
	renamed := make(map[string]any, len(usage))
	for _, v := range usage {
		if inner, ok := v.(map[string]any); ok {
			inner["canonicalModel"] = model
		}
		renamed[model] = v
	}
	m[key] = renamed
}

func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func timestamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// stream writes stream-json lines for one session.
type stream struct {
	w         io.Writer
	sessionID string
	model     string
	results   int    // result lines so far: result_index
	requests  int    // API request ids so far
	raw       []byte // what rawMark stands for
}

// emit prints one line at once (no buffering: a test waits for the init line of a hung run).
// Like the CLI's JSON.stringify, it leaves <, > and & unescaped.
func (s *stream) emit(m map[string]any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	s.w.Write(bytes.ReplaceAll(b.Bytes(), []byte(`\u0000raw\u0000`), escapeRaw(s.raw)))
}

// rawMark in a text stands for the stream's raw bytes (Reply.Raw).
const rawMark = "\x00raw\x00"

// escapeRaw is raw in a JSON string, byte for byte: only what JSON must escape is escaped.
func escapeRaw(raw []byte) []byte {
	var esc bytes.Buffer
	for _, c := range raw {
		switch {
		case c == '"' || c == '\\':
			esc.WriteByte('\\')
			esc.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&esc, `\u%04x`, c)
		default:
			esc.WriteByte(c)
		}
	}
	return esc.Bytes()
}

func (s *stream) base(name string) map[string]any {
	m := shape(name)
	m["session_id"] = s.sessionID
	m["uuid"] = newUUID()
	if _, ok := m["timestamp"]; ok {
		m["timestamp"] = timestamp()
	}
	return m
}

func (s *stream) initLine(cwd, configDir, permissionMode, apiKeySource string, tools, mcp []string) map[string]any {
	m := s.base("init")
	m["cwd"], m["original_cwd"] = cwd, cwd
	m["tools"] = tools
	servers := make([]map[string]string, 0, len(mcp))
	for _, n := range mcp {
		// The fake starts no MCP server, as a real one that could not start reports.
		servers = append(servers, map[string]string{"name": n, "status": "failed"})
	}
	m["mcp_servers"] = servers
	m["model"] = s.model
	m["permissionMode"] = permissionMode
	m["apiKeySource"] = apiKeySource
	set(m, configDir+"/projects/"+fakeproto.EncodeCwd(cwd)+"/memory/", "memory_paths", "auto")
	return m
}

func (s *stream) hookStarted(id, name, event string) map[string]any {
	m := s.base("hook_started")
	m["hook_id"], m["hook_name"], m["hook_event"] = id, name, event
	return m
}

func (s *stream) hookResponse(id, name, event, stdout, stderr string, exit int, outcome string) map[string]any {
	m := s.base("hook_response")
	m["hook_id"], m["hook_name"], m["hook_event"] = id, name, event
	m["output"], m["stdout"], m["stderr"] = stdout+stderr, stdout, stderr
	m["exit_code"], m["outcome"] = exit, outcome
	return m
}

func (s *stream) assistantText(text string) map[string]any {
	m := s.base("assistant_text")
	set(m, "msg_"+newUUID(), "message", "id")
	set(m, s.model, "message", "model")
	set(m, []any{map[string]any{"type": "text", "text": text}}, "message", "content")
	return m
}

func (s *stream) toolUse(id, name string, input map[string]any) map[string]any {
	m := s.base("assistant_tool_use")
	set(m, "msg_"+newUUID(), "message", "id")
	set(m, s.model, "message", "model")
	set(m, []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}, "message", "content")
	return m
}

func (s *stream) toolResult(id, content string) map[string]any {
	m := s.base("user_tool_result")
	set(m, []any{map[string]any{"tool_use_id": id, "type": "tool_result", "content": content, "is_error": false}}, "message", "content")
	m["tool_use_result"] = map[string]any{"content": content}
	m["tool_result_meta"] = []any{map[string]any{"id": id, "permission_decision": map[string]any{
		"decision": "accept", "source": "config", "reason_type": "rule"}}}
	return m
}

func (s *stream) resultSuccess(text string, started time.Time) map[string]any {
	m := s.base("result_success")
	m["result"] = text
	m["result_index"] = s.results
	m["duration_ms"] = time.Since(started).Milliseconds()
	renameModel(m, "modelUsage", s.model)
	renameModel(m, "model_usage_since_last_result", s.model)
	s.results++
	return m
}

// withUsage makes a result line report u, in usage, total_cost_usd, the durations and the
// model's modelUsage entries, as the real CLI does.
func withUsage(m map[string]any, u fakeproto.Usage, model string) {
	set(m, u.InputTokens, "usage", "input_tokens")
	set(m, u.OutputTokens, "usage", "output_tokens")
	set(m, u.CacheCreationTokens, "usage", "cache_creation_input_tokens")
	set(m, u.CacheReadTokens, "usage", "cache_read_input_tokens")
	m["total_cost_usd"], m["duration_ms"], m["duration_api_ms"] = u.CostUSD, u.DurationMS, u.DurationAPIMS
	for _, key := range []string{"modelUsage", "model_usage_since_last_result"} {
		set(m, u.InputTokens, key, model, "inputTokens")
		set(m, u.OutputTokens, key, model, "outputTokens")
		set(m, u.CacheCreationTokens, key, model, "cacheCreationInputTokens")
		set(m, u.CacheReadTokens, key, model, "cacheReadInputTokens")
		set(m, u.CostUSD, key, model, "costUSD")
	}
}

// apiError is one failed request as the real CLI reports it.
type apiError struct {
	text      string // the assistant's and the result's text
	errorCode string // the assistant line's "error"
	status    int    // api_error_status; 0 for "not logged in", which sends no request
	errorType string // api_error_type
}

var (
	errNoCredentials = apiError{"Not logged in · Please run /login", "authentication_failed", 0, ""}
	errInvalidKey    = apiError{"Invalid API key · Fix external API key", "authentication_failed", 401, "authentication_error"}
	errForbidden     = apiError{"Failed to authenticate. API Error: 403 Your API key does not have permission to use the specified resource.",
		"authentication_failed", 403, "permission_error"}
	// The 429 and 529 shapes are not in the fixtures: the texts, "error" and
	// api_error_type here are assumptions, pinned by the real CLI in tests/e2e.
	errRateLimited = apiError{"API Error: 429 Rate limited", "rate_limit", 429, "rate_limit_error"}
	errOverloaded  = apiError{"API Error: 529 Overloaded", "overloaded", 529, "overloaded_error"}
)

// apiRetry is the line printed before each retry of a request that failed with e.
func (s *stream) apiRetry(e apiError, attempt, maxRetries int) map[string]any {
	m := s.base("api_retry")
	m["attempt"], m["max_retries"] = attempt, maxRetries
	m["error_status"], m["error"] = e.status, e.errorCode
	return m
}

// assistantAPIError is the synthetic assistant message of a failed request; without a
// request (not logged in) it has no request id, status or type, as in the fixture.
func (s *stream) assistantAPIError(e apiError) map[string]any {
	m := s.base("assistant_api_error")
	set(m, newUUID(), "message", "id")
	set(m, []any{map[string]any{"type": "text", "text": e.text}}, "message", "content")
	m["error"] = e.errorCode
	if e.status == 0 {
		delete(m, "request_id")
		delete(m, "api_error_status")
		delete(m, "api_error_type")
		return m
	}
	s.requests++
	m["request_id"] = fmt.Sprintf("req_fake_%04d", s.requests)
	m["api_error_status"], m["api_error_type"] = e.status, e.errorType
	return m
}

func (s *stream) resultAPIError(e apiError, started time.Time) map[string]any {
	m := s.base("result_api_error")
	m["result"] = e.text
	m["result_index"] = s.results
	m["duration_ms"] = time.Since(started).Milliseconds()
	if e.status == 0 {
		m["api_error_status"] = nil
		delete(m, "api_error_type")
	} else {
		m["api_error_status"], m["api_error_type"] = e.status, e.errorType
	}
	s.results++
	return m
}
