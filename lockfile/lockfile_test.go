package lockfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// The test binary doubles as the lock-holding child: with LOCKFILE_HELPER set it takes a
// lock, prints what it got, and holds it until its stdin closes or it is killed.
func TestMain(m *testing.M) {
	switch os.Getenv("LOCKFILE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "lock":
		release, ok, err := TryLock(os.Getenv("LOCKFILE_PATH"))
		report(ok, 0, err)
		holdThen(release)
	case "inherit":
		// Take the lock, hand it to a sleeping child, and exit without releasing it.
		h, ok, err := TryHold(os.Getenv("LOCKFILE_PATH"))
		if !ok {
			report(ok, 0, err)
		}
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "LOCKFILE_HELPER=sleep")
		c.ExtraFiles = []*os.File{h.File}
		if err := c.Start(); err != nil {
			report(false, 0, err)
		}
		fmt.Println("ok", c.Process.Pid)
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "slot":
		n, _ := strconv.Atoi(os.Getenv("LOCKFILE_N"))
		h, ok, err := TrySlot(os.Getenv("LOCKFILE_DIR"), n)
		if !ok {
			report(ok, 0, err)
		}
		report(ok, h.Slot, err)
		holdThen(h.Release)
	}
}

func report(ok bool, slot int, err error) {
	switch {
	case err != nil:
		fmt.Println("error", err)
		os.Exit(1)
	case ok:
		fmt.Println("ok", slot)
	default:
		fmt.Println("busy")
		os.Exit(0)
	}
}

func holdThen(release func() error) {
	io.Copy(io.Discard, os.Stdin)
	if err := release(); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string // what the child reported: "ok N" or "busy"
}

// startChild runs the test binary as a helper and waits for its report line.
func startChild(t *testing.T, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, stdout := testkit.StartPiped(t, cmd)
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		c.stdin.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child report: %v", err)
	}
	c.line = strings.TrimSpace(line)
	return c
}

func holdInChild(t *testing.T, path string) *child {
	t.Helper()
	c := startChild(t, "LOCKFILE_HELPER=lock", "LOCKFILE_PATH="+path)
	if c.line != "ok 0" {
		t.Fatalf("child could not take %s: %q", path, c.line)
	}
	return c
}

func mustTry(t *testing.T, path string, want bool) func() error {
	t.Helper()
	release, ok, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if ok != want {
		t.Fatalf("TryLock(%s) ok = %v, want %v", path, ok, want)
	}
	return release
}

func TestTryLockCreatesFileAndDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "locks")
	path := filepath.Join(dir, "health.lock")
	release := mustTry(t, path, true)
	defer release()
	if runtime.GOOS == "windows" {
		return // no unix permission bits to check
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700, filepath.Dir(dir): 0o700} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode = %v, want %v", p, got, want)
		}
	}
}

func TestTryLockInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.lock")
	release := mustTry(t, path, true)
	mustTry(t, path, false)                                       // a second open in the same process is excluded too
	mustTry(t, filepath.Join(filepath.Dir(path), "b.lock"), true) // other paths are independent
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	mustTry(t, path, true)()
}

func TestTryLockErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"parent is a file": filepath.Join(file, "x.lock"),
		"path is a dir":    dir,
	} {
		t.Run(name, func(t *testing.T) {
			release, ok, err := TryLock(path)
			if err == nil || ok || release != nil {
				t.Fatalf("TryLock(%s) = (%v, %v, %v), want an error", path, release != nil, ok, err)
			}
		})
	}
}

func TestLockHeldByChildProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "session.lock")
	c := holdInChild(t, path)

	mustTry(t, path, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with a done ctx while held = %v, want context.Canceled", err)
	}

	// A waiter started while the child holds the lock gets it once the child is killed.
	// The timeout only keeps a broken Lock from hanging the suite.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		release, err := Lock(ctx, path)
		if err == nil {
			err = release()
		}
		got <- err
	}()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
	if err := <-got; err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
}

func TestKilledHolderFreesLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	c := holdInChild(t, path)
	mustTry(t, path, false)
	// SIGKILL: the child runs no release code, only the OS can free the lock.
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
	mustTry(t, path, true)()
}

func TestReleasedByChildFreesLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	c := holdInChild(t, path)
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child release: %v", err)
	}
	mustTry(t, path, true)()
}

