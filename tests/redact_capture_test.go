//go:build linux

package tests

// Issue 15, "Shown by": captured secrets are never stored. A prompt and PostToolUse events
// (tool_input and tool_response) carrying a canary of every kind redact.Captured knows go
// through hook mode, Stop's observer (the fake claude records its stdin), `hook search`,
// `hook export`, `hook stats` and `hook doctor`; no canary's secret bytes are in any file
// under the data dir (database, -wal, journal, logs, run dirs, health.json), in any output,
// or in what the observer was sent, while the [REDACTED:<kind>] markers and the counts per
// kind are. The control run with CLAUDE_MEM_REDACT_SECRETS=false finds the canaries where
// the redacted run must not, so every absence asserted here can fail.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// nodeJSON undoes encoding/json's HTML escaping (\u0026, \u003c, \u003e): Claude Code
// writes hook input with JSON.stringify, which leaves &, < and > as they are.
func nodeJSON(b []byte) []byte {
	return []byte(strings.NewReplacer(`\u0026`, "&", `\u003c`, "<", `\u003e`, ">").Replace(string(b)))
}

// canaryRun is what one pass of the capture scenario left and printed.
type canaryRun struct {
	*capturedRun
	sid    string
	doctor doctorRedacted
}

// doctorRedacted is the part of `hook doctor --json` about redaction.
type doctorRedacted struct {
	Findings []string `json:"findings"`
	Redacted *struct {
		Today     map[string]int `json:"today"`
		Last7Days map[string]int `json:"last_7_days"`
	} `json:"redacted"`
}

// promptCanaries are the canaries the user pastes into the prompt: every other kind.
func promptCanaries() []redacttest.Canary {
	var out []redacttest.Canary
	for i, c := range redacttest.Captured() {
		if i%2 == 0 {
			out = append(out, c)
		}
	}
	return out
}

