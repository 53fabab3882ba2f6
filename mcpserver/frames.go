package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/lines"
	"github.com/claude-mem/claude-mem-go/nesting"
)

// MaxFrame bounds one inbound frame (a line of JSON-RPC): a call's arguments are a query
// or a note, far below it. A longer line is answered with an error and skipped unread.
const MaxFrame = 4 << 20

// maxFrameDepth bounds a frame's nesting, checked by a scan before any decoder sees it: a
// call's arguments nest a few levels, and a decoder's cost grows with depth.
const maxFrameDepth = 64

// drainLimit bounds how long the server, its input closed, waits for the answers to the
// requests it is still handling: a tool answers in milliseconds, and an answer that
// has not come by then is logged as lost.
const drainLimit = 10 * time.Second

// JSON-RPC 2.0's error codes for a frame that is not a request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// screen passes the frames of in that are single JSON-RPC 2.0 messages on to the returned
// reader, and answers every other one itself on out with the error the JSON-RPC spec
// gives: the SDK's transport ends the connection at the first frame it cannot decode, so
// one bad frame would leave every later call unanswered.
//
// The SDK reads a request's id as a float64 and writes it back as an int64 ("id":1e400
// ends the connection; 2^64+1, 1.5 and 9007199254740993 are answered under another id),
// so it never sees a client's id: each request goes on with a number of the screen's own
// (out.calls), and its answer gets the client's id back, byte for byte. At the end of in,
// the requests still in flight are answered before the SDK is told (it cancels what is in
// flight when its input ends), within drainLimit or until stopped is closed.
func screen(in io.Reader, out *wire, stopped <-chan struct{}, log zerolog.Logger) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := lines.Read(r, MaxFrame)
			if tooLong {
				err = lines.Skip(r)
			}
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				pass, reply := out.calls.admit(line, tooLong)
				if reply != nil {
					if werr := out.reply(reply); werr != nil {
						pw.CloseWithError(werr)
						return
					}
				} else if _, werr := pw.Write(append(pass, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
			if err != nil {
				if n := out.calls.drain(stopped, drainLimit); n > 0 {
					log.Warn().Int("requests", n).Dur("waited", drainLimit).Msg("mcp: input closed; requests still unanswered are dropped")
				}
				pw.CloseWithError(err) // io.EOF: a clean end
				return
			}
		}
	}()
	return pr
}

// protocolMembers are the members the SDK decodes from a frame. Each may appear once and
// spelled plainly (a key written with an escape is refused), so that the member the
// screen checks is the member the SDK reads.
var protocolMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// errorMembers are the members the SDK decodes from a response's error.
var errorMembers = []string{"code", "message", "data"}

