//go:build linux

package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// controlBytes finds a terminal control in out: C0 but tab and newline, DEL, or a C1
// control encoded in UTF-8.
func controlBytes(out []byte) (int, bool) {
	for i, c := range out {
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f || c == 0xc2 && i+1 < len(out) && out[i+1] >= 0x80 && out[i+1] <= 0x9f {
			return i, true
		}
	}
	return 0, false
}

// TestEscapes_SearchPrintsNoControl: a prompt holding every control character (a title
// change, a clear screen, an OSC 8 link, BEL, DEL, C1), captured in a project whose name
// holds an escape too: `hook search` prints none of them raw, human or --json, and --json
// still decodes to the captured text. `--project '*'` is every project, in search and
// export.
func TestEscapes_SearchPrintsNoControl(t *testing.T) {
	track(t)
	h := journalHarness(t)
	var all strings.Builder
	all.WriteString("beacon \x1b]0;owned\x07 \x1b[2J \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ ")
	for r := rune(0); r < 0x20; r++ {
		all.WriteRune(r)
	}
	all.WriteRune(0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		all.WriteRune(r)
	}
	proj := filepath.Join(h.work, "proj\x1b]0;title\x07")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	f := h.base("esc")
	f["cwd"], f["prompt"] = proj, all.String()
	h.hookMode(fixtureEvent(t, "UserPromptSubmit-prompt.json", f), nil)
	h.ingest()
	if n := h.count("SELECT count(*) FROM prompts WHERE instr(text, char(27)) > 0 AND instr(project, char(27)) > 0"); n != 1 {
		t.Fatalf("control: %d stored prompts hold an ESC in text and project; want 1 (the test tests nothing)", n)
	}

	for _, args := range [][]string{{"search", "beacon"}, {"search", "--project", "*", "beacon"}, {"search", "--json", "beacon"}} {
		r := h.runIn(h.work, nil, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "beacon") {
			t.Fatalf("hook %v: exit %d, no hit:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if i, bad := controlBytes([]byte(r.stdout)); bad {
			t.Errorf("hook %v printed a control byte %#x at %d: %q", args, r.stdout[i], i, r.stdout[max(0, i-20):min(len(r.stdout), i+20)])
		}
		if bytes.IndexByte([]byte(r.stdout), 0x1b) >= 0 {
			t.Errorf("hook %v printed an ESC byte", args)
		}
		if args[1] == "--json" {
			var hit searchHit
			if err := json.Unmarshal([]byte(r.stdout), &hit); err != nil || !strings.Contains(hit.Snippet+hit.Title, "\x1b") || !strings.Contains(hit.Project, "\x1b") {
				t.Errorf("hook search --json does not decode to the captured text (%v): %+v", err, hit)
			}
		} else {
			t.Logf("hook %v: %s", args, strings.TrimSpace(r.stdout))
		}
	}
	if r := h.runIn(h.work, nil, nil, "search", "--project", "no-such-project", "beacon"); strings.Contains(r.stdout, "beacon ") {
		t.Errorf("control: --project no-such-project found the prompt: %s", r.stdout)
	}
	for _, p := range []string{"*", "no-such-project"} {
		r := h.runIn(h.work, nil, nil, "export", "--project", p)
		has := strings.Contains(r.stdout, `"kind":"prompt"`)
		if r.code != 0 || has != (p == "*") {
			t.Errorf("hook export --project %q: exit %d, prompt exported %v; want %v", p, r.code, has, p == "*")
		}
		if i, bad := controlBytes([]byte(r.stdout)); bad {
			t.Errorf("hook export printed a control byte %#x at %d", r.stdout[i], i)
		}
	}
}
