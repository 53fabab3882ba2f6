package spawn

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

func fixtureLines(t *testing.T, name string) [][]byte {
	t.Helper()
	return linesIn(t, fixture(t, name))
}

// linesIn is the file's lines that are not blank.
func linesIn(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func lines(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, l := range s {
		out[i] = []byte(l)
	}
	return out
}

const (
	okResult   = `{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"result":"<observation><title>t</title></observation>"}`
	initLine   = `{"type":"system","subtype":"init","tools":[]}`
	retry401   = `{"type":"system","subtype":"api_retry","attempt":1,"error_status":401,"error":"authentication_failed"}`
	retry529   = `{"type":"system","subtype":"api_retry","attempt":1,"error_status":529,"error":"overloaded"}`
	assistant  = `{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}`
	garbageOne = `Error: something printed prose to stdout`
	garbageTwo = `{"type":"result","is_error":false,` // cut short
)

func TestClassifyFixtures(t *testing.T) {
	cases := []struct {
		file       string
		exit       int
		want       vocab.Outcome
		wantReason string // substring
		wantText   string
	}{
		{"streamjson-out-no-credentials.jsonl", 1, vocab.OutcomeAuthFailed, "Not logged in · Please run /login", ""},
		{"streamjson-out-401-maxretries0.jsonl", 1, vocab.OutcomeAuthFailed, "Invalid API key · Fix external API key", ""},
		{"streamjson-out-401-apikey-after-10-retries.jsonl", 1, vocab.OutcomeAuthFailed, "Invalid API key · Fix external API key", ""},
		{"streamjson-out-403.jsonl", 1, vocab.OutcomeAuthFailed, "Failed to authenticate. API Error: 403", ""},
		{"streamjson-out-single-message.jsonl", 0, vocab.OutcomeOK, "", "Done."},
		{"streamjson-out-three-msgs-at-once.jsonl", 0, vocab.OutcomeOK, "", "Done.\nDone."},
		{"streamjson-out-two-turns-with-Bash-tool.jsonl", 0, vocab.OutcomeOK, "", "Done.\nDone."},
		{"streamjson-out-include-hook-events.jsonl", 0, vocab.OutcomeOK, "", "Done."},
		{"streamjson-out-SessionStart-exit2.jsonl", 0, vocab.OutcomeOK, "", "Done."},
		{"streamjson-out-SessionStart-timeout.jsonl", 0, vocab.OutcomeOK, "", "Done."},
		{"streamjson-out-error_max_turns.jsonl", 1, vocab.OutcomeError, "error_max_turns (max_turns): Reached maximum number of turns (1)", ""},
	}
	// Every fixture stream is classified here: a new one must be added to the table.
	all, _ := filepath.Glob(filepath.Join(filepath.Dir(fixture(t, cases[0].file)), "streamjson-out-*.jsonl"))
	if len(all) != len(cases) {
		t.Errorf("%d fixture streams, %d cases", len(all), len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			ls := fixtureLines(t, tc.file)
			got, reason := Classify(ls, tc.exit, false)
			if got != tc.want || !strings.Contains(reason, tc.wantReason) || (tc.want == vocab.OutcomeOK) != (reason == "") {
				t.Errorf("got %s %q, want %s %q", got, reason, tc.want, tc.wantReason)
			}
			if text := scan(ls).text(); tc.want == vocab.OutcomeOK && text != tc.wantText {
				t.Errorf("text %q, want %q", text, tc.wantText)
			}
			// The same output cut off by a timeout is never ok; an auth failure stays one.
			if got, _ := Classify(ls, -1, true); (tc.want == vocab.OutcomeAuthFailed) != (got == vocab.OutcomeAuthFailed) || got == vocab.OutcomeOK {
				t.Errorf("timed out: %s", got)
			}
		})
	}
}

