package hooks_test

import (
	"encoding/json"
	"github.com/claude-mem/claude-mem-go/internal/fixtures"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/hooks"
)

// fixturesDir is the real Claude Code 2.1.328 capture, beside the repository (as tests/
// finds it); CLAUDE_MEM_FIXTURES overrides it.
func fixturesDir(tb testing.TB) string {
	tb.Helper()
	dir, err := fixtures.Dir()
	if err != nil {
		tb.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Fatalf("fixtures dir %s missing (set CLAUDE_MEM_FIXTURES): %v", dir, err)
	}
	return dir
}

func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(tb), name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestParseRejectsEveryBadInputWithItsProblem(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		problem   string // substring of the error
		wantEvent string // the event name Parse still returns (SessionStart must still answer)
	}{
		{"empty", "", "empty input", ""},
		{"whitespace", " \t\r\n  ", "empty input", ""},
		{"not JSON", "hello PAYLOAD world", "not valid JSON", ""},
		{"truncated", `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/p","prompt":"PAYL`, "not valid JSON", ""},
		{"truncated after the name", `{"hook_event_name":"SessionStart"`, "not valid JSON", ""},
		{"two objects", `{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"} {}`, "not valid JSON", ""},
		{"byte order mark", "\ufeff" + `{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"}`, "not valid JSON", ""},
		{"array", `[{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"}]`, "not a JSON object", ""},
		{"string", `"SessionStart"`, "not a JSON object", ""},
		{"number", `42`, "not a JSON object", ""},
		{"null", `null`, "not a JSON object", ""},
		{"event missing", `{"session_id":"s1","cwd":"/p"}`, "hook_event_name missing", ""},
		{"event a number", `{"hook_event_name":42,"session_id":"s1","cwd":"/p"}`, "hook_event_name is not a string", ""},
		{"event null", `{"hook_event_name":null,"session_id":"s1","cwd":"/p"}`, "hook_event_name is not a string", ""},
		{"event an object", `{"hook_event_name":{"x":"SessionStart"},"session_id":"s1","cwd":"/p"}`, "hook_event_name is not a string", ""},
		{"event an array", `{"hook_event_name":["SessionStart"],"session_id":"s1","cwd":"/p"}`, "hook_event_name is not a string", ""},
		{"cwd missing", `{"hook_event_name":"SessionStart","session_id":"s1"}`, "cwd missing", hooks.SessionStart},
		{"cwd empty", `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":""}`, "cwd missing", hooks.UserPromptSubmit},
		{"cwd not a string", `{"hook_event_name":"PostToolUse","session_id":"s1","cwd":7}`, "cwd missing", hooks.PostToolUse},
		{"cwd relative", `{"hook_event_name":"SessionStart","session_id":"s1","cwd":"proj"}`, "cwd is not an absolute path", hooks.SessionStart},
		{"cwd dot relative", `{"hook_event_name":"Stop","session_id":"s1","cwd":"./proj"}`, "cwd is not an absolute path", hooks.Stop},
		{"cwd windows drive-relative", `{"hook_event_name":"SessionEnd","session_id":"s1","cwd":"C:proj"}`, "cwd is not an absolute path", hooks.SessionEnd},
		{"session_id missing", `{"hook_event_name":"SessionStart","cwd":"/p"}`, "session_id missing", hooks.SessionStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := hooks.Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, nil; want an error naming %q", tc.in, in, tc.problem)
			}
			var bad *hooks.BadInputError
			if !asBadInput(err, &bad) {
				t.Fatalf("error %T %v is not a *hooks.BadInputError", err, err)
			}
			if !strings.Contains(err.Error(), tc.problem) {
				t.Errorf("error %q does not name %q", err, tc.problem)
			}
			if strings.Contains(err.Error(), "PAYL") {
				t.Errorf("error %q carries the payload", err)
			}
			if in.Event != tc.wantEvent {
				t.Errorf("Event = %q, want %q", in.Event, tc.wantEvent)
			}
		})
	}
}

func asBadInput(err error, dst **hooks.BadInputError) bool {
	b, ok := err.(*hooks.BadInputError)
	*dst = b
	return ok
}

