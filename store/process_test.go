package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// These tests run real writer processes: the test binary re-executed with
// STORE_TEST_CHILD naming the role TestMain plays instead of running tests.

const (
	childRole    = "STORE_TEST_CHILD"
	childDB      = "STORE_TEST_DB"
	childSession = "STORE_TEST_SESSION"
	childWorker  = "STORE_TEST_WORKER"
	childN       = "STORE_TEST_N"
	pairsPerTx   = 10
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childRole); role != "" {
		if err := runChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(role string) error {
	ctx := context.Background()
	if role == "writer" {
		// Wait for the parent's go, so all writers create, migrate and write at once.
		if _, err := fmt.Println("ready"); err != nil {
			return err
		}
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return err
		}
	}
	if role == "migrate-killed" {
		// Announce the heavy step's transaction, then wait there for the parent's SIGKILL.
		inHeavyStep = func() {
			fmt.Println("migrating")
			select {}
		}
	}
	db, err := Open(os.Getenv(childDB))
	if err != nil {
		return err
	}
	defer db.Close()
	s := Session{ID: os.Getenv(childSession), Project: "proj", Cwd: "/work/proj", StartedAt: time.Now()}
	n, _ := strconv.Atoi(os.Getenv(childN))
	worker := os.Getenv(childWorker)
	switch role {
	case "writer":
		for i := range n {
			e := Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: worker + "-" + strconv.Itoa(i),
				Input: `{"command":"ls"}`, Response: "ok", At: time.Now()}
			// Every event is delivered twice, as a retried hook would.
			for range 2 {
				if _, err := db.Ingest(ctx, []Captured{{Kind: CaptureEvent, Session: s, Event: e}}); err != nil {
					return err
				}
			}
			p := Prompt{Text: "prompt " + worker + " " + strconv.Itoa(i), At: time.Now()}
			if _, err := db.Ingest(ctx, []Captured{{Kind: CapturePrompt, Session: s, Prompt: p}}); err != nil {
				return err
			}
		}
		return nil
	case "apply-killed":
		// The page to apply is the JSON file named where a session id goes; the parent
		// kills this process once its records are in the transaction, before the cursor.
		b, err := os.ReadFile(os.Getenv(childSession))
		if err != nil {
			return err
		}
		var page wire.Page
		if err := json.Unmarshal(b, &page); err != nil {
			return err
		}
		beforeCursor = func() error {
			fmt.Println("applying")
			select {}
		}
		_, err = db.SyncApply(ctx, "pg", SyncHere{Machine: "desktop"}, page)
		return err
	case "one-write":
		// The write is next: the parent watches this process from here (asleep).
		if _, err := fmt.Println("writing"); err != nil {
			return err
		}
		_, err := db.Ingest(ctx, []Captured{{Kind: CaptureEvent, Session: s, Event: Event{ToolUseID: "blocked", Input: "x", At: time.Now()}}})
		return err
	case "pairs":
		// Forever: transactions of pairsPerTx (prompt, event) pairs with bulky text,
		// announcing each commit, until the parent kills us.
		bulk := strings.Repeat("0123456789abcdef", 512)
		for tx := 0; ; tx++ {
			err := db.write(ctx, func(t *sql.Tx) error {
				for i := range pairsPerTx {
					now := time.Now()
					if err := upsertSession(ctx, t, s); err != nil {
						return err
					}
					if _, err := insertPrompt(ctx, t, s, Prompt{Text: bulk, At: now}); err != nil {
						return err
					}
					id := strconv.Itoa(tx) + "-" + strconv.Itoa(i)
					if _, err := insertEvent(ctx, t, s, Event{ToolUseID: id, Input: bulk, At: now}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if _, err := fmt.Println("committed", tx); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown role %q", role)
}

// asleep reports whether every thread of process pid sleeps (state S in /proc): no
// goroutine of it runs or waits for the disk. A child that has begun its write and is
// asleep waits for the lock, since nothing else in a write sleeps; one that wrote without
// waiting has exited (a zombie until Wait), which fails the test.
func asleep(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		testkit.Missing(t, fmt.Sprintf("reading a process's state needs /proc: %v", err))
	}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			continue // the thread ended
		}
		_, after, _ := strings.Cut(string(b), ") ") // the name in parentheses may hold anything but ") "
		switch state, _, _ := strings.Cut(after, " "); state {
		case "S":
		case "Z", "X":
			t.Fatalf("the child finished its write while the lock was held: it did not wait (%v)", childErr(cmd, cmd.Wait()))
		default:
			return false
		}
	}
	return len(tasks) > 0
}

// child prepares a re-executed test binary in a role.
func child(t *testing.T, role, dbPath, sessionID, worker string, n int) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childRole+"="+role, childDB+"="+dbPath, childSession+"="+sessionID,
		childWorker+"="+worker, childN+"="+strconv.Itoa(n))
	cmd.Stderr = &strings.Builder{}
	return cmd
}

func childErr(cmd *exec.Cmd, err error) error {
	return fmt.Errorf("%v; stderr: %s", err, cmd.Stderr)
}