// runCanaries feeds the scenario to a fresh harness with extra settings and collects what
// the product kept and printed.
func runCanaries(t *testing.T, env map[string]string) *canaryRun {
	t.Helper()
	r := &canaryRun{sid: "canary-capture"}
	r.capturedRun = runCaptured(t, env, r.sid, func(h *harness) {
		var prompt strings.Builder
		prompt.WriteString("quokka deploy: the service fails to start, here is my config\n")
		for _, c := range promptCanaries() {
			prompt.WriteString(c.Text + "\n")
		}
		h.prompt(r.sid, prompt.String())
		// One PostToolUse per kind: the canary in the command (tool_input) and in what it
		// printed (tool_response).
		for i, c := range redacttest.Captured() {
			f := h.base(r.sid)
			f["tool_use_id"] = fmt.Sprintf("toolu_canary_%d", i)
			f["tool_input"] = map[string]any{"command": "quokka-" + c.Kind + " && cat <<'EOF'\n" + c.Text + "\nEOF", "description": "show the config"}
			f["tool_response"] = map[string]any{"stdout": c.Text, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
			if out := h.hookMode(nodeJSON(fixtureEvent(t, "PostToolUse-Bash.json", f)), nil); out != "" {
				t.Fatalf("PostToolUse printed %q", out)
			}
		}
	})
	if !strings.Contains(r.stdin, "quokka-") {
		t.Fatalf("the fake claude was not sent the session's events; stdin:\n%.3000s", r.stdin)
	}
	if st := r.h.states(r.sid); st["done"] != len(redacttest.Captured()) {
		t.Fatalf("events %v, want %d done", st, len(redacttest.Captured()))
	}
	if err := json.Unmarshal([]byte(r.doctorJSON), &r.doctor); err != nil {
		t.Fatalf("hook doctor --json: %v\n%s", err, r.doctorJSON)
	}
	return r
}

// workFiles is every regular file under root, read whole.
func workFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			files[p] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// dataDir is every byte the data dir holds, files concatenated (this scenario's rows are
// short enough for a page each; a longer row spans overflow pages, which is why
// capturedRun.stored also reads the database back).
func (r *canaryRun) dataDir() []byte {
	var all bytes.Buffer
	for p, b := range r.files {
		if strings.HasPrefix(p, r.h.data+string(filepath.Separator)) {
			all.Write(b)
		}
	}
	return all.Bytes()
}

// markedEvents counts the session's events whose input and response both hold marker.
func (r *canaryRun) markedEvents(marker string) int {
	return r.h.count(`SELECT count(*) FROM events WHERE session_id = ? AND instr(input, ?) > 0 AND instr(response, ?) > 0`, r.sid, marker, marker)
}

func TestRedactCapture_CanariesNeverStoredSentOrShown(t *testing.T) {
	track(t)
	t.Parallel()
	all := redacttest.Captured()
	r := runCanaries(t, nil)
	h := r.h

	// Files: every file under the data dir, each read whole as raw bytes (the database,
	// its -wal and -journal, the capture journal, logs, the run dir, health.json), and the
	// rest of $WORK (the home, where the fallback journal would be).
	var names []string
	for p, b := range r.files {
		rel, _ := filepath.Rel(h.work, p)
		names = append(names, rel)
		for _, l := range redacttest.Leaks(b, all) {
			t.Errorf("%s holds the %s canary %q", rel, l.Kind, l.Secret)
		}
	}
	slices.Sort(names)
	db := filepath.Join("data", "claude-mem.db")
	if !slices.Contains(names, db) || len(h.runDirs()) == 0 {
		t.Fatalf("scanned %v: no database or no run dir, the scenario did not happen", names)
	}
	t.Logf("scanned %d files: %s", len(names), strings.Join(names, " "))
	for where, text := range map[string]string{
		"hook search --json quokka": r.search, "hook export": r.export, "the fake claude's stdin": r.stdin,
	} {
		for _, l := range redacttest.Leaks([]byte(text), all) {
			t.Errorf("%s holds the %s canary %q", where, l.Kind, l.Secret)
		}
	}
	// Every output of every command of this test (hooks, stats, doctor) too.
	h.mu.Lock()
	outs := strings.Join(h.outputs, "\n")
	h.mu.Unlock()
	for _, l := range redacttest.Leaks([]byte(outs), all) {
		t.Errorf("an output of the hook holds the %s canary %q", l.Kind, l.Secret)
	}

	// The markers are there: in each kind's event, input and response both, and in what the
	// observer was sent; in the stored prompt and the export for the prompt's kinds.
	want := map[string]int{} // the redactions per kind
	for _, c := range all {
		// The tool input and response are redacted as their decoded text reads, each
		// canary under its own kind (issue 21).
		kind := c.Kind
		want[kind] += 2
		marker := "[REDACTED:" + kind + "]"
		if n := r.markedEvents(marker); n < 1 {
			t.Errorf("no event holds %s in both its tool_input and tool_response", marker)
		}
		if !strings.Contains(r.stdin, marker) {
			t.Errorf("the observer was not sent %s", marker)
		}
	}
	for _, c := range promptCanaries() {
		want[c.Kind]++
		marker := "[REDACTED:" + c.Kind + "]"
		if h.count(`SELECT count(*) FROM prompts WHERE session_id = ? AND instr(text, ?) > 0`, r.sid, marker) != 1 {
			t.Errorf("the stored prompt does not hold %s", marker)
		}
		if !strings.Contains(r.export, marker) {
			t.Errorf("the export does not hold %s", marker)
		}
	}

	// The counts per kind, exact: each event redacted its input and its response, the
	// prompt its own; doctor --json counts them per kind and `hook stats --json` in total.
	if r.doctor.Redacted == nil {
		t.Fatalf("doctor --json has no redaction counts: %+v", r.doctor)
	}
	today, sum := r.doctor.Redacted.Today, 0
	for _, n := range today {
		sum += n
	}
	if !maps.Equal(today, want) {
		t.Errorf("doctor --json counts redactions today %v, want %v", today, want)
	}
	if r.statsSum != sum {
		t.Errorf("hook stats --json counts %d redactions, doctor's kinds add up to %d (%v)", r.statsSum, sum, today)
	}
	for _, f := range r.doctor.Findings {
		if strings.Contains(f, "stored as is") {
			t.Errorf("doctor finds %q with redaction on", f)
		}
	}
	t.Logf("redacted today: %v (stats total %d)", today, r.statsSum)
}

// TestRedactCapture_Control_RedactionOffStoresCanaries runs the same scenario with
// CLAUDE_MEM_REDACT_SECRETS=false: the canaries are then in the database, the export and
// the observer's stdin, no marker is, and doctor says secrets are stored as is. It shows
// the scan above finds what it looks for.
func TestRedactCapture_Control_RedactionOffStoresCanaries(t *testing.T) {
	track(t)
	t.Parallel()
	all := redacttest.Captured()
	r := runCanaries(t, map[string]string{"CLAUDE_MEM_REDACT_SECRETS": "false"})
	stored := r.dataDir()
	if leaked := redacttest.Leaks(stored, all); len(leaked) != len(all) {
		t.Errorf("with redaction off the data dir holds %d of %d canaries; the scan cannot see a leak", len(leaked), len(all))
	}
	if bytes.Contains(stored, []byte("[REDACTED:")) {
		t.Error("with redaction off the data dir holds a [REDACTED: marker")
	}
	for _, c := range all {
		if !strings.Contains(r.stdin, c.Secret) {
			t.Errorf("with redaction off the observer was not sent the %s canary", c.Kind)
		}
	}
	if leaked := redacttest.Leaks([]byte(r.export), promptCanaries()); len(leaked) != len(promptCanaries()) {
		t.Errorf("with redaction off the export holds %d of the prompt's %d canaries", len(leaked), len(promptCanaries()))
	}
	if r.statsSum != 0 {
		t.Errorf("with redaction off hook stats counts %d redactions", r.statsSum)
	}
	found := false
	for _, f := range r.doctor.Findings {
		found = found || strings.Contains(f, "stored as is")
	}
	if !found {
		t.Errorf("doctor has no \"stored as is\" finding with redaction off: %q", r.doctor.Findings)
	}
	t.Logf("control: %d of %d canaries stored as is", len(redacttest.Leaks(stored, all)), len(all))
}
