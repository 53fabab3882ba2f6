//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// classifyKeys are the stream-json fields an outcome classifier can rely on; the goldens
// are compared on these only, since ids, timings and prose change from run to run.
var classifyKeys = []string{
	"type", "subtype", "apiKeySource", "error", "api_error_status", "api_error_type",
	"is_api_error_message", "is_error", "terminal_reason", "error_status", "attempt", "max_retries",
}

// classified projects every init, api_retry, assistant and result line onto classifyKeys.
func classified(lines []map[string]any) []map[string]any {
	return project(lines, classifyKeys, func(l map[string]any) bool {
		sys := l["type"] == "system" && (l["subtype"] == "init" || l["subtype"] == "api_retry")
		return sys || l["type"] == "assistant" || l["type"] == "result"
	})
}

// project is the lines keep takes, each with only the fields of keys it has.
func project(lines []map[string]any, keys []string, keep func(map[string]any) bool) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if !keep(l) {
			continue
		}
		p := map[string]any{}
		for _, k := range keys {
			if v, ok := l[k]; ok {
				p[k] = v
			}
		}
		out = append(out, p)
	}
	return out
}

// TestErrorStreams pins, for each failure the observer must classify, the stream-json the
// CLI prints (against testdata/streamjson-<name>.jsonl), its exit status, and how many
// requests it made. CLAUDE_CODE_MAX_RETRIES keeps each run short.
func TestErrorStreams(t *testing.T) {
	t.Parallel()
	const token = "sk-ant-oat01-e2e-dummy-oauth-token-0001"
	tests := []struct {
		name         string
		status       int    // mock's answer; 0: the CLI has no credential and must not call
		oauth        bool   // credential is CLAUDE_CODE_OAUTH_TOKEN instead of ANTHROPIC_API_KEY
		retries      string // CLAUDE_CODE_MAX_RETRIES
		wantError    string // the assistant line's "error"
		wantRequests int
	}{
		{name: "401", status: 401, retries: "1", wantError: "authentication_failed", wantRequests: 2},
		{name: "401-oauth", status: 401, oauth: true, retries: "1", wantError: "authentication_failed", wantRequests: 2},
		{name: "403", status: 403, retries: "1", wantError: "authentication_failed", wantRequests: 1},
		{name: "no-credentials", retries: "1", wantError: "authentication_failed", wantRequests: 0},
		{name: "429", status: 429, retries: "1", wantError: "rate_limit", wantRequests: 2},
		{name: "529", status: 529, retries: "0", wantError: "server_error", wantRequests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if tt.status != 0 {
				s.Mock.Handle(mockapi.Any, mockapi.Error(tt.status))
			}
			env := s.env()
			env["CLAUDE_CODE_MAX_RETRIES"] = tt.retries
			switch {
			case tt.status == 0:
				delete(env, "ANTHROPIC_API_KEY")
			case tt.oauth:
				delete(env, "ANTHROPIC_API_KEY")
				env["CLAUDE_CODE_OAUTH_TOKEN"] = token
			}
			r := s.run(observerArgv(), userLine("hello"), env)
			lines := r.lines(t)

			if r.exit != 1 {
				t.Errorf("exit %d, want 1", r.exit)
			}
			if n := len(s.Mock.Messages()); n != tt.wantRequests {
				t.Errorf("%d Messages requests, want %d", n, tt.wantRequests)
			}
			as := of(lines, "assistant", "")
			if len(as) != 1 || as[0]["error"] != tt.wantError || as[0]["is_api_error_message"] != true {
				t.Fatalf("assistant lines %v, want one with error %q", as, tt.wantError)
			}
			res := of(lines, "result", "")
			if len(res) != 1 || res[0]["is_error"] != true || res[0]["terminal_reason"] != "api_error" {
				t.Errorf("result lines %v", res)
			}
			// The HTTP status is on both lines, or (no credential, no call) absent/null.
			var wantStatus any
			if tt.status != 0 {
				wantStatus = float64(tt.status)
			}
			if as[0]["api_error_status"] != wantStatus || len(res) == 1 && res[0]["api_error_status"] != wantStatus {
				t.Errorf("api_error_status: assistant %v, result %v, want %v", as[0]["api_error_status"], res, wantStatus)
			}

			golden := filepath.Join("testdata", "streamjson-"+tt.name+".jsonl")
			if *update {
				out := strings.ReplaceAll(string(r.stdout), s.Root, "/tmp/e2e")
				out = strings.ReplaceAll(out, strings.TrimPrefix(s.Mock.URL(), "http://"), "127.0.0.1:PORT")
				testkit.WriteFile(t, golden, out, 0o644)
			}
			want := classified(readLines(t, golden))
			if got := classified(lines); !reflect.DeepEqual(got, want) {
				t.Errorf("classified fields differ from %s\n got: %s\nwant: %s", golden, mustJSON(got), mustJSON(want))
			}
		})
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tests/e2e -run TestErrorStreams -update to record it)", err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}
