package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/claude-mem/claude-mem-go/lines"
	"github.com/claude-mem/claude-mem-go/nesting"
)

// MaxFrame bounds one inbound frame (a line of JSON-RPC): a call's arguments are a query
// or a note, far below it. A longer line is answered with an error and skipped unread.
const MaxFrame = 4 << 20

// maxFrameDepth bounds a frame's nesting, checked by a scan before any decoder sees it: a
// call's arguments nest a few levels, and a decoder's cost grows with depth.
const maxFrameDepth = 64

// JSON-RPC 2.0's error codes for a frame that is not a request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// screen passes the frames of in that are single JSON-RPC 2.0 messages on to the returned
// reader, and answers every other one itself on out with the error the JSON-RPC spec
// gives: the SDK's transport ends the connection at the first frame it cannot decode, so
// one bad frame would leave every later call unanswered. out is shared with the SDK's
// writes (each one whole message under the lock).
func screen(in io.Reader, out *lockedWriter) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := lines.Read(r, MaxFrame)
			if tooLong {
				err = lines.Skip(r)
			}
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				if reply := check(line, tooLong); reply != nil {
					if _, werr := out.Write(reply); werr != nil {
						pw.CloseWithError(werr)
						return
					}
				} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
			if err != nil {
				pw.CloseWithError(err) // io.EOF: a clean end
				return
			}
		}
	}()
	return pr
}

// check is the error reply for a frame that is not one JSON-RPC 2.0 message, nil for one
// that is.
func check(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return errorReply(nil, codeInvalidRequest, "Invalid Request: frame over 4 MiB")
	case nesting.Over(line, maxFrameDepth):
		return errorReply(nil, codeInvalidRequest, "Invalid Request: nested over 64 levels")
	case !json.Valid(line):
		return errorReply(nil, codeParseError, "Parse error: the frame is not JSON")
	}
	line = bytes.TrimSpace(line)
	if line[0] != '{' {
		// A batch ([…]) included: MCP 2025-06-18 removed batching.
		return errorReply(nil, codeInvalidRequest, "Invalid Request: a frame is one JSON-RPC object (no batches)")
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil {
		return errorReply(nil, codeInvalidRequest, "Invalid Request: a member has the wrong type")
	}
	id := m.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		return errorReply(nil, codeInvalidRequest, "Invalid Request: id must be a string, a number or null")
	}
	switch {
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return errorReply(id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return errorReply(id, codeInvalidRequest, "Invalid Request: no method")
	}
	return nil
}

// rpcError is a JSON-RPC 2.0 error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// errorReply is the error response to a frame with id (nil: the id could not be read).
func errorReply(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{code, msg}})
	return append(b, '\n')
}

// lockedWriter serializes whole writes: the SDK's and screen's replies never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }
