package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
)

// A healthy setup has no findings, and --json says so with an empty list, not null.
func TestFindingsAreAnEmptyListWhenAllIsWell(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		key        string
		wantOK     bool
		wantFindsN bool
	}{
		{"healthy", "sk-ant-api03-doctor-test-key-0000000000", true, false},
		{"control: no credential", "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := settings.Env{"HOME": dir, "CLAUDE_MEM_DATA_DIR": filepath.Join(t.TempDir(), "data"), "CLAUDE_MEM_CLAUDE_PATH": claude, "PATH": ""}
			if tc.key != "" {
				env["ANTHROPIC_API_KEY"] = tc.key
			}
			s, err := settings.Load(env, filepath.Join(dir, "xdg"))
			if err != nil {
				t.Fatal(err)
			}
			r := Build(context.Background(), Inputs{
				Version: "test", Hook: "/x/bin/hook", Settings: s, Env: env, GOOS: runtime.GOOS, Home: dir,
				Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }, Log: zerolog.Nop(),
			})
			b, _ := json.Marshal(r)
			if r.OK != tc.wantOK {
				t.Fatalf("ok = %v, want %v; findings %q", r.OK, tc.wantOK, r.Findings)
			}
			if tc.wantFindsN != (len(r.Findings) > 0) {
				t.Fatalf("findings %q", r.Findings)
			}
			if strings.Contains(string(b), `"findings":null`) {
				t.Fatalf("findings is null in %s", b)
			}
		})
	}
}

// TestOutputScrubbed: the human and the JSON report hold no secret shape, whichever field
// carries it, and the JSON stays valid.
func TestOutputScrubbed(t *testing.T) {
	cs := redacttest.Diagnostic()
	r := &Report{Version: "test", Findings: []string{}}
	for _, c := range cs {
		r.Findings = append(r.Findings, c.Text)
		r.Settings = append(r.Settings, settings.Value{Key: "CLAUDE_MEM_MODEL", Value: c.Text})
	}
	r.Auth.Error = cs[0].Text
	var human, js bytes.Buffer
	Render(&human, r)
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string][]byte{"human": human.Bytes(), "json": js.Bytes()} {
		if leaks := redacttest.Leaks(out, cs); len(leaks) > 0 {
			t.Errorf("%s report holds %d canaries, e.g. %+v", name, len(leaks), leaks[0])
		}
	}
	if !json.Valid(js.Bytes()) {
		t.Errorf("scrubbing broke the JSON:\n%s", js.Bytes())
	}
}
