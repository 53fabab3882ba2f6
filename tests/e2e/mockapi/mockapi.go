// Package mockapi is a scripted stand-in for the Anthropic Messages API on 127.0.0.1 that
// records every request, so end-to-end tests can run the real Claude Code CLI offline and
// read back exactly what it sent.
package mockapi

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/claude-mem/claude-mem-go/auth"
)

// Request is one recorded HTTP request.
type Request struct {
	Seq    int    // 1-based arrival order
	Method string // "POST"; "CONNECT" when the mock is given as a proxy
	Host   string // the Host header; for CONNECT, the host:port the client tried to reach
	Path   string // "/v1/messages"
	Query  string // raw query, e.g. "beta=true"
	// Header holds every header, with x-api-key and Authorization redacted; their values
	// are in APIKey and Authorization.
	Header        http.Header
	APIKey        auth.Secret // x-api-key
	Authorization auth.Secret // Authorization, scheme included ("Bearer …")
	Body          []byte
	Reply         string // what the mock answered: "text", "tool_use:Bash", "error:401", "count_tokens", "hello", "not_found"
}

// IsMessages reports whether r is a Messages API call (not count_tokens or anything else).
func (r *Request) IsMessages() bool { return r.Method == http.MethodPost && r.Path == "/v1/messages" }