func TestParseAcceptsUnknownEventsWithoutCheckingTheirFields(t *testing.T) {
	in, err := hooks.Parse(`{"hook_event_name":"SomethingNew"}`)
	if err != nil || in.Event != "SomethingNew" {
		t.Fatalf("Parse = %+v, %v; want Event SomethingNew and no error (Dispatch ignores it)", in, err)
	}
}

func TestParseAcceptsWindowsAbsoluteCwd(t *testing.T) {
	for _, cwd := range []string{`C:\Users\me\proj`, `c:/Users/me/proj`, `Z:\`, `\\server\share\proj`} {
		data := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":` + strconv.Quote(cwd) + `,"prompt":"hi"}`
		in, err := hooks.Parse(data)
		if err != nil || in.Cwd != cwd {
			t.Errorf("cwd %q: Parse = %q, %v; want accepted unchanged", cwd, in.Cwd, err)
		}
	}
	for _, cwd := range []string{`C:proj`, `1:\x`, `\proj`, `proj\x`} {
		data := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":` + strconv.Quote(cwd) + `}`
		if _, err := hooks.Parse(data); err == nil || !strings.Contains(err.Error(), "absolute") {
			t.Errorf("cwd %q: err = %v, want 'not an absolute path'", cwd, err)
		}
	}
}

func TestParseReplacesInvalidUTF8InsideStringsWithReplacementChar(t *testing.T) {
	data := "{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"s\xff1\",\"cwd\":\"/tmp/p\xc3\"," +
		"\"prompt\":\"a\xffb\xe2\x82\",\"tool_name\":\"Ba\xfesh\",\"tool_input\":{\"command\":\"x\xc0y\"}," +
		"\"tool_response\":\"\\ud800lone\"}"
	in, err := hooks.Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v; invalid UTF-8 inside strings must be accepted", err)
	}
	for field, got := range map[string]string{
		"SessionID": in.SessionID, "Cwd": in.Cwd, "Prompt": in.Prompt, "ToolName": in.ToolName,
		"ToolInput": in.ToolInput, "ToolResponse": in.ToolResponse,
	} {
		if !utf8.ValidString(got) {
			t.Errorf("%s = %q is not valid UTF-8", field, got)
		}
	}
	want := map[string]string{
		"SessionID": "s\uFFFD1", "Cwd": "/tmp/p\uFFFD", "Prompt": "a\uFFFDb\uFFFD", "ToolName": "Ba\uFFFDsh",
		"ToolInput": "{\"command\":\"x\uFFFDy\"}",
	}
	got := map[string]string{
		"SessionID": in.SessionID, "Cwd": in.Cwd, "Prompt": in.Prompt, "ToolName": in.ToolName, "ToolInput": in.ToolInput,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	// An escaped lone surrogate stays escaped in raw JSON text; it is valid UTF-8 either way.
	if in.ToolResponse != `"\ud800lone"` {
		t.Errorf("ToolResponse = %q, want the raw JSON text", in.ToolResponse)
	}
	p, err := hooks.Parse(`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"/p","prompt":"\ud800x"}`)
	if err != nil || p.Prompt != "\uFFFDx" {
		t.Errorf("escaped lone surrogate: Prompt = %q, %v; want U+FFFD then x", p.Prompt, err)
	}
	e, err := hooks.Parse("{\"hook_event_name\":\"Session\xffStart\",\"session_id\":\"s\",\"cwd\":\"/p\"}")
	if err != nil || e.Event != "Session\uFFFDStart" {
		t.Errorf("event name with invalid UTF-8: %q, %v; want it cleaned (and so unknown)", e.Event, err)
	}
}

func TestParseTakesTheFirstOfDuplicateKeys(t *testing.T) {
	in, err := hooks.Parse(`{"hook_event_name":"SessionStart","session_id":"a","cwd":"/p","hook_event_name":"Stop","session_id":"b","cwd":"rel"}`)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if in.Event != hooks.SessionStart || in.SessionID != "a" || in.Cwd != "/p" {
		t.Errorf("got %+v; want the first value of every duplicated key", in)
	}
}

