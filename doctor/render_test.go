package doctor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
)

// TestVerdictAndMarkers: over every kind of finding doctor can build cheaply, each is a
// problem (marked !, and the verdict is not ok) or a note (marked ·, and alone it leaves
// the verdict ok): never a ! under an ok verdict.
func TestVerdictAndMarkers(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const key = "sk-ant-api03-doctor-test-key-0000000000"
	for _, tc := range []struct {
		name    string
		env     settings.Env
		prepare func(t *testing.T, data string, j *journal.Journal)
		want    string // a finding's start
		problem bool
	}{
		{"healthy: no finding", nil, nil, "", false},
		{"observer off", settings.Env{envname.MaxConcurrentAgents: "0"}, nil, "observer off", false},
		{"redaction off", settings.Env{envname.RedactSecrets: "false"}, nil, "secrets in captured content are stored as is", false},
		{"a setting's error", settings.Env{envname.ObserverTimeout: "soon"}, nil, "claude-mem: settings error", true},
		{"no credential", settings.Env{"ANTHROPIC_API_KEY": ""}, nil, "claude-mem: not signed in yet", true},
		{"claude not found", settings.Env{"CLAUDE_MEM_CLAUDE_PATH": filepath.Join(dir, "nowhere")}, nil, "claude-mem: setup required", true},
		{"paused", nil, func(t *testing.T, data string, _ *journal.Journal) {
			if err := health.Update(data, now, func(h *health.Health) { h.Pause(now, time.Hour, "fp", "auth failed: 401") }); err != nil {
				t.Fatal(err)
			}
		}, "observer paused until", true},
		{"a refused fallback dir", nil, func(t *testing.T, _ string, j *journal.Journal) {
			if err := os.MkdirAll(j.Fallbacks[0], 0o700); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Dir(j.Fallbacks[0]), 0o777)
		}, "journal: ", false},
		{"a stuck record", nil, func(t *testing.T, _ string, j *journal.Journal) {
			old := journal.New(filepath.Dir(j.Dir), "", "", "", "", func() time.Time { return now.Add(-time.Hour) })
			if _, err := old.Append(journal.Record{Kind: "prompt", Session: "s1", Project: "p", Text: "hi"}); err != nil {
				t.Fatal(err)
			}
		}, "claude-mem: events not stored", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			data := filepath.Join(root, "data")
			env := settings.Env{"HOME": root, envname.DataDir: data, "ANTHROPIC_API_KEY": key, "CLAUDE_MEM_CLAUDE_PATH": claude, "PATH": ""}
			for k, v := range tc.env {
				if v == "" {
					delete(env, k)
				} else {
					env[k] = v
				}
			}
			if err := os.MkdirAll(data, 0o700); err != nil {
				t.Fatal(err)
			}
			j := journal.New(data, "", filepath.Join(root, "cache"), "", "", func() time.Time { return now })
			if tc.prepare != nil {
				tc.prepare(t, data, j)
			}
			s, err := settings.Load(env, "", runtime.GOOS)
			if err != nil {
				t.Fatal(err)
			}
			r := Build(context.Background(), Inputs{Version: "test", Hook: "/x/bin/hook", Settings: s, Env: env, GOOS: runtime.GOOS,
				Home: root, Now: func() time.Time { return now }, Memory: memory.Memory{DataDir: s.DataDir, Journal: j}})
			var out bytes.Buffer
			Render(&out, r, false, 100)
			text := out.String()
			head, _, _ := strings.Cut(text, "\n")
			problems := strings.Count(text, "\n  "+problemMark+" ")
			if r.OK != (r.Problems == 0) || r.OK != strings.HasSuffix(head, "— ok") || r.OK != (problems == 0) || problems != r.Problems {
				t.Errorf("ok %v with %d problems, verdict %q, %d lines marked %s:\n%s", r.OK, r.Problems, head, problems, problemMark, text)
			}
			if tc.want == "" {
				if len(r.Findings) != 0 || !r.OK {
					t.Errorf("healthy: findings %q, ok %v", r.Findings, r.OK)
				}
				return
			}
			mark := noteMark
			if tc.problem {
				mark = problemMark
			}
			if !strings.Contains(text, "\n  "+mark+" "+tc.want) {
				t.Errorf("no finding %q… marked %s:\n%s", tc.want, mark, text)
			}
			if !tc.problem && !r.OK {
				t.Errorf("a note failed the verdict: %q", r.Findings)
			}
		})
	}
}

