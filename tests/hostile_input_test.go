//go:build linux

package tests

import (
	"bytes"
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