func TestParseExtractsEveryFieldOfTheRealFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want hooks.Input
	}{
		{"SessionStart-startup.json", hooks.Input{Event: hooks.SessionStart, SessionID: "b1423f95-4b1a-43c5-b9b9-c914faaa4144", Source: "startup"}},
		{"SessionStart-resume.json", hooks.Input{Event: hooks.SessionStart, SessionID: "32ed7617-5bb2-45ff-9dbc-70c8e48f58ef", Source: "resume"}},
		{"SessionStart-clear.json", hooks.Input{Event: hooks.SessionStart, SessionID: "78bad153-9eff-491f-98b0-f1c907bfeaa2", Source: "clear"}},
		{"SessionStart-compact.json", hooks.Input{Event: hooks.SessionStart, SessionID: "32ed7617-5bb2-45ff-9dbc-70c8e48f58ef", Source: "compact"}},
		{"UserPromptSubmit-prompt.json", hooks.Input{Event: hooks.UserPromptSubmit, SessionID: "b1423f95-4b1a-43c5-b9b9-c914faaa4144", Prompt: "hello there"}},
		{"PostToolUse-Bash.json", hooks.Input{Event: hooks.PostToolUse, SessionID: "32ed7617-5bb2-45ff-9dbc-70c8e48f58ef",
			ToolName: "Bash", ToolUseID: "toolu_0000_2",
			ToolInput:    "{\n    \"command\": \"echo bash-ran\",\n    \"description\": \"echo\"\n  }",
			ToolResponse: "{\n    \"stdout\": \"bash-ran\",\n    \"stderr\": \"\",\n    \"interrupted\": false,\n    \"isImage\": false,\n    \"noOutputExpected\": false\n  }"}},
		{"PostToolUseFailure-Bash-exit3.json", hooks.Input{Event: hooks.PostToolUseFailure, SessionID: "a60708bf-dac5-470d-abba-5f7af7791cdd",
			ToolName: "Bash", ToolUseID: "toolu_0002_0",
			ToolInput:    "{\n    \"command\": \"echo failing >&2; exit 3\",\n    \"description\": \"fail\"\n  }",
			ToolResponse: "Exit code 3\nfailing", IsError: true}},
		{"Stop-basic.json", hooks.Input{Event: hooks.Stop, SessionID: "b1423f95-4b1a-43c5-b9b9-c914faaa4144", LastMessage: "Done."}},
		{"SessionEnd-clear.json", hooks.Input{Event: hooks.SessionEnd, SessionID: "32ed7617-5bb2-45ff-9dbc-70c8e48f58ef", Reason: "clear"}},
		{"SessionEnd-other.json", hooks.Input{Event: hooks.SessionEnd, SessionID: "b1423f95-4b1a-43c5-b9b9-c914faaa4144", Reason: "other"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := hooks.Parse(string(readFixture(t, tc.file)))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tc.want.Cwd = "/home/user/project"
			tc.want.TranscriptPath = "/home/user/.claude/projects/-home-user-project/" + tc.want.SessionID + ".jsonl"
			if got != tc.want {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

var markerRE = regexp.MustCompile(`\n…\[claude-mem: (\d+) bytes omitted\]…\n`)

// splitShortened returns the head, the omitted count and the tail of clip.HeadTail's output.
func splitShortened(t *testing.T, out string) (head string, omitted int, tail string) {
	t.Helper()
	loc := markerRE.FindAllStringSubmatchIndex(out, -1)
	if len(loc) == 0 {
		t.Fatalf("no marker in %q", out)
	}
	l := loc[len(loc)-1]
	n, _ := strconv.Atoi(out[l[2]:l[3]])
	return out[:l[0]], n, out[l[1]:]
}

func TestShortenLeavesAStringWithinMaxUnchanged(t *testing.T) {
	for _, tc := range []struct {
		s   string
		max int
	}{{"", 0}, {"", 10}, {"abc", 3}, {"abc", 4}, {"héllo", 6}, {strings.Repeat("x", hooks.MaxField), hooks.MaxField}} {
		if got := clip.HeadTail(tc.s, tc.max); got != tc.s {
			t.Errorf("Shorten(%d bytes, %d) = %d bytes, want unchanged", len(tc.s), tc.max, len(got))
		}
	}
}

func TestShortenKeepsExactHeadAndTailAroundTheMarker(t *testing.T) {
	s := strings.Repeat("0123456789", 10) // 100 bytes
	got := clip.HeadTail(s, 10)
	want := s[:5] + "\n…[claude-mem: 90 bytes omitted]…\n" + s[95:]
	if got != want {
		t.Errorf("Shorten(100 bytes, 10) = %q, want %q", got, want)
	}
	// An odd max keeps max-1 bytes: half at each end.
	if got, want := clip.HeadTail(s, 11), s[:5]+"\n…[claude-mem: 90 bytes omitted]…\n"+s[95:]; got != want {
		t.Errorf("Shorten(100 bytes, 11) = %q, want %q", got, want)
	}
	// One byte over 16 KiB: 8 KiB of head, 8 KiB of tail, one byte omitted.
	big := strings.Repeat("a", hooks.MaxField/2) + "X" + strings.Repeat("b", hooks.MaxField/2)
	out := clip.HeadTail(big, hooks.MaxField)
	head, omitted, tail := splitShortened(t, out)
	if head != strings.Repeat("a", hooks.MaxField/2) || tail != strings.Repeat("b", hooks.MaxField/2) || omitted != 1 {
		t.Errorf("Shorten(16 KiB + 1) kept head %d, tail %d, omitted %d; want 8192, 8192, 1", len(head), len(tail), omitted)
	}
	if want := hooks.MaxField + len("\n…[claude-mem: 1 bytes omitted]…\n"); len(out) != want {
		t.Errorf("len = %d, want %d", len(out), want)
	}
}

func TestShortenNeverSplitsAUTF8Sequence(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("é", 40),            // 2-byte runes
		strings.Repeat("€", 40),            // 3-byte runes
		strings.Repeat("😀", 40),            // 4-byte runes
		strings.Repeat("aé€😀", 15) + "end", // mixed widths
	} {
		for max := 0; max < len(s); max++ {
			out := clip.HeadTail(s, max)
			if !utf8.ValidString(out) {
				t.Fatalf("Shorten(%q, %d) = %q: invalid UTF-8", s[:8], max, out)
			}
			head, omitted, tail := splitShortened(t, out)
			switch {
			case !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail):
				t.Fatalf("max %d: head/tail are not the input's ends", max)
			case len(head)+omitted+len(tail) != len(s):
				t.Fatalf("max %d: head %d + omitted %d + tail %d != %d", max, len(head), omitted, len(tail), len(s))
			case len(head) > max/2 || len(tail) > max/2:
				t.Fatalf("max %d: head %d or tail %d over half of max", max, len(head), len(tail))
			case len(head) < max/2-3 || len(tail) < max/2-3:
				t.Fatalf("max %d: head %d or tail %d gave up more than one rune", max, len(head), len(tail))
			}
		}
	}
}

func TestStripPrivateRemovesPrivateSpans(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no tags", "fix the parser", "fix the parser"},
		{"one span", "use key <private>sk-secret</private> now", "use key  now"},
		{"two spans", "<private>a</private>mid<private>b</private>end", "midend"},
		{"multiline span", "before\n<private>line1\nline2\n</private>\nafter", "before\n\nafter"},
		{"upper case", "x <PRIVATE>secret</PRIVATE> y", "x  y"},
		{"mixed case", "x <Private>secret</pRiVaTe> y", "x  y"},
		{"unclosed hides the rest", "keep this <private>secret\nand more secret", "keep this"},
		{"unclosed after a closed span", "a<private>s1</private>b<private>s2", "ab"},
		{"only private", "  <private>all of it</private>  ", ""},
		{"trimmed", "  hello  ", "hello"},
		{"stray close tag dropped", "a </private> b", "a  b"},
		{"space before >", "x <private >secret</private > y", "x  y"},
		{"newline before >", "x <private\n>secret</private\n> y", "x  y"},
		{"space after <", "x < private>secret< / private > y", "x  y"},
		{"tab and case", "x <PRIVATE\t>secret</Private\t> y", "x  y"},
		{"nested", "a<private>x<private>secret</private>secret</private>b", "ab"},
		{"nested spaced", "a<private >x< private>secret</private>secret</private >b", "ab"},
		{"joined by a removal", "a<priv<private>x</private>ate>secret</private>b", "ab"},
		// Inside a span nothing is joined: the inner span is private already, so the broken
		// closer leaves the outer one open, and it hides the rest.
		{"broken closer inside a span", "a<private>secret</priv<private>x</private>ate>b", "a"},
		{"spaced unclosed hides the rest", "keep <private\n>secret", "keep"},
		{"not a tag: no >", "a <private word", "a <private word"},
		{"not a tag: other word", "a <privacy> b", "a <privacy> b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hooks.StripPrivate(tc.in)
			if got != tc.want {
				t.Errorf("StripPrivate(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.Contains(strings.ToLower(got), "secret") {
				t.Errorf("private text leaked: %q", got)
			}
		})
	}
}

// TestStripPrivateLinear: removing private spans costs in proportion to the text, on
// inputs made to defeat it (deep nesting, tags that each removal joins anew, long runs of
// near-tags): 8 MiB costs under 24 times 1 MiB (linear: 8; quadratic, as one pass per
// joined tag repeated until none remains would be: 64). Both sizes are past the caches, so
// the ratio is the algorithm's; each size's best of five runs, each after a GC.
func TestStripPrivateLinear(t *testing.T) {
	shapes := map[string]func(n int) string{
		"nested": func(n int) string { return strings.Repeat("<private>a", n/10) },
		"joined": func(n int) string {
			return strings.Repeat("<priv", n/10) + "<private></private>" + strings.Repeat("ate>", n/10)
		},
		"spaced":  func(n int) string { return strings.Repeat("<"+strings.Repeat(" ", 15)+"privat>", n/23) },
		"closers": func(n int) string { return strings.Repeat("x</private >", n/12) },
	}
	best := func(s string) time.Duration {
		d := time.Duration(math.MaxInt64)
		for range 5 {
			runtime.GC()
			start := time.Now()
			hooks.StripPrivate(s)
			d = min(d, time.Since(start))
		}
		return d
	}
	for name, make := range shapes {
		small, large := best(make(1<<20)), best(make(8<<20))
		ratio := float64(large) / float64(small)
		t.Logf("%s: 1 MiB %v, 8 MiB %v (ratio %.1f)", name, small, large, ratio)
		if ratio > 24 {
			t.Errorf("%s: 8 MiB took %.1f times as long as 1 MiB (%v, %v); want under 24 (linear: 8)", name, ratio, large, small)
		}
	}
}

// The long text fields (prompt, last_assistant_message, error) are decoded by Parse's own
// scan, into one copy: each decodes as encoding/json does, wherever the member sits (after
// nested values, strings holding braces and quotes, an escaped key), the first of two
// members named alike winning as in gjson.
func TestParseDecodesTextFieldsAsJSON(t *testing.T) {
	values := []string{
		`"plain"`, `""`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"lone \ud83d here"`,
		`"pair split \ud83d\u0041"`, `"<&>\u2028"`, `"tail\\"`, `"\\u0041 is not an escape"`,
	}
	for _, v := range values {
		var want string
		if err := json.Unmarshal([]byte(v), &want); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		for _, doc := range []string{
			`{"hook_event_name":"Stop","prompt":` + v + `,"last_assistant_message":` + v + `}`,
			` { "x" : {"prompt":"no","a":["}",{"b":"\"]"}]} , "n":-1.5e3,"t":true,"z":null, "prompt" : ` + v + ` , "last_assistant_message":` + v + `, "hook_event_name":"Stop" } `,
			`{"hook_event_name":"Stop","pro\u006dpt":` + v + `,"prompt":"second","last_assistant_message":` + v + `,"last_assistant_message":"second"}`,
		} {
			in, _ := hooks.Parse(doc)
			if in.Prompt != want || in.LastMessage != want {
				t.Errorf("%s in %s: prompt %q, answer %q; want %q", v, doc, in.Prompt, in.LastMessage, want)
			}
		}
	}
	in, _ := hooks.Parse(`{"hook_event_name":"PostToolUseFailure","error":"bad \"x\"\n"}`)
	if in.ToolResponse != "bad \"x\"\n" || !in.IsError {
		t.Errorf("error: %q", in.ToolResponse)
	}
	in, _ = hooks.Parse(`{"hook_event_name":"Stop","prompt":12}`)
	if in.Prompt != "" {
		t.Errorf("a number is no prompt: %q", in.Prompt)
	}
}