// TestWrapFinding: a finding wraps at the width, continued under its text, a `quoted`
// span is never broken, and the command after its final "run: " has a line of its own.
func TestWrapFinding(t *testing.T) {
	f := "claude-mem: the memory tools are not allowed — Claude asks at every call (claude -p refuses them), and `claude mcp list` shows them; run: claude-mem allow-tools"
	for _, width := range []int{40, 60, 100} {
		got := wrapFinding(problemMark, f, width)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if last := lines[len(lines)-1]; last != "      claude-mem allow-tools" {
			t.Errorf("width %d: last line %q, want the command alone, indented", width, last)
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line %d has %d columns: %q", width, i, n, l)
			}
			if i > 0 && !strings.HasPrefix(l, "    ") {
				t.Errorf("width %d: line %d not indented under the text: %q", width, i, l)
			}
		}
		if !strings.Contains(got, "`claude mcp list`") {
			t.Errorf("width %d: the quoted command was broken:\n%s", width, got)
		}
		if unwrapped(got) != unwrapped("! "+strings.Replace(f, "run: ", "run: ", 1)) {
			t.Errorf("width %d: the text changed:\n%s", width, got)
		}
	}
	// A finding with no command, and one whose last "run: " is followed by more prose:
	// wrapped only.
	for _, f := range []string{"observer off (CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0): capture, context and search keep working",
		"run: x; then something else"} {
		if got := wrapFinding(noteMark, f, 100); got != "  "+noteMark+" "+f+"\n" {
			t.Errorf("%q wrapped as %q", f, got)
		}
	}
}

// fakeClock is Retry's clock: After advances it by the wait asked and fires at once.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	c.t = c.t.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.t
	return ch
}

// TestRetry: the pass clears the pause, starts the runs and waits for them to end, up to
// RetryWait or the observer timeout when less, drawing progress each second; each step's
// failure is said as that step's.
func TestRetry(t *testing.T) {
	for _, tc := range []struct {
		name      string
		runs      int
		endsAfter time.Duration // -1: never
		timeout   time.Duration
		wantEnded bool
		wantWait  time.Duration
	}{
		{"the run ends in 3s", 1, 3 * time.Second, 300 * time.Second, true, 3 * time.Second},
		{"a run that outlasts the wait", 2, -1, 300 * time.Second, false, RetryWait},
		{"an observer timeout under the wait bounds it", 1, -1, 5 * time.Second, false, 5 * time.Second},
		{"nothing waits", 0, -1, 300 * time.Second, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
			start := c.t
			done := make(chan struct{})
			var cleared bool
			var progress []time.Duration
			r := Retry{
				ClearPause: func() error { cleared = true; return nil },
				Start: func(context.Context) (int, <-chan struct{}, error) {
					return tc.runs, done, nil
				},
				Timeout: tc.timeout, Now: c.now,
				After: func(d time.Duration) <-chan time.Time {
					ch := c.after(d)
					if tc.endsAfter >= 0 && c.t.Sub(start) >= tc.endsAfter {
						select {
						case <-done:
						default:
							close(done)
						}
						return nil // the run's end is seen first
					}
					return ch
				},
				Progress: func(d time.Duration) { progress = append(progress, d) },
			}
			res, err := r.Run(context.Background())
			if err != nil || !cleared {
				t.Fatalf("err %v, cleared %v", err, cleared)
			}
			if res.Runs != tc.runs || res.Ended != tc.wantEnded || res.Waited != tc.wantWait {
				t.Errorf("%+v; want %d runs, ended %v after %s", res, tc.runs, tc.wantEnded, tc.wantWait)
			}
			if tc.runs > 0 && len(progress) == 0 || len(progress) > int(tc.wantWait/time.Second) {
				t.Errorf("progress drawn at %v", progress)
			}
			t.Logf("%s", res.Line())
		})
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		r       Retry
		cleared bool
	}{
		{"clearing fails", Retry{ClearPause: func() error { return boom }}, false},
		{"starting fails", Retry{ClearPause: func() error { return nil }, Start: func(context.Context) (int, <-chan struct{}, error) { return 0, nil, boom }}, true},
	} {
		_, err := tc.r.Run(context.Background())
		var re *RetryError
		if !errors.As(err, &re) || re.Cleared != tc.cleared || !errors.Is(err, boom) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
