//go:build linux

package tests

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// TestHookFinishesItsWriteAfterSIGTERM: a SIGTERM that reaches a hook while it holds an
// event (here: before its stdin is even complete) does not cost the event.
func TestHookFinishesItsWriteAfterSIGTERM(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	event, err := os.ReadFile(filepath.Join(fixtures, "PostToolUse-Bash.json"))
	if err != nil {
		t.Fatal(err)
	}
	event = bytes.ReplaceAll(event, []byte("/home/user/project"), []byte(filepath.Join(dir, "proj")))

	cmd := exec.Command(hookBin)
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin", "CLAUDE_MEM_DATA_DIR=" + data}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitHookStarted(t, filepath.Join(data, "logs", "hook.log"))
	half := len(event) / 2
	if _, err := stdin.Write(event[:half]); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write(event[half:]); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hook exited with %v (stderr %q); want exit 0", err, stderr.String())
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Fatalf("stdout %q stderr %q, want both empty", stdout.String(), stderr.String())
	}
	// The hook journaled the event; a reader (hook search) stores it first.
	search := exec.Command(hookBin, "search", "ingest")
	search.Env, search.Dir = cmd.Env, dir
	if out, err := search.CombinedOutput(); err != nil {
		t.Fatalf("hook search: %v\n%s", err, out)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "claude-mem.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM events WHERE state = 'pending'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("pending events = %d (%v), want the one event the hook was given", n, err)
	}
}

// waitHookStarted waits until the hook has created its log file: hook mode installs its
// signal handler before it opens the log, so from then on a signal reaches the handler and
// not the default action of a process still starting up.
func waitHookStarted(t *testing.T, logFile string) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "the hook to create "+logFile, func() bool {
		_, err := os.Stat(logFile)
		return err == nil
	})
}

// TestImportStdinStopsOnSignal: `hook import -` whose stdin has gone silent (a person's
// pipe left open) stops on SIGINT and on SIGTERM: exit 1 within 10 s, one line on stderr
// saying it stopped and that nothing was imported, and the prompts it had read are not
// stored (one transaction). The read only returns because the signal cancels it: it used
// to go on waiting. The control: the same lines, then stdin closed, import all three.
func TestImportStdinStopsOnSignal(t *testing.T) {
	track(t)
	t.Parallel()
	lines := importHeader
	for i := range 3 {
		lines += fmt.Sprintf(`{"kind":"prompt","session":"imp1","project":"imp","at":"2026-12-01T10:00:0%dZ","text":"silent stdin %d"}`+"\n", i, i)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, 0} {
		name := "control: stdin closed"
		if sig != 0 {
			name = sig.String()
		}
		t.Run(name, func(t *testing.T) {
			h := journalHarness(t)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			cmd := exec.Command(hookBin, "import", "-")
			cmd.Env, cmd.Dir, cmd.Stdin = h.environ(nil), h.work, pr
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if _, err := pw.WriteString(lines); err != nil {
				t.Fatal(err)
			}
			// Every line read: the import is past its start (its signal handler is in
			// place) and waits on a silent stdin.
			testkit.Eventually(t, 20*time.Second, "hook import to read its stdin", func() bool {
				var n int32
				if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pw.Fd(), 0x541B /* FIONREAD */, uintptr(unsafe.Pointer(&n))); e != 0 {
					t.Fatalf("FIONREAD: %v", e)
				}
				return n == 0
			})
			if sig != 0 {
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			} else {
				pw.Close()
			}
			var werr error
			select {
			case werr = <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("hook import - still running 10 s after %s (stderr %q)", name, stderr.String())
			}
			stored := h.count(`SELECT count(*) FROM prompts WHERE project = 'imp'`)
			t.Logf("%s: %v, stderr %q, %d prompts stored", name, werr, stderr.String(), stored)
			if sig == 0 {
				if werr != nil || stored != 3 {
					t.Errorf("control: exit %v, %d prompts stored; want exit 0 and 3 (stderr %q)", werr, stored, stderr.String())
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit %v; want exit status 1 (not killed by the signal)", werr)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "stopped") || !strings.Contains(msg, "nothing imported") {
				t.Errorf("stderr %q; want one line saying it stopped and nothing was imported", msg)
			}
			if stored != 0 {
				t.Errorf("%d prompts stored after %s; want 0 (nothing half-imported)", stored, name)
			}
		})
	}
}
