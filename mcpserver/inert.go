package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-mem/claude-mem-go/printable"
)

// inertAnswers makes every tool answer inert text (printable.Inert), its text content and
// its structured content alike: what was stored (a title, a narrative, a project's
// directory name) may hold controls, hidden characters or a tag that would close the block
// the model reads the answer in. The formatters escape stored values before they measure
// them; this pass, around everything, holds for what they do not see (a message quoting an
// argument, an error, a panic's answer) and changes nothing that is already inert.
func inertAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = printable.Inert(t.Text)
				}
			}
			if raw, ok := r.StructuredContent.(json.RawMessage); ok {
				r.StructuredContent = inertJSON(raw)
			}
		}
		return res, err
	}
}

// inertJSON is the encoded JSON value b with printable.Inert applied to each of its
// strings, in place: members keep their order, and a string that is already inert keeps
// its bytes.
func inertJSON(b json.RawMessage) json.RawMessage {
	var out []byte
	done := 0 // b[:done] is in out
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			break // not valid JSON: the SDK marshalled it, so never
		}
		var s string
		if json.Unmarshal(b[i:j+1], &s) == nil {
			if t := printable.Inert(s); t != s {
				var enc bytes.Buffer
				e := json.NewEncoder(&enc)
				e.SetEscapeHTML(false) // as the SDK writes: "<" and ">" as they are
				_ = e.Encode(t)
				out = append(append(out, b[done:i]...), bytes.TrimSuffix(enc.Bytes(), []byte("\n"))...)
				done = j + 1
			}
		}
		i = j
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