// 16 processes start at once on a database that does not exist yet (so they also race to
// create and migrate it), 4 per session, each delivering every event twice: every event
// and prompt is stored exactly once.
func TestConcurrentWritersLoseAndDuplicateNothing(t *testing.T) {
	const procs, sessions, n = 16, 4, 30
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	var cmds []*exec.Cmd
	var gos []io.WriteCloser
	for p := range procs {
		cmd := child(t, "writer", path, "session-"+strconv.Itoa(p%sessions), "w"+strconv.Itoa(p), n)
		stdin, stdout := testkit.StartPiped(t, cmd)
		cmds, gos = append(cmds, cmd), append(gos, stdin)
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("writer %d: %q, %v", p, line, childErr(cmd, err))
		}
	}
	for _, w := range gos {
		if _, err := io.WriteString(w, "go\n"); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", p, childErr(cmd, err))
		}
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Integrity(context.Background()); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{"SELECT count(*) FROM events", procs * n},
		{"SELECT count(DISTINCT tool_use_id) FROM events", procs * n},
		{"SELECT count(*) FROM prompts", procs * n},
		{"SELECT count(DISTINCT text) FROM prompts", procs * n},
		{"SELECT count(*) FROM sessions", sessions},
		{"SELECT count(*) FROM events WHERE session_id = 'session-0'", procs / sessions * n},
		{"SELECT count(*) FROM prompts WHERE session_id = 'session-3'", procs / sessions * n},
		{"PRAGMA user_version", len(migrations)},
	} {
		if got := count(t, db, c.query); got != c.want {
			t.Errorf("%s = %d, want %d", c.query, got, c.want)
		}
	}
}

// A write that meets another process's open write transaction waits for it (busy
// timeout) and then succeeds, rather than failing and losing the event.
func TestLockedDatabaseWaitsInsteadOfFailing(t *testing.T) {
	db, path := openTest(t)
	tx, err := db.sql.BeginTx(context.Background(), nil) // IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	if err := upsertSession(context.Background(), tx, session("holder", "p")); err != nil {
		t.Fatal(err)
	}
	if _, err := insertEvent(context.Background(), tx, session("holder", "p"), Event{ToolUseID: "held", At: t0}); err != nil {
		t.Fatal(err)
	}
	cmd := child(t, "one-write", path, "waiter", "w", 1)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Hold the lock until the child's write has met it and waits (every thread asleep); a
	// child that wrote without waiting, or gave up, exits and fails here.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "writing\n" {
		t.Fatalf("child: %q, %v", line, childErr(cmd, err))
	}
	testkit.Eventually(t, time.Minute, "the child's write to wait for the lock", func() bool { return asleep(t, cmd) })
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the blocked writer failed instead of waiting: %v", childErr(cmd, err))
	}
	for _, id := range []string{"held", "blocked"} {
		if n := count(t, db, "SELECT count(*) FROM events WHERE tool_use_id = ?", id); n != 1 {
			t.Errorf("event %s stored %d times, want 1", id, n)
		}
	}
}

// A writer SIGKILLed mid-run leaves a consistent database: integrity passes, every
// transaction is all there or not at all (events = prompts, in whole transactions), and
// the database opens and takes writes again.
func TestKilledWriterLeavesDatabaseConsistent(t *testing.T) {
	const minCommits = 20
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	cmd := child(t, "pairs", path, "killed", "k", 0)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stdout)
	for i := range minCommits {
		if line, err := lines.ReadString('\n'); err != nil || line != fmt.Sprintf("committed %d\n", i) {
			t.Fatalf("child: %q, %v", line, childErr(cmd, err))
		}
	}
	// The child is inside its next transaction (or just between two): kill it there.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child exit: %v, want killed", err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open after the kill: %v", err)
	}
	defer db.Close()
	if err := db.Integrity(context.Background()); err != nil {
		t.Errorf("Integrity after the kill: %v", err)
	}
	events := count(t, db, "SELECT count(*) FROM events")
	prompts := count(t, db, "SELECT count(*) FROM prompts")
	if events != prompts || events%pairsPerTx != 0 || events < minCommits*pairsPerTx {
		t.Errorf("%d events, %d prompts: want equal, whole transactions of %d, at least %d",
			events, prompts, pairsPerTx, minCommits*pairsPerTx)
	}
	if _, err := db.Ingest(context.Background(), []Captured{{Kind: CaptureEvent, Session: session("after", "p"), Event: Event{At: t0}}}); err != nil {
		t.Errorf("write after the kill: %v", err)
	}
}

// A process SIGKILLed inside the redaction migration's transaction leaves the database as
// it was (the old schema, the old text, integrity intact) and its backup; the next open
// migrates it and removes that backup with its own.
func TestKilledHeavyMigrationLeavesOldDatabaseAndBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "claude-mem.db")
	old := openAt(t, path, beforeRedaction(t))
	seedLeaks(t, old, dir)
	oldVersion := count(t, old, "PRAGMA user_version")
	leaky := count(t, old, "SELECT count(*) FROM prompts WHERE text LIKE '%Canary%'")
	old.Close()
	cmd := child(t, "migrate-killed", path, "", "", 0)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "migrating\n" {
		t.Fatalf("child: %q, %v", line, childErr(cmd, err))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child exit: %v, want killed", err)
	}
	if b := backups(t, path); len(b) != 1 {
		t.Fatalf("backups after the kill: %v, want the killed migration's", b)
	}
	raw, err := connect(path, true, BusyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if v := count(t, raw, "PRAGMA user_version"); v != oldVersion {
		t.Errorf("user_version %d after the kill, want %d", v, oldVersion)
	}
	if n := count(t, raw, "SELECT count(*) FROM prompts WHERE text LIKE '%Canary%'"); n != leaky || n == 0 {
		t.Errorf("%d leaky prompts after the kill, want the %d stored before", n, leaky)
	}
	if err := raw.Integrity(context.Background()); err != nil {
		t.Errorf("Integrity after the kill: %v", err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := count(t, db, "PRAGMA user_version"); v != len(migrations) {
		t.Errorf("user_version %d after the next open, want %d", v, len(migrations))
	}
	if n := count(t, db, "SELECT count(*) FROM prompts WHERE text LIKE '%Canary%'"); n != 0 {
		t.Errorf("%d leaky prompts after the next open", n)
	}
	if b := backups(t, path); len(b) != 0 {
		t.Errorf("backups after the next open: %v, want none", b)
	}
}
