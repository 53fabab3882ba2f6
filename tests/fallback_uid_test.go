//go:build linux

package tests

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// TestFallbackUID_ForeignTmpDir: on a shared machine another user's claude-mem made
// <tmp>/claude-mem first (no $XDG_RUNTIME_DIR, as over ssh or in a container). A session
// logs no error for it, doctor is ok with no finding about it (the temp fallback is
// claude-mem-<uid>: the other user's dir is not in the way, and holds nothing of the
// user's, since no version wrote to a dir not theirs), and with the data dir read-only
// (a tmpfs remounted ro: root ignores modes; the cache dir is on it too) the records go
// to the per-uid temp fallback and are stored once it is writable again. The control:
// without the other user's dir, the same.
func TestFallbackUID_ForeignTmpDir(t *testing.T) {
	track(t)
	needSecondUID(t)
	for _, foreign := range []bool{true, false} {
		name := "another user's claude-mem dir"
		if !foreign {
			name = "control: none"
		}
		t.Run(name, func(t *testing.T) {
			h := journalHarness(t)
			tmp := sharedTmp(t)
			h.env["TMPDIR"] = tmp
			mountTmpfs(t, h.data, "128m")                            // above the 64 MiB under which doctor says the disk is full
			h.env["XDG_CACHE_HOME"] = filepath.Join(h.data, "cache") // read-only with the data dir
			if foreign {
				asAttacker(t, fmt.Sprintf("mkdir -m 755 %q", filepath.Join(tmp, "claude-mem")))
			}
			h.sessionStart("s1")
			for i := range 3 {
				h.prompt("s1", fmt.Sprintf("turn %d about the build", i))
				h.toolUse("s1", fmt.Sprintf("make step%d", i))
				h.stop("s1")
			}
			h.sessionStart("s2")
			if errs := h.logsAt("error", ""); len(errs) != 0 {
				t.Errorf("%d error lines in hook.log, e.g. %v", len(errs), errs[0])
			}
			d, r := h.doctor(nil)
			for _, f := range d.Findings {
				if strings.Contains(f, tmp) {
					t.Errorf("doctor has a finding about the temp dir: %q", f)
				}
			}
			if !d.OK || r.code != 0 {
				t.Errorf("doctor ok %v, exit %d: %q", d.OK, r.code, d.Findings)
			}

			if out, err := exec.Command("mount", "-o", "remount,ro", h.data).CombinedOutput(); err != nil {
				t.Fatalf("remount ro: %v: %s", err, out)
			}
			h.prompt("s1", "a prompt while the data dir is read-only")
			h.toolUse("s1", "make while-read-only")
			dirs := h.journalDirs()
			fb := dirs[len(dirs)-1]
			if filepath.Base(filepath.Dir(fb)) != "claude-mem-0" {
				t.Fatalf("the temp fallback is %s; want it under claude-mem-<uid>", fb)
			}
			if got := testkit.Entries(t, fb); len(got) != 1 {
				t.Errorf("per-uid fallback %s holds %v; want the session's journal", fb, got)
			}
			if out, err := exec.Command("mount", "-o", "remount,rw", h.data).CombinedOutput(); err != nil {
				t.Fatalf("remount rw: %v: %s", err, out)
			}
			h.ingest()
			if n := h.count(`SELECT count(*) FROM prompts WHERE text = 'a prompt while the data dir is read-only'`); n != 1 {
				t.Errorf("the prompt kept in the fallback stored %d times; want 1", n)
			}
			if n := h.count(`SELECT count(*) FROM events WHERE input LIKE '%while-read-only%'`); n != 1 {
				t.Errorf("the event kept in the fallback stored %d times; want 1", n)
			}
			if errs := h.logsAt("error", ""); len(errs) != 0 {
				t.Errorf("%d error lines in hook.log after the read-only spell, e.g. %v", len(errs), errs[0])
			}
		})
	}
}

// TestFallbackUID_ForeignPerUIDDir: another user made <tmp>/claude-mem-<uid> itself, on
// purpose: the fallback is refused, which is one doctor finding (a note: the data dir
// keeps the records) and no log line, however many hooks run.
func TestFallbackUID_ForeignPerUIDDir(t *testing.T) {
	track(t)
	needSecondUID(t)
	h := journalHarness(t)
	tmp := sharedTmp(t)
	h.env["TMPDIR"] = tmp
	asAttacker(t, fmt.Sprintf("mkdir -m 755 %q", filepath.Join(tmp, "claude-mem-0")))
	h.sessionStart("s1")
	for i := range 3 {
		h.prompt("s1", fmt.Sprintf("turn %d", i))
		h.toolUse("s1", fmt.Sprintf("make step%d", i))
		h.stop("s1")
	}
	h.sessionStart("s2")
	if errs := h.logsAt("error", ""); len(errs) != 0 {
		t.Errorf("%d error lines in hook.log, e.g. %v", len(errs), errs[0])
	}
	d, r := h.doctor(nil)
	var about []string
	for _, f := range d.Findings {
		if strings.Contains(f, filepath.Join(tmp, "claude-mem-0")) {
			about = append(about, f)
		}
	}
	if len(about) != 1 || !strings.Contains(about[0], "owned by uid 65534") {
		t.Errorf("doctor's findings about the other user's dir: %q; want one", about)
	}
	if !d.OK || r.code != 0 {
		t.Errorf("doctor ok %v, exit %d: the refused fallback is a note, the data dir works: %q", d.OK, r.code, d.Findings)
	}
	t.Logf("doctor: %q", about)
}