func TestClassifySynthetic(t *testing.T) {
	cases := []struct {
		name       string
		lines      [][]byte
		exit       int
		timedOut   bool
		want       vocab.Outcome
		wantReason string
	}{
		{"ok", lines(initLine, assistant, okResult), 0, false, vocab.OutcomeOK, ""},
		{"ok among garbage lines", lines(garbageOne, initLine, "", garbageTwo, "\x00\xff", okResult), 0, false, vocab.OutcomeOK, ""},
		{"429 on the assistant message", lines(initLine,
			`{"type":"assistant","error":"rate_limit","api_error_status":429,"message":{"content":[{"type":"text","text":"API Error: 429 rate limited"}]}}`,
			`{"type":"result","is_error":true,"api_error_status":429,"result":"API Error: 429 rate limited"}`), 1, false, vocab.OutcomeTransient, "429 rate limited"},
		{"529 on the result", lines(initLine, `{"type":"result","is_error":true,"api_error_status":529,"api_error_type":"overloaded_error","result":"Overloaded"}`),
			1, false, vocab.OutcomeTransient, "Overloaded"},
		{"overloaded error without status", lines(`{"type":"assistant","error":"overloaded","message":{"content":[]}}`),
			1, false, vocab.OutcomeTransient, "API error overloaded"},
		{"retries on 529 then success", lines(initLine, retry529, retry529, okResult), 0, false, vocab.OutcomeOK, ""},
		{"retries on 529 then a crash", lines(initLine, retry529), 1, false, vocab.OutcomeTransient, "529 overloaded (while retrying)"},
		{"retries on 401 then a timeout", lines(initLine, retry401), -1, true, vocab.OutcomeAuthFailed, "401 authentication_failed"},
		{"a timeout", lines(initLine, assistant), -1, true, vocab.OutcomeTransient, "timed out"},
		{"a timeout after an ok result", lines(initLine, okResult), -1, true, vocab.OutcomeTransient, "timed out"},
		{"no output, exit 1", nil, 1, false, vocab.OutcomeError, "exited with code 1 without a result"},
		{"killed by a signal", lines(initLine), -1, false, vocab.OutcomeError, "killed by a signal without a result"},
		{"only garbage, exit 0", lines(garbageOne, garbageTwo), 0, false, vocab.OutcomeError, "no result line"},
		{"ok result but exit 1", lines(okResult), 1, false, vocab.OutcomeError, "exited with code 1 after its result"},
		{"error result", lines(`{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"result":"API Error: 400 prompt is too long"}`),
			1, false, vocab.OutcomeError, "error result: API Error: 400 prompt is too long"},
		{"an error result among ok ones", lines(okResult, `{"type":"result","subtype":"error_during_execution","is_error":true}`, okResult),
			0, false, vocab.OutcomeError, "error_during_execution"},
		{"prose that talks about a 401 is not an auth failure", lines(
			`{"type":"assistant","message":{"content":[{"type":"text","text":"authentication_failed api_error_status 401"}]}}`, okResult),
			0, false, vocab.OutcomeOK, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := Classify(tc.lines, tc.exit, tc.timedOut)
			if got != tc.want || !strings.Contains(reason, tc.wantReason) || (got == vocab.OutcomeOK) != (reason == "") {
				t.Errorf("got %s %q, want %s %q", got, reason, tc.want, tc.wantReason)
			}
		})
	}
}

func TestUsageFromTheResultLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines [][]byte
		want  store.Usage
		model string
	}{
		{"fixture success", fixtureLines(t, "streamjson-out-single-message.jsonl"),
			store.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.00014000000000000001, DurationMS: 231, DurationAPIMS: 38}, "claude-opus-5-5"},
		{"fixture max turns (an error result still cost money)", fixtureLines(t, "streamjson-out-error_max_turns.jsonl"), store.Usage{}, ""},
		{"no result line: zero", lines(`{"type":"system","subtype":"init","model":"claude-haiku-4-5"}`, assistant), store.Usage{}, "claude-haiku-4-5"},
		{"cache tokens", lines(`{"type":"result","subtype":"success","is_error":false,"total_cost_usd":1.5,"duration_ms":7,"duration_api_ms":6,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4}}`),
			store.Usage{InputTokens: 1, OutputTokens: 2, CacheCreationTokens: 3, CacheReadTokens: 4, CostUSD: 1.5, DurationMS: 7, DurationAPIMS: 6}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scan(tc.lines)
			if tc.name == "fixture max turns (an error result still cost money)" {
				if s.usage.CostUSD <= 0 || s.model == "" {
					t.Fatalf("max turns: usage %+v model %q; want its cost and model", s.usage, s.model)
				}
				return
			}
			if s.usage != tc.want || s.model != tc.model {
				t.Fatalf("usage %+v model %q; want %+v %q", s.usage, s.model, tc.want, tc.model)
			}
		})
	}
}