// body is the part of a Messages request the helpers read.
type body struct {
	Model    string                  `json:"model"`
	Stream   bool                    `json:"stream"`
	System   json.RawMessage         `json:"system"`
	Tools    []struct{ Name string } `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (r *Request) parse() body {
	var b body
	_ = json.Unmarshal(r.Body, &b) // a non-JSON body simply has no fields
	return b
}

// Model is the model the request names.
func (r *Request) Model() string { return r.parse().Model }

// Stream reports whether the request asked for SSE.
func (r *Request) Stream() bool { return r.parse().Stream }

// Tools lists the names of the tools the request offers the model; nil when none.
func (r *Request) Tools() []string {
	var names []string
	for _, t := range r.parse().Tools {
		names = append(names, t.Name)
	}
	return names
}

// System is the system prompt's text, its blocks joined by newlines.
func (r *Request) System() string { return blocksText(r.parse().System) }

// MessageText is the text of every message of role ("user", "assistant", or "system":
// the CLI sends hook context and its environment block as system-role messages), text
// blocks and tool results, joined by newlines.
func (r *Request) MessageText(role string) string {
	var parts []string
	for _, m := range r.parse().Messages {
		if m.Role == role {
			parts = append(parts, blocksText(m.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// HasToolResult reports whether the latest user message carries a tool_result block, i.e.
// the request continues a turn after a tool ran. The CLI appends system-role messages
// after it, so those are skipped.
func (r *Request) HasToolResult() bool {
	ms := r.parse().Messages
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "system" {
			continue
		}
		if ms[i].Role != "user" {
			return false
		}
		var blocks []struct{ Type string }
		_ = json.Unmarshal(ms[i].Content, &blocks) // string content has no blocks
		for _, b := range blocks {
			if b.Type == "tool_result" {
				return true
			}
		}
		return false
	}
	return false
}

// blocksText flattens content that is either a string or an array of blocks (text, and
// tool_result whose content is itself a string or blocks).
func blocksText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, blocksText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// Matcher chooses the requests a rule answers.
type Matcher func(*Request) bool

// Any matches every Messages request.
func Any(*Request) bool { return true }

// BodyContains matches a request whose raw body contains s (for example the observer
// prompt's marker).
func BodyContains(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(string(r.Body), s) }
}

// ToolResult matches a request that continues a turn after a tool ran.
func ToolResult(r *Request) bool { return r.HasToolResult() }

// Not inverts m.
func Not(m Matcher) Matcher { return func(r *Request) bool { return !m(r) } }

type rule struct {
	match   Matcher
	replies []Reply
	next    int
}

// Server is the mock. Rules are tried in the order they were added; a matching rule
// answers with its next reply, repeating its last one once the others are used. A
// Messages request no rule matches gets Text("ok").
type Server struct {
	srv *http.Server
	url string

	mu       sync.Mutex
	rules    []*rule
	requests []Request
	seq      int
}

// New starts a server on 127.0.0.1 with an ephemeral port.
func New() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: s}
	go func() { _ = s.srv.Serve(ln) }() // returns ErrServerClosed once Close is called
	return s, nil
}

// URL is the base URL to give the CLI as ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return s.url }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Handle adds a rule: requests m matches get replies in order, the last one repeating.
func (s *Server) Handle(m Matcher, replies ...Reply) {
	if len(replies) == 0 {
		panic("mockapi: Handle needs at least one reply")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rule{match: m, replies: replies})
}

// Requests returns a copy of every recorded request, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Messages returns the recorded Messages API requests.
func (s *Server) Messages() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsMessages() {
			out = append(out, r)
		}
	}
	return out
}

// SaveArtifacts writes every recorded request into dir (created): NNN-<path>.json holding
// the body and NNN-<path>.headers.txt holding the redacted headers, for CI artifacts.
func (s *Server) SaveArtifacts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range s.Requests() {
		what := r.Path
		if what == "" {
			what = r.Method + " " + r.Host // a CONNECT names no path
		}
		name := fmt.Sprintf("%03d-%s", r.Seq, strings.Trim(unsafeName.ReplaceAllString(what, "_"), "_"))
		var h strings.Builder
		fmt.Fprintf(&h, "%s %s %s?%s\nreply: %s\n", r.Method, r.Host, r.Path, r.Query, r.Reply)
		for _, k := range slices.Sorted(maps.Keys(r.Header)) {
			for _, v := range r.Header[k] {
				fmt.Fprintf(&h, "%s: %s\n", k, v)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name+".headers.txt"), []byte(h.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), r.Body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ServeHTTP records the request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := hr.Header.Clone()
	r := Request{
		Method:        hr.Method,
		Host:          hr.Host,
		Path:          hr.URL.Path,
		Query:         hr.URL.RawQuery,
		APIKey:        auth.Secret(h.Get("X-Api-Key")),
		Authorization: auth.Secret(h.Get("Authorization")),
		Body:          b,
	}
	for _, k := range []string{"X-Api-Key", "Authorization"} {
		if v := h.Get(k); v != "" {
			h.Set(k, auth.Secret(v).String())
		}
	}
	r.Header = h

	s.mu.Lock()
	s.seq++
	r.Seq = s.seq
	reqID := fmt.Sprintf("req_mock_%04d", r.Seq)
	var reply Reply
	switch {
	case r.IsMessages():
		reply = s.pick(&r)
		r.Reply = reply.label()
	case hr.Method == http.MethodPost && r.Path == "/v1/messages/count_tokens":
		r.Reply = "count_tokens"
	case r.Path == "/api/hello":
		r.Reply = "hello" // the CLI's reachability probe (HEAD)
	default:
		r.Reply = "not_found"
	}
	s.requests = append(s.requests, r)
	s.mu.Unlock()

	w.Header().Set("request-id", reqID)
	switch r.Reply {
	case "count_tokens":
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": estimateTokens(b)})
	case "hello":
		w.WriteHeader(http.StatusOK)
	case "not_found":
		writeJSON(w, http.StatusNotFound, errorBody("not_found_error", "mockapi: no such endpoint "+r.Path, reqID))
	default:
		reply.write(w, &r, reqID)
	}
}

// pick returns the reply for r; s.mu is held.
func (s *Server) pick(r *Request) Reply {
	for _, ru := range s.rules {
		if !ru.match(r) {
			continue
		}
		rep := ru.replies[min(ru.next, len(ru.replies)-1)]
		ru.next++
		return rep
	}
	return Text("ok")
}

// estimateTokens is a rough count (4 bytes a token) so count_tokens answers plausibly.
func estimateTokens(b []byte) int { return len(b)/4 + 1 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client hanging up is not the mock's failure
}

func errorBody(typ, msg, reqID string) map[string]any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": typ, "message": msg},
		"request_id": reqID,
	}
}