func TestTrySlotInProcess(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		held     []int // slots taken before the call
		wantOK   bool
		wantSlot int
	}{
		{name: "zero slots", n: 0},
		{name: "negative slots", n: -1},
		{name: "first free", n: 2, wantOK: true, wantSlot: 0},
		{name: "skips held", n: 3, held: []int{0, 1}, wantOK: true, wantSlot: 2},
		{name: "gap reused", n: 3, held: []int{0, 2}, wantOK: true, wantSlot: 1},
		{name: "all held", n: 2, held: []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "locks")
			for _, i := range tt.held {
				defer mustTry(t, slotPath(dir, i), true)()
			}
			h, ok, err := TrySlot(dir, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			slot := -1
			if ok {
				slot = h.Slot
			} else if !tt.wantOK {
				slot = tt.wantSlot
			}
			if ok != tt.wantOK || slot != tt.wantSlot {
				t.Fatalf("TrySlot(n=%d) = slot %d ok %v, want slot %d ok %v", tt.n, slot, ok, tt.wantSlot, tt.wantOK)
			}
			if ok {
				if err := h.Release(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestTrySlotAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locks")
	const n, holders = 2, 5
	slots := map[string]int{}
	for range holders {
		// Every child that got a slot keeps it until the test ends, so the five
		// contend for real.
		c := startChild(t, "LOCKFILE_HELPER=slot", "LOCKFILE_DIR="+dir, "LOCKFILE_N="+strconv.Itoa(n))
		slots[c.line]++
	}
	want := map[string]int{"ok 0": 1, "ok 1": 1, "busy": holders - n}
	if fmt.Sprint(slots) != fmt.Sprint(want) {
		t.Fatalf("slot reports = %v, want %v", slots, want)
	}
	if _, ok, err := TrySlot(dir, n); ok || err != nil {
		t.Fatalf("TrySlot in parent = ok %v err %v, want busy", ok, err)
	}
}

// TestHeldInheritedSurvivesHolder: a lock handed to a child (ExtraFiles) stays held after
// its taker exits, until the child exits: a killed `hook observe` leaves its claude child
// in its agent slot.
func TestHeldInheritedSurvivesHolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ExtraFiles is unix only")
	}
	path := filepath.Join(t.TempDir(), "slot-0")
	c := startChild(t, "LOCKFILE_HELPER=inherit", "LOCKFILE_PATH="+path)
	if err := c.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(c.line, "ok "))
	if err != nil {
		t.Fatalf("child report %q", c.line)
	}
	gc, _ := os.FindProcess(pid)
	defer gc.Kill()
	if busy, err := Busy(path); !busy || err != nil {
		t.Fatalf("Busy with the taker gone and its child alive = %v, %v; want true", busy, err)
	}
	mustTry(t, path, false)
	gc.Kill()
	testkit.Eventually(t, 10*time.Second, "the lock to end with the child that inherited it", func() bool {
		busy, _ := Busy(path)
		return !busy
	})
}

func TestBusy(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope", "slot-0")
	if busy, err := Busy(missing); busy || err != nil {
		t.Errorf("Busy(missing) = %v, %v", busy, err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Busy created %s", filepath.Dir(missing))
	}
	path := filepath.Join(dir, "lock")
	release := mustTry(t, path, true)
	if busy, err := Busy(path); !busy || err != nil {
		t.Errorf("Busy(held) = %v, %v", busy, err)
	}
	release()
	if busy, err := Busy(path); busy || err != nil {
		t.Errorf("Busy(released) = %v, %v", busy, err)
	}
	mustTry(t, path, true)() // Busy left it free
}

func TestSlotFiles(t *testing.T) {
	dir := t.TempDir()
	for _, i := range []int{0, 3} {
		mustTry(t, slotPath(dir, i), true)()
	}
	mustTry(t, filepath.Join(dir, "session-00.lock"), true)()
	got := SlotFiles(dir)
	if len(got) != 2 || got[0] != slotPath(dir, 0) || got[1] != slotPath(dir, 3) {
		t.Errorf("SlotFiles = %q", got)
	}
}

// TestRefusesForeignLockFile: a lock file that is a symlink, or that others may write,
// is not taken (another user holding it would stop every observer run); the user's own
// is (the control).
func TestRefusesForeignLockFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits and symlinks: unix")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := TryLock(link); err == nil {
		t.Errorf("a symlinked lock file was taken")
	}
	open := filepath.Join(dir, "open.lock")
	if err := os.WriteFile(open, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o666)
	if _, _, err := TryLock(open); err == nil {
		t.Errorf("a lock file others may write was taken")
	}
	release, ok, err := TryLock(filepath.Join(dir, "own.lock"))
	if err != nil || !ok {
		t.Fatalf("control: the user's own lock: %v %v", ok, err)
	}
	release()
}

// TestRefusesAPlantedLockDir: a lock in a dir that is not the user's alone (a locks/
// symlinked to another user's dir, whose owner could remove a held lock) is refused and
// nothing is made there; the control is the user's own dir.
func TestRefusesAPlantedLockDir(t *testing.T) {
	base := t.TempDir()
	theirs := filepath.Join(base, "theirs")
	os.Mkdir(theirs, 0o700)
	os.Symlink(theirs, filepath.Join(base, "locks"))
	if h, ok, err := TryHold(filepath.Join(base, "locks", "x.lock")); err == nil || ok {
		if h != nil {
			h.Release()
		}
		t.Fatalf("a lock taken in a symlinked dir: %v", err)
	}
	if got := testkit.Entries(t, theirs); len(got) != 0 {
		t.Errorf("made %v in the symlink's target", got)
	}
	h, ok, err := TryHold(filepath.Join(theirs, "x.lock"))
	if err != nil || !ok {
		t.Fatalf("control: %v", err)
	}
	h.Release()
}