// An answer cut at the output limit is told by the CLI's error max_output_tokens, on the
// result line or on its synthetic assistant message; the fixtures (their stop reasons are
// end_turn, tool_use, stop_sequence or null) are not cut.
func TestTruncatedAnswer(t *testing.T) {
	for _, name := range []string{"streamjson-out-single-message.jsonl", "streamjson-out-two-turns-with-Bash-tool.jsonl",
		"streamjson-out-error_max_turns.jsonl", "streamjson-out-403.jsonl"} {
		if s := scan(fixtureLines(t, name)); s.truncated {
			t.Errorf("%s: read as truncated", name)
		}
	}
	cutResult := `{"type":"result","subtype":"success","is_error":true,"api_error":"max_output_tokens","result":"API Error: Claude's response exceeded"}`
	cutAssistant := `{"type":"assistant","error":"max_output_tokens","is_api_error_message":true,"message":{"content":[{"type":"text","text":"API Error"}]}}`
	part := `{"type":"assistant","message":{"content":[{"type":"text","text":"<observation><title>t</title></observation><obs"}]}}`
	for name, ls := range map[string][][]byte{
		"result line":       lines(initLine, part, cutResult),
		"assistant message": lines(initLine, part, cutAssistant, okResult),
	} {
		s := scan(ls)
		if !s.truncated {
			t.Errorf("%s: the cut not seen", name)
		}
		if o, why := s.classify(1, ""); o != vocab.OutcomeOK {
			t.Errorf("%s: outcome %s (%s), want ok: the complete part is kept", name, o, why)
		}
		if !strings.HasPrefix(s.text(), "<observation><title>t</title></observation>") || strings.Contains(s.text(), "API Error") {
			t.Errorf("%s: text %q, want the model's part without the CLI's error", name, s.text())
		}
	}
}

// The real CLI's streams of a cut answer (recorded by tests/e2e TestMaxTokensStreams): a cut
// the CLI continued reads as the whole answer, its parts joined (the result line has only
// the last part), not truncated; a cut it gave up on is ok and truncated, with the parts so
// far, so the complete blocks are kept. Neither is an error.
func TestCutAnswersOfTheRealCLI(t *testing.T) {
	const part1 = "<observation><type>bugfix</type><title>Complete one</title></observation>\n<observation><type>change</type><title>Half of"
	for _, tc := range []struct {
		name      string
		exit      int
		text      string
		truncated bool
		continued int
		stored    []string
	}{
		{"max-tokens-continued", 0, part1 + " the second</title></observation>", false, 1, []string{"Complete one", "Half of the second"}},
		// The mock repeats its part where a model would continue it: each "Half of" block
		// ends where the next opens (unclosed, kept); only the last, cut one is dropped.
		{"max-tokens-exhausted", 1, part1 + part1 + part1 + part1, true, 3,
			[]string{"Complete one", "Half of", "Complete one", "Half of", "Complete one", "Half of", "Complete one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scan(linesIn(t, filepath.Join("..", "..", "tests", "e2e", "testdata", "streamjson-"+tc.name+".jsonl")))
			if o, why := s.classify(tc.exit, ""); o != vocab.OutcomeOK {
				t.Errorf("outcome %s (%s), want ok", o, why)
			}
			if got := s.text(); got != tc.text {
				t.Errorf("text %q\nwant %q", got, tc.text)
			}
			if s.truncated != tc.truncated || s.continued != tc.continued {
				t.Errorf("truncated %v, continued %d; want %v, %d", s.truncated, s.continued, tc.truncated, tc.continued)
			}
			var titles []string
			for _, o := range prompt.Parse(s.text(), false, s.truncated).Observations {
				titles = append(titles, o.Title)
			}
			if !slices.Equal(titles, tc.stored) {
				t.Errorf("stored %q, want %q", titles, tc.stored)
			}
		})
	}
}
