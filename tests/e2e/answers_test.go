//go:build unix

package e2e

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// cutKeys are the stream-json fields that tell an answer cut at the output limit.
var cutKeys = []string{"type", "subtype", "isSynthetic", "error", "api_error", "is_api_error_message", "is_error", "stop_reason", "terminal_reason"}

// TestMaxTokensStreams pins what the real CLI prints when the API cuts the observer's
// answer at its output limit (stop_reason max_tokens), which spawn.Classify reads
// (observer/spawn/classify.go, cutError; testdata/streamjson-max-tokens-*.jsonl, read by the
// spawn package's unit tests too): the CLI asks the model to continue with a synthetic user
// message, and its result line holds only the last part's text; after 3 continuations it
// gives up with error max_output_tokens, is_error and exit 1, the parts so far only in the
// assistant lines. The stop_reason of every assistant line is null.
func TestMaxTokensStreams(t *testing.T) {
	t.Parallel()
	const part1 = "<observation><type>bugfix</type><title>Complete one</title></observation>\n<observation><type>change</type><title>Half of"
	const part2 = " the second</title></observation>"
	tests := []struct {
		name         string
		replies      []mockapi.Reply
		wantExit     int
		wantRequests int
		wantResult   string // the result line's text
	}{
		{"max-tokens-continued", []mockapi.Reply{mockapi.MaxTokens(part1), mockapi.Text(part2)}, 0, 2, part2},
		{"max-tokens-exhausted", []mockapi.Reply{mockapi.MaxTokens(part1)}, 1, 4, "API Error: Claude's response exceeded the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			s.Mock.Handle(mockapi.Any, tt.replies...)
			r := s.run(observerArgv(), userLine("the events"), s.env())
			lines := r.lines(t)
			if r.exit != tt.wantExit {
				t.Errorf("exit %d, want %d", r.exit, tt.wantExit)
			}
			if n := len(s.Mock.Messages()); n != tt.wantRequests {
				t.Errorf("%d Messages requests, want %d", n, tt.wantRequests)
			}
			synthetic := 0
			for _, u := range of(lines, "user", "") {
				if u["isSynthetic"] == true {
					synthetic++
				}
			}
			if synthetic != tt.wantRequests-1 {
				t.Errorf("%d synthetic continuation turns, want %d", synthetic, tt.wantRequests-1)
			}
			res := of(lines, "result", "")
			if len(res) != 1 || !strings.HasPrefix(res[0]["result"].(string), tt.wantResult) {
				t.Fatalf("result lines %v, want one with text %q", res, tt.wantResult)
			}
			for _, a := range of(lines, "assistant", "") {
				if m, _ := a["message"].(map[string]any); m["model"] != "<synthetic>" && m["stop_reason"] != nil {
					t.Errorf("an assistant line has stop_reason %v", m["stop_reason"])
				}
			}

			golden := filepath.Join("testdata", "streamjson-"+tt.name+".jsonl")
			if *update {
				out := strings.ReplaceAll(string(r.stdout), s.Root, "/tmp/e2e")
				out = strings.ReplaceAll(out, strings.TrimPrefix(s.Mock.URL(), "http://"), "127.0.0.1:PORT")
				testkit.WriteFile(t, golden, out, 0o644)
			}
			cut := func(l map[string]any) bool {
				return l["type"] == "assistant" || l["type"] == "result" || l["type"] == "user"
			}
			if got, want := project(lines, cutKeys, cut), project(readLines(t, golden), cutKeys, cut); !reflect.DeepEqual(got, want) {
				t.Errorf("fields differ from %s\n got: %s\nwant: %s", golden, mustJSON(got), mustJSON(want))
			}
		})
	}
}
