//go:build linux

package tests

// Issues 21 and 26: memory an older claude-mem stored, secrets in it, is upgraded by
// whichever command or hook meets it first. A reader (`hook search`) upgrades it and
// answers from the upgraded memory; a hook does not wait for the rewrite: it says memory
// is being upgraded and leaves it to a detached `hook upgrade`. Either way no canary is
// left in any byte of the data dir, and doctor counts what was found. The control is the
// data dir before the upgrade, which holds every canary.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// olderSchema is the schema olderMemory leaves: before the redaction migration (7), which
// only added stored_redactions besides redacting, and the search filter indexes (8).
const olderSchema = 6

// olderMemory captures a prompt and a PostToolUse per canary, the canary after a newline,
// with redaction off (what an older build's redactor let through), then takes the schema
// back to olderSchema.
func olderMemory(t *testing.T) (h *harness, current int) {
	t.Helper()
	h = newHarness(t)
	h.env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "0" // search-only: no observer run
	off := map[string]string{"CLAUDE_MEM_REDACT_SECRETS": "false"}
	sid := "upgrade-leaky"
	for i, c := range redacttest.Captured() {
		f := h.base(sid)
		f["prompt"] = "quokka upgrade notes\n" + c.Text
		h.hookMode(fixtureEvent(t, "UserPromptSubmit-prompt.json", f), off)
		f = h.base(sid)
		f["tool_use_id"] = fmt.Sprintf("toolu_upgrade_%d", i)
		f["tool_input"] = map[string]any{"command": "cat .env", "description": "show the config"}
		f["tool_response"] = map[string]any{"stdout": "APP=shop\n" + c.Text + "\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
		h.hookMode(fixtureEvent(t, "PostToolUse-Bash.json", f), off)
	}
	h.ingest()
	current = schemaVersion(t, h.data)
	downgrade(t, h.data, "DROP TABLE stored_redactions; "+dropFilterIndexes, olderSchema)
	if leaks := redacttest.Leaks(dataBytes(t, h.data), redacttest.Captured()); len(leaks) != len(redacttest.Captured()) {
		t.Fatalf("control: %d of %d canaries in the older memory", len(leaks), len(redacttest.Captured()))
	}
	return h, current
}

// dropFilterIndexes undoes migration 8 (the search filter indexes).
const dropFilterIndexes = "DROP INDEX observations_filter; DROP INDEX summaries_filter; DROP INDEX prompts_filter"

// downgrade takes the database in dataDir back to schema version, undoing what later
// migrations added with undo, without going through the product.
func downgrade(t *testing.T, dataDir, undo string, version int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "claude-mem.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("%s; PRAGMA user_version = %d", undo, version)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// schemaVersion reads the user_version of the database in dataDir without going through
// the product (whose readers would upgrade it).
func schemaVersion(t *testing.T, dataDir string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "claude-mem.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// dataBytes is every regular file under dir, concatenated.
func dataBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		all.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.Bytes()
}

// upgraded checks the data dir once the upgrade is done: no canary, no backup, doctor's
// count.
func upgraded(t *testing.T, h *harness) {
	t.Helper()
	if leaks := redacttest.Leaks(dataBytes(t, h.data), redacttest.Captured()); len(leaks) > 0 {
		var kinds []string
		for _, c := range leaks {
			kinds = append(kinds, c.Kind)
		}
		t.Errorf("canaries left in the data dir after the upgrade: %v", kinds)
	}
	if b, _ := filepath.Glob(filepath.Join(h.data, "claude-mem.db.backup-*")); len(b) > 0 {
		t.Errorf("backups left: %v", b)
	}
	r := h.runIn(h.work, nil, nil, "doctor", "--json")
	var d struct {
		Redacted struct {
			StoredMemory map[string]int `json:"stored_memory"`
		} `json:"redacted"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("hook doctor --json: %v\n%s", err, r.stdout)
	}
	total := 0
	for _, n := range d.Redacted.StoredMemory {
		total += n
	}
	if n := len(redacttest.Captured()); total < 2*n {
		t.Errorf("doctor's stored_memory %v (%d), want at least %d (a prompt and an event per canary)", d.Redacted.StoredMemory, total, 2*n)
	}
	if hr := h.runIn(h.work, nil, nil, "doctor"); !strings.Contains(hr.stdout, "in memory stored before") {
		t.Errorf("hook doctor does not report the upgrade's count:\n%s", hr.stdout)
	}
}

func TestUpgrade_ReaderUpgradesAndAnswers(t *testing.T) {
	track(t)
	t.Parallel()
	h, _ := olderMemory(t)
	// Every canary's prompt, past search's default limit of 20.
	r := h.runIn(h.work, nil, nil, "search", "--json", "--limit", "100", "quokka")
	if r.code != 0 {
		t.Fatalf("hook search exit %d: %s", r.code, r.stderr)
	}
	if hits := strings.Count(r.stdout, "\n"); hits != len(redacttest.Captured()) {
		t.Fatalf("hook search quokka on older memory: %d hits, want %d prompts", hits, len(redacttest.Captured()))
	}
	upgraded(t, h)
}

// Every reader command behaves the same on older memory: it answers (exit 0, its usual
// output), and the database it leaves is the upgraded one.
func TestUpgrade_EveryReaderCommand(t *testing.T) {
	track(t)
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"stats", "--json"}, `"redactions"`},
		{[]string{"export"}, "quokka upgrade notes"},
		{[]string{"doctor", "--json"}, `"stored_memory"`},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel()
			h, current := olderMemory(t)
			r := h.runIn(h.work, nil, nil, c.args...)
			if r.code != 0 && c.args[0] != "doctor" || !strings.Contains(r.stdout, c.want) {
				t.Fatalf("hook %v on older memory: exit %d, stderr %q, stdout lacks %q:\n%.2000s", c.args, r.code, r.stderr, c.want, r.stdout)
			}
			if v := schemaVersion(t, h.data); v != current {
				t.Errorf("user_version %d after hook %v, want %d", v, c.args, current)
			}
			if leaks := redacttest.Leaks(dataBytes(t, h.data), redacttest.Captured()); len(leaks) > 0 {
				t.Errorf("%d canaries left after hook %v", len(leaks), c.args)
			}
		})
	}
}

func TestUpgrade_HookDefersToADetachedUpgrade(t *testing.T) {
	track(t)
	t.Parallel()
	h, current := olderMemory(t)
	out, procs := h.reaped(fixtureEvent(t, "SessionStart-startup.json", h.base("upgrade-next")), nil)
	var o sessionStartOut
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("SessionStart answered %q: %v", out, err)
	}
	if ctx := o.HookSpecificOutput.AdditionalContext; !strings.Contains(ctx, "upgrading its database") {
		t.Errorf("SessionStart's context does not say memory is being upgraded:\n%s", ctx)
	}
	// A process first seen as a zombie has no cmdline left; its comm still says hook.
	if !slices.ContainsFunc(procs, func(p adoptedProc) bool {
		return len(p.Cmdline) == 0 && p.Comm == "hook" || len(p.Cmdline) == 2 && filepath.Base(p.Cmdline[0]) == "hook" && p.Cmdline[1] == "upgrade"
	}) {
		t.Fatalf("SessionStart left %+v, want a detached `hook upgrade`", procs)
	}
	if v := schemaVersion(t, h.data); v != current {
		t.Fatalf("user_version %d once the hook and what it started ended, want %d (upgraded by `hook upgrade`)", v, current)
	}
	upgraded(t, h)
	// Memory is back: the next SessionStart has no upgrade notice.
	if ctx := h.sessionStart("upgrade-after").HookSpecificOutput.AdditionalContext; strings.Contains(ctx, "upgrading") {
		t.Errorf("SessionStart after the upgrade still says it is upgrading:\n%s", ctx)
	}
}
