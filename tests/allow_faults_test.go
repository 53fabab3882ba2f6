//go:build linux

package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAllowTools_FullAndReadOnlyClaudeDir: Claude Code's config dir is a small tmpfs. When
// it is full, `hook allow-tools` exits 1 saying so, and the user's settings and the backup
// an earlier run left are byte for byte as they were, with no temporary file beside them.
// Once there is room it adds the rule (the control: the same command can succeed). With
// the dir read-only, --remove says so and keeps its record, so the rule is taken back once
// the dir can be written again.
func TestAllowTools_FullAndReadOnlyClaudeDir(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	dir := filepath.Join(h.home, ".claude")
	mountTmpfs(t, dir, "64k")
	settings, backup := filepath.Join(dir, "settings.json"), filepath.Join(dir, "settings.json.bak-claude-mem")
	userSettings := []byte("{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test)\"\n    ]\n  }\n}\n")
	oldBackup := []byte("{\"model\": \"sonnet\"}\n")
	for path, b := range map[string][]byte{settings: userSettings, backup: oldBackup} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unchanged := func(when string, want []byte) {
		t.Helper()
		for path, b := range map[string][]byte{settings: want, backup: oldBackup} {
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, b) {
				t.Errorf("%s: %s is %q (%v), want %q", when, filepath.Base(path), got, err, b)
			}
		}
		names, _ := filepath.Glob(filepath.Join(dir, ".*"))
		if len(names) != 0 {
			t.Errorf("%s: temporary files left beside the settings: %v", when, names)
		}
	}

	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	r := h.runIn(h.proj, nil, nil, "allow-tools")
	if r.code != 1 || !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("allow-tools on a full ~/.claude: exit %d, stderr %q; want 1 and the reason", r.code, r.stderr)
	}
	unchanged("a full disk", userSettings)
	if r := h.runIn(h.proj, nil, nil, "allow-tools", "--check"); r.code != 1 {
		t.Errorf("--check after the failed allow-tools: exit %d (%s); want 1, not allowed", r.code, r.stdout)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := h.runIn(h.proj, nil, nil, "allow-tools"); r.code != 0 || !strings.Contains(r.stdout, "the memory tools are allowed") {
		t.Fatalf("allow-tools with room: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	allowed, err := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(allowed), `"mcp__plugin_claude-mem_memory"`) {
		t.Fatalf("settings after allow-tools: %q (%v)", allowed, err)
	}
	if got, _ := os.ReadFile(backup); !bytes.Equal(got, userSettings) {
		t.Errorf("backup after allow-tools is %q, want the settings before it", got)
	}
	oldBackup = userSettings

	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v: %s", err, out)
	}
	r = h.runIn(h.proj, nil, nil, "allow-tools", "--remove")
	if r.code != 1 || !strings.Contains(r.stderr, "read-only file system") {
		t.Errorf("allow-tools --remove on a read-only ~/.claude: exit %d, stderr %q; want 1 and the reason", r.code, r.stderr)
	}
	unchanged("a read-only dir", allowed)
	if out, err := exec.Command("mount", "-o", "remount,rw", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount rw: %v: %s", err, out)
	}
	if r := h.runIn(h.proj, nil, nil, "allow-tools", "--remove"); r.code != 0 || !strings.Contains(r.stdout, "took back the rule") {
		t.Errorf("--remove once the dir can be written: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(settings); !bytes.Equal(got, userSettings) {
		t.Errorf("settings after --remove: %q, want the user's own back", got)
	}
}

// fill writes path until its filesystem has no room left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", path, err)
			}
			return
		}
	}
}
