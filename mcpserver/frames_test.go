package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestServeMalformedFrames: each malformed frame gets the JSON-RPC error the spec gives,
// and the server stays up: a valid tools/list after them all is answered.
func TestServeMalformedFrames(t *testing.T) {
	w := newWorld(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(w.deps(w.webDir)).Serve(context.Background(), inR, outW); outW.Close() }()
	dec := json.NewDecoder(outR)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	next := func() reply {
		t.Helper()
		var r reply
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("no reply: %v", err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := next(); r.Result == nil {
		t.Fatalf("initialize not answered: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`
	for _, tc := range []struct {
		name, frame string
		code        int
		id          string
	}{
		{"not JSON", `hello, server`, -32700, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":3,"method":"tools/li`, -32700, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, -32600, "4"},
		{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, -32600, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
		{"nesting over 10k", deep, -32600, "null"},
		{"an over-long line", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"q":"` + strings.Repeat("a", MaxFrame+10) + `"}}`, -32600, "null"},
	} {
		send(tc.frame)
		r := next()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: reply %+v (error %+v); want error %d with id %s", tc.name, r, r.Error, tc.code, tc.id)
		} else {
			t.Logf("%s: %d %s", tc.name, r.Error.Code, r.Error.Message)
		}
	}
	// A frame just under the bound is passed on, and answered by the server itself.
	send(`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"` + strings.Repeat("c", MaxFrame-100) + `"}}`)
	if r := next(); string(r.ID) != "10" || (r.Error != nil && (r.Error.Code == -32600 || r.Error.Code == -32700)) {
		t.Errorf("a frame under the bound: %+v (error %+v); want the server's own answer", r, r.Error)
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if r := next(); string(r.ID) != "9" || r.Result == nil || !strings.Contains(string(r.Result), `"search"`) {
		t.Errorf("tools/list after the malformed frames: %+v", r)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its input closed")
	}
}

// hostileIDs are ids the SDK alone reads wrong: past a float64 (it ended the connection),
// past an int64 or a float64's exact integers, fractions and exponents (answered under
// another id), -0, and strings it re-encodes (an escape, a lone surrogate). Each must come
// back byte for byte.
var hostileIDs = []string{
	"1e400", "-1e999", "1" + strings.Repeat("0", 4999), "18446744073709551617", "9007199254740993",
	"1.5", "-0", "1E2", "0.1e-400", `"s"`, `"\u0041"`, `"\ud800"`, `""`, `"` + strings.Repeat("x", 5000) + `"`, "7",
}

// mcpPipe is a Serve on pipes, answered a frame at a time.
type mcpPipe struct {
	t    *testing.T
	in   *io.PipeWriter
	dec  *json.Decoder
	done chan error
}

type rawReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startPipe(t *testing.T) *mcpPipe {
	w := newWorld(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &mcpPipe{t: t, in: inW, dec: json.NewDecoder(outR), done: make(chan error, 1)}
	go func() { p.done <- New(w.deps(w.webDir)).Serve(context.Background(), inR, outW); outW.Close() }()
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := p.next(); r.Result == nil {
		t.Fatalf("initialize not answered: %+v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *mcpPipe) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *mcpPipe) next() rawReply {
	p.t.Helper()
	var r rawReply
	if err := p.dec.Decode(&r); err != nil {
		p.t.Fatalf("no reply: %v", err)
	}
	return r
}

// TestServeIDsRoundTrip: every string or number id is answered under itself, byte for byte
// (the SDK never sees it); a null id, a duplicated or escaped member, and a response the
// SDK would misread are refused with -32600; and the server answers a ping after each.
func TestServeIDsRoundTrip(t *testing.T) {
	p := startPipe(t)
	for _, id := range hostileIDs {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		r := p.next()
		if string(r.ID) != id || r.Result == nil || !strings.Contains(string(r.Result), `"search"`) {
			t.Errorf("id %.40s: answered under %.40s (error %+v); want the same id and the tools", id, r.ID, r.Error)
		}
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r := p.next(); string(r.ID) != id || r.Result == nil {
			t.Errorf("ping with id %.40s: %+v", id, r)
		}
	}
	for _, tc := range []struct{ name, frame, id string }{
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null"},
		{"id twice", `{"jsonrpc":"2.0","id":6,"id":1e400,"method":"ping"}`, "null"},
		{"an escaped id", `{"jsonrpc":"2.0","i\u0064":1e400,"method":"ping"}`, "null"},
		{"jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":5,"id":8,"method":"ping"}`, "null"},
		{"a method that is a number", `{"jsonrpc":"2.0","id":9,"method":5}`, "9"},
		{"a response with a huge id", `{"jsonrpc":"2.0","id":1e400,"result":{}}`, "1e400"},
		{"a response whose error is a number", `{"jsonrpc":"2.0","id":1,"error":5}`, "1"},
		{"a response whose code is huge", `{"jsonrpc":"2.0","id":1,"error":{"code":1e400,"message":"x"}}`, "1"},
		{"a response whose message is a number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, "1"},
	} {
		p.send(tc.frame)
		r := p.next()
		if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != tc.id {
			t.Errorf("%s: %+v (error %+v); want -32600 under id %s", tc.name, r, r.Error, tc.id)
		} else {
			t.Logf("%s: %s", tc.name, r.Error.Message)
		}
		p.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		if r := p.next(); string(r.ID) != `"after"` || r.Result == nil {
			t.Fatalf("after %s the server no longer answers: %+v", tc.name, r)
		}
	}
	// A notification (no id) is not answered; a response to nothing the server sent is let
	// through, and the SDK ignores it; a cancellation naming a request by the client's id
	// reaches the SDK under the screen's number for it.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e400}}`)
	p.send(`{"jsonrpc":"2.0","id":424242,"result":{}}`)
	p.send(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	if r := p.next(); string(r.ID) != `"last"` {
		t.Errorf("a notification or a response was answered: %+v", r)
	}
	p.in.Close()
	if err := <-p.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServeAnswersInFlightAtEOF: stdin closing right after a batch of calls (Claude Code
// ending a session) leaves none unanswered: the SDK cancels what is in flight when its
// input ends, so the screen holds the end back until every answer is out.
func TestServeAnswersInFlightAtEOF(t *testing.T) {
	w := newWorld(t)
	w.seed()
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`
	want := map[string]string{"0": "initialize"} // id → what it asked
	for i, id := range hostileIDs {
		want[id] = "search"
		in += `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search","arguments":{"query":"cookie"}}}` + "\n"
		if i%3 == 0 {
			ping := fmt.Sprintf(`"ping-%d"`, i)
			want[ping] = "ping"
			in += `{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}` + "\n"
		}
	}
	var out bytes.Buffer
	if err := New(w.deps(w.webDir)).Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	for {
		var r rawReply
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		asked, ok := want[string(r.ID)]
		switch {
		case !ok:
			t.Errorf("an answer under id %.40s, which was not asked, or twice", r.ID)
		case r.Result == nil || asked == "search" && !strings.Contains(string(r.Result), "Login cookie"):
			t.Errorf("id %.40s (%s): %s (error %+v)", r.ID, asked, r.Result, r.Error)
		}
		delete(want, string(r.ID))
	}
	for id := range want {
		t.Errorf("id %.40s was never answered", id)
	}
}
