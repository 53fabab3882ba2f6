package mcpserver

import (
	"context"
	"encoding/json"
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
