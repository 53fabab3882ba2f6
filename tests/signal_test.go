package tests

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
