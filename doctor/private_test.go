//go:build unix

package doctor

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
)

// TestDataDirRefused: a data dir others can write, or a file in it another user could
// have written, is a finding with its fix and doctor is not ok; nothing planted is used
// (the claude path a planted settings.json names is not the one doctor checks). The
// control is the same files as the user's own, read.
func TestDataDirRefused(t *testing.T) {
	home := t.TempDir()
	claude := filepath.Join(home, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mode os.FileMode // the data dir's
		file os.FileMode // settings.json's
		fix  string      // "" : the control
	}{
		{"control", 0o700, 0o600, ""},
		{"data dir writable by others", 0o777, 0o600, "fix: chmod 700 "},
		{"settings.json writable by others", 0o700, 0o666, "fix: chmod 600 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			os.Mkdir(data, 0o700)
			js := filepath.Join(data, settings.SettingsFile)
			os.WriteFile(js, []byte(`{"CLAUDE_MEM_CLAUDE_PATH": "`+claude+`"}`), 0o600)
			os.Chmod(js, tc.file)
			os.Chmod(data, tc.mode)
			env := settings.Env{"HOME": home, "CLAUDE_MEM_DATA_DIR": data, "ANTHROPIC_API_KEY": "sk-ant-api03-doctor-test-key-0000000000", "PATH": ""}
			s, dirErr := settings.Load(env, filepath.Join(home, "xdg"), runtime.GOOS)
			r := Build(context.Background(), Inputs{
				Version: "test", Hook: "/x/bin/hook", Settings: s, Memory: memory.Memory{DataDir: s.DataDir, DataDirErr: dirErr}, Env: env, GOOS: runtime.GOOS, Home: home,
				Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
			})
			if tc.fix == "" {
				if !r.OK || r.Claude.Path != claude {
					t.Fatalf("control: ok %v, claude %q; findings %q", r.OK, r.Claude.Path, r.Findings)
				}
				return
			}
			if r.OK || r.Claude.Found {
				t.Fatalf("ok %v, claude found %v (%q): the planted settings were used", r.OK, r.Claude.Found, r.Claude.Path)
			}
			found := ""
			for _, f := range r.Findings {
				if strings.HasPrefix(f, "claude-mem: refused ") && strings.Contains(f, tc.fix) {
					found = f
				}
			}
			if found == "" {
				t.Fatalf("no refused finding with %q: %q", tc.fix, r.Findings)
			}
			t.Log(found)
		})
	}
}
