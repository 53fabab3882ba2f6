package mockapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Reply is one canned answer to a Messages request: a text answer, a tool_use turn or an
// HTTP error with an Anthropic error body. It is streamed as SSE when the request asked
// for a stream, and sent as one JSON message otherwise.
type Reply struct {
	kind    string // "text", "tool_use", "error"
	text    string
	tool    string
	input   json.RawMessage
	status  int
	errType string
	errMsg  string
}

// Text answers with one text block and stop_reason end_turn.
func Text(s string) Reply { return Reply{kind: "text", text: s} }

// MaxTokens answers with one text block cut at the output limit: stop_reason max_tokens.
func MaxTokens(s string) Reply { return Reply{kind: "max_tokens", text: s} }

// ToolUse answers with one tool_use block calling tool with input (marshalled to JSON)
// and stop_reason tool_use.
func ToolUse(tool string, input any) Reply {
	b, err := json.Marshal(input)
	if err != nil {
		panic("mockapi: tool input: " + err.Error())
	}
	return Reply{kind: "tool_use", tool: tool, input: b}
}

// Error answers with HTTP status and the error type and message the real API uses for it.
func Error(status int) Reply {
	typ, msg := "api_error", "Internal server error"
	switch status {
	case http.StatusBadRequest:
		typ, msg = "invalid_request_error", "invalid request"
	case http.StatusUnauthorized:
		typ, msg = "authentication_error", "invalid x-api-key"
	case http.StatusForbidden:
		typ, msg = "permission_error", "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		typ, msg = "not_found_error", "Not found"
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"
	case 529:
		typ, msg = "overloaded_error", "Overloaded"
	}
	return ErrorWith(status, typ, msg)
}

// ErrorWith answers with HTTP status and an error body of the given type and message.
func ErrorWith(status int, errType, message string) Reply {
	return Reply{kind: "error", status: status, errType: errType, errMsg: message}
}

func (rp Reply) label() string {
	switch rp.kind {
	case "tool_use":
		return "tool_use:" + rp.tool
	case "error":
		return "error:" + strconv.Itoa(rp.status)
	}
	return rp.kind
}

type block struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

// write sends rp as the answer to r.
func (rp Reply) write(w http.ResponseWriter, r *Request, reqID string) {
	if rp.kind == "error" {
		writeJSON(w, rp.status, errorBody(rp.errType, rp.errMsg, reqID))
		return
	}
	var full block
	stop := "end_turn"
	if rp.kind == "max_tokens" {
		stop = "max_tokens"
	}
	if rp.kind == "tool_use" {
		full = block{Type: "tool_use", ID: fmt.Sprintf("toolu_mock_%04d", r.Seq), Name: rp.tool, Input: rp.input}
		stop = "tool_use"
	} else {
		t := rp.text
		full = block{Type: "text", Text: &t}
	}
	msg := message{
		ID:    fmt.Sprintf("msg_mock_%04d", r.Seq),
		Type:  "message",
		Role:  "assistant",
		Model: r.Model(),
		Usage: usage{InputTokens: estimateTokens(r.Body), OutputTokens: estimateTokens([]byte(rp.text + string(rp.input)))},
	}
	if !r.Stream() {
		msg.Content, msg.StopReason = []block{full}, &stop
		writeJSON(w, http.StatusOK, msg)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data) // only the mock's own types, which always marshal
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}

	outTokens := msg.Usage.OutputTokens
	msg.Content, msg.Usage.OutputTokens = []block{}, 1
	send("message_start", map[string]any{"type": "message_start", "message": msg})
	start := full
	var deltas []map[string]any
	if full.Type == "tool_use" {
		start.Input = json.RawMessage(`{}`)
		for _, part := range halves(string(rp.input)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
		}
	} else {
		empty := ""
		start.Text = &empty
		for _, part := range halves(rp.text) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": part})
		}
	}
	send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	send("ping", map[string]string{"type": "ping"})
	for _, d := range deltas {
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": d})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": outTokens},
	})
	send("message_stop", map[string]string{"type": "message_stop"})
}

// halves splits s in two deltas so clients must accumulate them; a short s stays whole.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