// members reads the named members of the JSON object v; bad says why v cannot be read as
// the SDK would.
func members(v gjson.Result, names []string) (m map[string]gjson.Result, bad string) {
	m = map[string]gjson.Result{}
	v.ForEach(func(k, val gjson.Result) bool {
		name := k.String()
		switch {
		case !slices.Contains(names, name):
		case strings.Contains(k.Raw, `\`):
			bad = "the member name " + strconv.Quote(name) + " is written with an escape"
		case m[name].Exists():
			bad = "the member " + strconv.Quote(name) + " appears twice"
		default:
			m[name] = val
		}
		return bad == ""
	})
	return m, bad
}

// sdkID is an id the SDK reads back as it was: an integer well inside a float64's exact
// range. Only a response carries one unchanged (it answers a request the SDK sent).
var sdkID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]{0,14})$`) })

// errorCode is an error code the SDK reads (an int64). Both patterns are compiled at
// first use, as every pattern of the binary: every hook starts it, and their bounded
// repetitions cost a tenth of a millisecond to compile.
var errorCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`) })

// admit is the frame to pass on to the SDK (a request's id replaced by the screen's own),
// or, for a frame that is not one JSON-RPC 2.0 message the SDK reads as sent, the error
// reply.
func (c *calls) admit(line []byte, tooLong bool) (pass, reply []byte) {
	switch {
	case tooLong:
		return nil, errorReply(nil, codeInvalidRequest, "Invalid Request: frame over 4 MiB")
	case nesting.Over(line, maxFrameDepth):
		return nil, errorReply(nil, codeInvalidRequest, "Invalid Request: nested over 64 levels")
	case !json.Valid(line):
		return nil, errorReply(nil, codeParseError, "Parse error: the frame is not JSON")
	}
	line = bytes.TrimSpace(line)
	if line[0] != '{' {
		// A batch ([…]) included: MCP 2025-06-18 removed batching.
		return nil, errorReply(nil, codeInvalidRequest, "Invalid Request: a frame is one JSON-RPC object (no batches)")
	}
	m, bad := members(gjson.ParseBytes(line), protocolMembers)
	if bad != "" {
		return nil, errorReply(nil, codeInvalidRequest, "Invalid Request: "+bad)
	}
	id, method := m["id"], m["method"]
	var replyID json.RawMessage // the id an error reply carries: the frame's own, when it has one
	switch id.Type {
	case gjson.String, gjson.Number:
		replyID = json.RawMessage(id.Raw)
	case gjson.Null:
	default:
		if id.Exists() {
			return nil, errorReply(nil, codeInvalidRequest, "Invalid Request: id must be a string or a number")
		}
	}
	invalid := func(msg string) ([]byte, []byte) {
		return nil, errorReply(replyID, codeInvalidRequest, "Invalid Request: "+msg)
	}
	switch jsonrpc := m["jsonrpc"]; {
	case jsonrpc.Type != gjson.String || jsonrpc.String() != "2.0":
		return invalid(`"jsonrpc" must be "2.0"`)
	case method.Exists() && method.Type != gjson.String:
		return invalid("method must be a string")
	case method.Exists() && id.Exists() && id.Type == gjson.Null:
		// JSON-RPC answers a request whose id is null (only a request without an id is a
		// notification), and MCP forbids the null id.
		return invalid("id must not be null (a request's id is a string or a number; a notification has none)")
	case method.Exists() && id.Exists():
		return c.rewrite(line, id), nil
	case method.Exists():
		return c.cancelled(line, method, m["params"]), nil
	case !m["result"].Exists() && !m["error"].Exists():
		return invalid("no method")
	case !sdkID().MatchString(id.Raw):
		return invalid("a response's id must be one the server sent")
	}
	if e := m["error"]; e.Exists() && e.Type != gjson.Null {
		em, bad := members(e, errorMembers)
		switch {
		case !e.IsObject():
			return invalid("error must be an object")
		case bad != "":
			return invalid("in error, " + bad)
		case em["code"].Exists() && !errorCode().MatchString(em["code"].Raw):
			return invalid("error code must be an integer")
		case em["message"].Exists() && em["message"].Type != gjson.String:
			return invalid("error message must be a string")
		}
	}
	return line, nil
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

// calls are the requests passed on to the SDK and not answered yet, by the id the SDK
// knows them by, with the id their client gave them.
type calls struct {
	mu      sync.Mutex
	last    int64
	pending map[int64]json.RawMessage
	changed chan struct{} // closed, and replaced, when a request is answered
}

func newCalls() *calls {
	return &calls{pending: map[int64]json.RawMessage{}, changed: make(chan struct{})}
}

// rewrite is the request line with its id, at id, replaced by a number of the screen's own.
func (c *calls) rewrite(line []byte, id gjson.Result) []byte {
	c.mu.Lock()
	c.last++
	n := c.last
	c.pending[n] = json.RawMessage(bytes.Clone([]byte(id.Raw)))
	c.mu.Unlock()
	return splice(line, id, strconv.FormatInt(n, 10))
}

// cancelled is a notification as the SDK is to read it: a notifications/cancelled naming a
// request in flight names it by the screen's number for it. Any other passes as it is.
func (c *calls) cancelled(line []byte, method, params gjson.Result) []byte {
	if method.String() != "notifications/cancelled" || !params.IsObject() {
		return line
	}
	pm, bad := members(params, []string{"requestId"})
	id := pm["requestId"]
	if bad != "" || !id.Exists() {
		return line
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n, raw := range c.pending {
		if string(raw) == id.Raw {
			return splice(line, id, strconv.FormatInt(n, 10))
		}
	}
	return line
}

// restore is an SDK message as its peer is to read it: a response to a request the screen
// passed on carries that request's own id again, and the request is no longer pending
// (done is called once the message is out).
func (c *calls) restore(msg []byte) (out []byte, done func()) {
	var id gjson.Result
	isResponse := true
	gjson.ParseBytes(msg).ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "id":
			id = v
		case "method":
			isResponse = false
		}
		return true
	})
	if !isResponse || id.Type != gjson.Number {
		return msg, func() {}
	}
	n, err := strconv.ParseInt(id.Raw, 10, 64)
	c.mu.Lock()
	raw, ok := c.pending[n]
	c.mu.Unlock()
	if err != nil || !ok {
		return msg, func() {}
	}
	return splice(msg, id, string(raw)), func() {
		c.mu.Lock()
		delete(c.pending, n)
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
}

// drain waits until every pending request is answered, limit has passed or stopped is
// closed (the server will answer nothing more), and returns how many are left.
func (c *calls) drain(stopped <-chan struct{}, limit time.Duration) int {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-changed:
		case <-stopped:
			return n
		case <-deadline.C:
			return n
		}
	}
}

// splice is b with the value v (read from b) replaced by with.
func splice(b []byte, v gjson.Result, with string) []byte {
	out := make([]byte, 0, len(b)-len(v.Raw)+len(with))
	out = append(out, b[:v.Index]...)
	out = append(out, with...)
	return append(out, b[v.Index+len(v.Raw):]...)
}

// wire is the server's output, shared by the SDK and the screen: each write is one whole
// message under the lock, so replies never interleave.
type wire struct {
	mu    sync.Mutex
	w     io.Writer
	calls *calls
}

func newWire(w io.Writer) *wire { return &wire{w: w, calls: newCalls()} }

// Write sends one of the SDK's messages, a response under its request's own id.
func (w *wire) Write(p []byte) (int, error) {
	msg, done := w.calls.restore(p)
	defer done()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(msg); err != nil {
		return 0, err
	}
	return len(p), nil
}

// reply sends one of the screen's own error replies, whose id is the client's already.
func (w *wire) reply(p []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.w.Write(p)
	return err
}

func (*wire) Close() error { return nil }
