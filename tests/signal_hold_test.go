//go:build linux

package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalHold_EarlySignals: SIGTERM, SIGINT and SIGHUP at 0, 1, 2, 3, 5 and 8 ms after
// a PostToolUse hook starts, 20 each. A hook the signal did not kill exits 0 and its event
// is stored, whenever the signal came; the only events lost are those of hooks killed
// before Go ran holdsig's init (the window left, in the "killed" table). What is stored is
// counted, not waited for. CLAUDE_MEM_HOOK_BEFORE=<an older build> prints its table too.
func TestSignalHold_EarlySignals(t *testing.T) {
	track(t)
	h := journalHarness(t)
	bins := []string{hookBin}
	if b := os.Getenv("CLAUDE_MEM_HOOK_BEFORE"); b != "" {
		bins = append(bins, b)
	}
	sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
	delays := []int{0, 1, 2, 3, 5, 8}
	const n = 20
	env := h.environ(nil)
	for bi, bin := range bins {
		sid := fmt.Sprintf("sig%d", bi)
		type cell struct{ killed, lost int }
		cells := map[string]*cell{}
		ids := map[string][]string{}
		for _, sig := range sigs {
			for _, ms := range delays {
				key := fmt.Sprintf("%s@%d", sig, ms)
				cells[key] = &cell{}
				for i := range n {
					id := fmt.Sprintf("toolu_%s_%s_%d_%02d", sid, strings.ToLower(sig.String()[:4]), ms, i)
					cmd := exec.Command(bin)
					cmd.Env, cmd.Dir = env, h.proj
					cmd.Stdin = bytes.NewReader(h.toolEvent(sid, id, 200))
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					if ms > 0 {
						time.Sleep(time.Duration(ms) * time.Millisecond)
					}
					cmd.Process.Signal(sig)
					err := cmd.Wait()
					var ee *exec.ExitError
					switch {
					case err == nil:
						ids[key] = append(ids[key], id) // exited 0: its event must be stored
					case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
						cells[key].killed++
					default:
						t.Errorf("%s %s: %v, stderr %q; want exit 0 or death by the signal", bin, key, err, stderr.String())
					}
					if stderr.Len() > 0 && err == nil {
						t.Errorf("%s %s: stderr %q", bin, key, stderr.String())
					}
				}
			}
		}
		h.ingest()
		stored, _ := h.storedEvents()
		for key, want := range ids {
			for _, id := range want {
				if stored[id] != 1 {
					t.Errorf("%s %s: %s exited 0 but its event is stored %d times", bin, key, id, stored[id])
				}
			}
		}
		var table strings.Builder
		fmt.Fprintf(&table, "%s: events lost of %d (killed by the signal before it was held)\n%-8s", bin, n, "")
		for _, ms := range delays {
			fmt.Fprintf(&table, "%6s", strconv.Itoa(ms)+"ms")
		}
		for _, sig := range sigs {
			fmt.Fprintf(&table, "\n%-8s", map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}[sig])
			for _, ms := range delays {
				key := fmt.Sprintf("%s@%d", sig, ms)
				got := 0
				for i := range n {
					if stored[fmt.Sprintf("toolu_%s_%s_%d_%02d", sid, strings.ToLower(sig.String()[:4]), ms, i)] == 1 {
						got++
					}
				}
				cells[key].lost = n - got
				fmt.Fprintf(&table, "%6d", cells[key].lost)
				if cells[key].lost != cells[key].killed && bin == hookBin {
					t.Errorf("%s: %d events lost, %d hooks killed; every hook not killed must keep its event", key, cells[key].lost, cells[key].killed)
				}
			}
		}
		t.Log(table.String())
	}
	// The window left: when holdsig's init ran, per GODEBUG=inittrace=1 (ms after start).
	var at []float64
	for range 20 {
		cmd := exec.Command(hookBin)
		cmd.Env, cmd.Dir = append(env, "GODEBUG=inittrace=1"), h.proj
		cmd.Stdin = strings.NewReader("{}")
		out, _ := cmd.CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 2 && strings.HasSuffix(f[1], "/holdsig") {
				v, _ := strconv.ParseFloat(strings.TrimPrefix(f[2], "@"), 64)
				at = append(at, v)
			}
		}
	}
	slices.Sort(at)
	if len(at) != 20 {
		t.Fatalf("holdsig's init seen in %d of 20 traces", len(at))
	}
	t.Logf("signals held from %.2f ms (median), %.2f ms (max) after the process started", at[10], at[19])
}
