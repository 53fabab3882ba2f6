//go:build linux

package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// measured runs the hook with args in dir under the reaper, which reads the hook's wait4
// rusage: run straight from this test process, the child's peak would start at ours.
func (h *harness) measured(dir string, stdin io.Reader, args ...string) (result, int64) {
	h.t.Helper()
	rssFile := filepath.Join(h.root, "maxrss")
	os.Remove(rssFile)
	cmd := exec.Command(reaper(h.t), append([]string{hookBin}, args...)...)
	cmd.Env = append(h.environ(nil), "REAPER_OUT="+filepath.Join(h.root, "reaped.jsonl"), "REAPER_MAXRSS="+rssFile, "REAPER_WAIT=5s")
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	b, err := os.ReadFile(rssFile)
	if err != nil {
		h.t.Fatal(err)
	}
	kib, _ := strconv.ParseInt(string(b), 10, 64)
	return r, kib << 10 // ru_maxrss is in KiB on Linux
}

// TestHostileInput_DeepNesting: hook input nested past 512 levels is "bad hook input"
// before any parse: exit 0, stderr empty, and a peak RSS under 64 MB, whatever the depth
// (6 million levels, under the 16 MiB cap, used to overflow gjson's stack). The control,
// nested 500 levels, is stored.
func TestHostileInput_DeepNesting(t *testing.T) {
	track(t)
	h := journalHarness(t)
	const limit = 64 << 20
	event := func(id, toolInput string) []byte {
		return []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"deep","cwd":%q,"tool_name":"Bash","tool_use_id":%q,"tool_input":%s,"tool_response":{}}`, h.proj, id, toolInput))
	}
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name   string
		in     []byte
		stored bool
	}{
		{"6 million levels", event("toolu_6m", nest(6_000_000)), false},
		{"1 MiB of [", []byte(`{"hook_event_name":"PostToolUse","x":` + strings.Repeat("[", 1<<20)), false},
		{"513 levels", event("toolu_513", nest(513)), false},
		{"control: 500 levels", event("toolu_500", nest(500)), true},
		{"control: 16 MiB less 1 KiB, flat", event("toolu_big", `{"stdout":"`+strings.Repeat("x", 16<<20-1<<10)+`"}`), true},
	} {
		r, rss := h.measured(h.proj, bytes.NewReader(tc.in))
		if r.code != 0 || r.stderr != "" || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %.200q; want exit 0 and nothing printed", tc.name, r.code, r.stdout, r.stderr)
		}
		if rss == 0 || rss >= limit {
			t.Errorf("%s: peak RSS %.1f MB; want under 64 MB", tc.name, float64(rss)/1e6)
		}
		t.Logf("%s (%.1f MiB of input): peak RSS %.1f MB", tc.name, float64(len(tc.in))/(1<<20), float64(rss)/1e6)
	}
	if got := h.logsAt("warn", "bad hook input ignored"); len(got) != 3 {
		t.Errorf("%d bad-input warnings logged; want 3 (6M, 1 MiB of [, 513)", len(got))
	}
	h.ingest()
	stored, _ := h.storedEvents()
	if stored["toolu_500"] != 1 || stored["toolu_big"] != 1 || stored["toolu_513"]+stored["toolu_6m"] != 0 {
		t.Errorf("stored %v; want only toolu_500 and toolu_big", stored)
	}
}

// mcpReply is one answer of `hook mcp`, its id kept as sent.
type mcpReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// raw sends one frame as written and returns the answer to it.
func (s *mcpSession) raw(frame string) mcpReply {
	s.h.t.Helper()
	if _, err := io.WriteString(s.stdin, frame+"\n"); err != nil {
		s.h.t.Fatalf("hook mcp: %v (stderr %q)", err, s.stderr.String())
	}
	if !s.lines.Scan() {
		s.h.t.Fatalf("hook mcp stopped answering after %.80s (stderr %q)", frame, s.stderr.String())
	}
	s.out.WriteString(s.lines.Text() + "\n")
	var r mcpReply
	if err := json.Unmarshal(s.lines.Bytes(), &r); err != nil {
		s.h.t.Fatalf("hook mcp answered %.200q: %v", s.lines.Text(), err)
	}
	return r
}

// TestHostileInput_MCPIDs: the real `hook mcp` answers each request id past a float64
// (1e400 and -1e999 ended it), past an int64 (2^64+1) or a float64's exact integers
// (2^53+1), a 5,000-digit id, a fraction and a string under that id, byte for byte; a
// null id is refused with -32600 under id null; a notification (no id) is not answered;
// and after each, ping and tools/list still work. Closing stdin ends it with exit 0.
func TestHostileInput_MCPIDs(t *testing.T) {
	track(t)
	h := journalHarness(t)
	s := h.startMCP(h.proj, nil)
	ids := []string{"1e400", "-1e999", "1" + strings.Repeat("7", 4999), "18446744073709551617", "9007199254740993",
		"1.5", "-0", `"a string id"`, `"\u0041\ud800"`, "42"}
	for _, id := range ids {
		r := s.raw(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search","arguments":{"query":"beacon"}}}`)
		if string(r.ID) != id || r.Result == nil {
			t.Errorf("tools/call with id %.30s: answered under %.30s (error %+v); want the same id, byte for byte", id, r.ID, r.Error)
		}
		if r := s.raw(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`); string(r.ID) != id || r.Result == nil {
			t.Errorf("ping with id %.30s: %+v", id, r)
		}
	}
	r := s.raw(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)
	if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "null" {
		t.Errorf("a null id: %+v (error %+v); want -32600 under id null", r, r.Error)
	}
	if _, err := io.WriteString(s.stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e400}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if r := s.raw(`{"jsonrpc":"2.0","id":"after","method":"tools/list"}`); string(r.ID) != `"after"` || !strings.Contains(string(r.Result), `"get_observations"`) {
		t.Errorf("tools/list after the hostile ids (and a notification, unanswered): %+v", r)
	}
	if err := s.close(); err != nil {
		t.Errorf("hook mcp: %v (stderr %q)", err, s.stderr.String())
	}
	if got := h.logsAt("error", "mcp: server stopped"); len(got) != 0 {
		t.Errorf("the server stopped: %+v", got)
	}
}

// TestHostileInput_MCPAnswersAtEOF: stdin closing right after a burst of calls, as Claude
// Code ends a session, still gets every answer out before the real `hook mcp` exits 0.
func TestHostileInput_MCPAnswersAtEOF(t *testing.T) {
	track(t)
	h := journalHarness(t)
	h.prompt("eof", "beacon prompt for the last call")
	s := h.startMCP(h.proj, nil)
	var burst strings.Builder
	want := map[string]bool{}
	for i := range 20 {
		id := fmt.Sprintf(`"call-%d"`, i)
		if i%5 == 4 {
			id = "1" + strings.Repeat("0", 400+i) // and ids the SDK alone misreads
		}
		want[id] = true
		fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search","arguments":{"query":"beacon"}}}`+"\n", id)
	}
	if _, err := io.WriteString(s.stdin, burst.String()); err != nil {
		t.Fatal(err)
	}
	s.stdin.Close()
	for s.lines.Scan() {
		s.out.WriteString(s.lines.Text() + "\n")
		var r mcpReply
		if err := json.Unmarshal(s.lines.Bytes(), &r); err != nil {
			t.Fatalf("hook mcp answered %.200q: %v", s.lines.Text(), err)
		}
		if !want[string(r.ID)] || !strings.Contains(string(r.Result), "beacon prompt") {
			t.Errorf("answer under id %.30s: %.300s (error %+v)", r.ID, r.Result, r.Error)
		}
		delete(want, string(r.ID))
	}
	if err := s.close(); err != nil {
		t.Errorf("hook mcp: %v (stderr %q)", err, s.stderr.String())
	}
	if len(want) > 0 {
		t.Errorf("%d of 20 calls in flight at EOF were never answered", len(want))
	}
}
