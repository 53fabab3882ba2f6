package mockapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const testKey = "sk-ant-api03-test-key-0123456789abcdef"

func start(t *testing.T) *Server {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// post sends body to path with an API key, returning the response and its body.
func post(t *testing.T, s *Server, path, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", testKey)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func msgBody(stream bool, content string) string {
	b, _ := json.Marshal(map[string]any{
		"model":      "claude-haiku-5-5",
		"stream":     stream,
		"max_tokens": 100,
		"messages":   []map[string]any{{"role": "user", "content": content}},
	})
	return string(b)
}

type sseEvent struct {
	name string
	data map[string]any
}

func parseSSE(t *testing.T, b []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	var name string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Errorf("event %q carries data type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

// assemble rebuilds the one content block and the stop reason from a stream, as a client does.
func assemble(t *testing.T, evs []sseEvent) (block map[string]any, text, partialJSON, stop string) {
	t.Helper()
	for _, e := range evs {
		switch e.name {
		case "content_block_start":
			block = e.data["content_block"].(map[string]any)
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				text += d["text"].(string)
			case "input_json_delta":
				partialJSON += d["partial_json"].(string)
			}
		case "message_delta":
			stop = e.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	return block, text, partialJSON, stop
}

func TestStreaming(t *testing.T) {
	wantEvents := []string{"message_start", "content_block_start", "ping", "content_block_delta",
		"content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	tests := []struct {
		name      string
		reply     Reply
		wantBlock string
		wantText  string
		wantInput map[string]any
		wantStop  string
	}{
		{"text", Text("hello from the mock"), "text", "hello from the mock", nil, "end_turn"},
		{"tool_use", ToolUse("Bash", map[string]string{"command": "echo hi"}), "tool_use", "", map[string]any{"command": "echo hi"}, "tool_use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t)
			s.Handle(Any, tt.reply)
			resp, b := post(t, s, "/v1/messages?beta=true", msgBody(true, "hi"), nil)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			evs := parseSSE(t, b)
			var names []string
			for _, e := range evs {
				names = append(names, e.name)
			}
			if !reflect.DeepEqual(names, wantEvents) {
				t.Fatalf("events %v, want %v", names, wantEvents)
			}
			if m := evs[0].data["message"].(map[string]any); m["model"] != "claude-haiku-5-5" || m["role"] != "assistant" {
				t.Errorf("message_start message %v", m)
			}
			block, text, partial, stop := assemble(t, evs)
			if block["type"] != tt.wantBlock || text != tt.wantText || stop != tt.wantStop {
				t.Errorf("block %v text %q stop %q", block, text, stop)
			}
			if tt.wantInput != nil {
				if block["name"] != "Bash" || !strings.HasPrefix(block["id"].(string), "toolu_") {
					t.Errorf("tool block %v", block)
				}
				var in map[string]any
				if err := json.Unmarshal([]byte(partial), &in); err != nil || !reflect.DeepEqual(in, tt.wantInput) {
					t.Errorf("tool input %q (%v), want %v", partial, err, tt.wantInput)
				}
			}
		})
	}
}

func TestNonStreaming(t *testing.T) {
	tests := []struct {
		name     string
		reply    Reply
		want     map[string]any
		wantStop string
	}{
		{"text", Text("plain"), map[string]any{"type": "text", "text": "plain"}, "end_turn"},
		{"tool_use", ToolUse("Write", map[string]string{"file_path": "/x"}), map[string]any{"type": "tool_use", "id": "toolu_mock_0001", "name": "Write", "input": map[string]any{"file_path": "/x"}}, "tool_use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t)
			s.Handle(Any, tt.reply)
			resp, b := post(t, s, "/v1/messages", msgBody(false, "hi"), nil)
			var m struct {
				Type       string           `json:"type"`
				Role       string           `json:"role"`
				Content    []map[string]any `json:"content"`
				StopReason string           `json:"stop_reason"`
			}
			if err := json.Unmarshal(b, &m); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d body %s: %v", resp.StatusCode, b, err)
			}
			if m.Type != "message" || m.Role != "assistant" || len(m.Content) != 1 || !reflect.DeepEqual(m.Content[0], tt.want) || m.StopReason != tt.wantStop {
				t.Errorf("got %+v", m)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		status   int
		wantType string
	}{
		{401, "authentication_error"},
		{403, "permission_error"},
		{429, "rate_limit_error"},
		{529, "overloaded_error"},
		{500, "api_error"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(strconv.Itoa(tt.status)+map[bool]string{true: "/stream", false: "/plain"}[stream], func(t *testing.T) {
				s := start(t)
				s.Handle(Any, Error(tt.status))
				resp, b := post(t, s, "/v1/messages", msgBody(stream, "hi"), nil)
				var e struct {
					Type  string `json:"type"`
					Error struct {
						Type    string `json:"type"`
						Message string `json:"message"`
					} `json:"error"`
					RequestID string `json:"request_id"`
				}
				if err := json.Unmarshal(b, &e); err != nil {
					t.Fatalf("body %s: %v", b, err)
				}
				if resp.StatusCode != tt.status || e.Type != "error" || e.Error.Type != tt.wantType || e.Error.Message == "" {
					t.Errorf("status %d body %s", resp.StatusCode, b)
				}
				if e.RequestID != "req_mock_0001" || resp.Header.Get("request-id") != "req_mock_0001" {
					t.Errorf("request id %q / header %q", e.RequestID, resp.Header.Get("request-id"))
				}
				if got := s.Requests()[0].Reply; got != "error:"+strconv.Itoa(tt.status) {
					t.Errorf("recorded reply %q", got)
				}
			})
		}
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := start(t)
	resp, b := post(t, s, "/v1/messages/count_tokens", msgBody(false, "count these tokens please"), nil)
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal(b, &ct); err != nil || resp.StatusCode != 200 || ct.InputTokens <= 0 {
		t.Errorf("count_tokens: %d %s", resp.StatusCode, b)
	}
	resp, _ = post(t, s, "/v1/unknown", "{}", nil)
	if resp.StatusCode != 404 {
		t.Errorf("unknown endpoint: %d", resp.StatusCode)
	}
	hr, err := http.Head(s.URL() + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	hr.Body.Close()
	if hr.StatusCode != 200 {
		t.Errorf("/api/hello: %d", hr.StatusCode)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.Method+" "+r.Path+" "+r.Reply)
	}
	want := []string{"POST /v1/messages/count_tokens count_tokens", "POST /v1/unknown not_found", "HEAD /api/hello hello"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	if len(s.Messages()) != 0 {
		t.Errorf("Messages() = %d requests, want none", len(s.Messages()))
	}
}

func TestRecordingKeepsCredentialsApart(t *testing.T) {
	s := start(t)
	post(t, s, "/v1/messages?beta=true", msgBody(false, "hello"), map[string]string{"Authorization": "Bearer " + testKey, "Anthropic-Beta": "oauth-2025-04-20"})
	r := s.Requests()[0]
	if r.Seq != 1 || r.Query != "beta=true" || r.Header.Get("Anthropic-Beta") != "oauth-2025-04-20" {
		t.Errorf("recorded %+v", r)
	}
	if r.APIKey.Reveal() != testKey || r.Authorization.Reveal() != "Bearer "+testKey {
		t.Errorf("credentials not kept: %q %q", r.APIKey.Reveal(), r.Authorization.Reveal())
	}
	for _, h := range []string{"X-Api-Key", "Authorization"} {
		if strings.Contains(r.Header.Get(h), "test-key") {
			t.Errorf("header %s not redacted: %q", h, r.Header.Get(h))
		}
	}
	if r.MessageText("user") != "hello" || r.Model() != "claude-haiku-5-5" || r.Stream() {
		t.Errorf("helpers: %q %q %v", r.MessageText("user"), r.Model(), r.Stream())
	}

	dir := filepath.Join(t.TempDir(), "artifacts")
	if err := s.SaveArtifacts(dir); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "001-v1_messages.json"))
	if err != nil || !bytes.Equal(body, r.Body) {
		t.Errorf("saved body %s (%v)", body, err)
	}
	hdr, err := os.ReadFile(filepath.Join(dir, "001-v1_messages.headers.txt"))
	if err != nil || !strings.Contains(string(hdr), "/v1/messages?beta=true") || strings.Contains(string(hdr), "test-key") {
		t.Errorf("saved headers %s (%v)", hdr, err)
	}
}

func TestScript(t *testing.T) {
	const marker = "OBSERVER-MARKER"
	toolResult := `{"model":"m","stream":false,"messages":[` +
		`{"role":"user","content":"run it"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"hi"}]},` +
		`{"role":"system","content":[{"type":"text","text":"tokens left"}]}]}`
	s := start(t)
	s.Handle(BodyContains(marker), Text("observations"))
	s.Handle(ToolResult, Text("after tool"))
	s.Handle(Not(ToolResult), ToolUse("Bash", map[string]string{"command": "echo hi"}), Text("second"))

	sends := []struct {
		body string
		want string
	}{
		{msgBody(false, "a session prompt"), "tool_use:Bash"},
		{toolResult, "text"},
		{msgBody(false, "prompt with "+marker), "text"},
		{msgBody(false, "again"), "text"}, // the rule's second reply
		{msgBody(false, "and again"), "text"},
	}
	for _, sd := range sends {
		post(t, s, "/v1/messages", sd.body, nil)
	}
	var got []string
	for _, r := range s.Messages() {
		got = append(got, r.Reply)
	}
	want := []string{"tool_use:Bash", "text", "text", "text", "text"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replies %v, want %v", got, want)
	}
	if !s.Messages()[1].HasToolResult() || s.Messages()[0].HasToolResult() {
		t.Error("HasToolResult must see the tool_result behind the trailing system message, and only there")
	}
	if got := s.Messages()[1].MessageText("system"); got != "tokens left" {
		t.Errorf("system-role text %q", got)
	}

	fresh := start(t)
	_, b := post(t, fresh, "/v1/messages", msgBody(false, "no rules"), nil)
	if !strings.Contains(string(b), `"text":"ok"`) || fresh.Messages()[0].Reply != "text" {
		t.Errorf("default reply %s", b)
	}
}

func TestRequestHelpers(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantSystem string
		wantTools  []string
	}{
		{"string system, no tools", `{"system":"be brief","tools":[]}`, "be brief", nil},
		{"block system, tools", `{"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tools":[{"name":"Bash"},{"name":"Read"}]}`, "a\nb", []string{"Bash", "Read"}},
		{"not JSON", `garbage`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Request{Body: []byte(tt.body)}
			if r.System() != tt.wantSystem || !reflect.DeepEqual(r.Tools(), tt.wantTools) {
				t.Errorf("System %q Tools %v", r.System(), r.Tools())
			}
		})
	}
}

// TestProxyConnectRecorded: given as an HTTPS proxy, the mock records the host a client
// tried to reach and refuses the tunnel, so nothing leaves the machine.
func TestProxyConnectRecorded(t *testing.T) {
	s := start(t)
	proxy, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	if _, err := c.Get("https://api.anthropic.com/api/hello"); err == nil {
		t.Fatal("the tunnel was not refused")
	}
	rs := s.Requests()
	if len(rs) != 1 || rs[0].Method != http.MethodConnect || rs[0].Host != "api.anthropic.com:443" || rs[0].Reply != "not_found" {
		t.Fatalf("recorded %+v", rs)
	}
	dir := t.TempDir()
	if err := s.SaveArtifacts(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "001-CONNECT_api.anthropic.com_443.headers.txt")); err != nil {
		t.Error(err)
	}
}
