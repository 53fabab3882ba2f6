//go:build linux

package tests

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// viewerURL is the address `hook viewer` prints: its per-launch name, port and token.
var viewerURL = regexp.MustCompile(`^http://(claude-mem-[a-z2-7]{16}\.localhost):(\d+)/\?token=([0-9a-f]{32})$`)

// localhostTransport dials loopback for every name under .localhost, as browsers do
// (Go's resolver leaves them to /etc/hosts and DNS).
func localhostTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && strings.HasSuffix(host, ".localhost") {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return t
}

// TestViewerOpen_TokenOnNoArgv: `hook viewer` opens the browser on a 0600 redirect file in
// a user-only dir, so while the opener runs (a fake xdg-open that sleeps) no process's
// argv, readable by every local user in /proc, holds the token or the per-launch host
// name; the printed URL still does, for the terminal. The file goes when the viewer
// stops.
func TestViewerOpen_TokenOnNoArgv(t *testing.T) {
	track(t)
	h := journalHarness(t)
	record := filepath.Join(h.root, "xdg-open.args")
	fake := "#!/bin/sh\nprintf '%s\\n' \"$$\" \"$@\" > " + record + ".tmp && mv " + record + ".tmp " + record + "\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(h.bin, "xdg-open"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hookBin, "viewer", "--port", "0")
	cmd.Env, cmd.Dir = h.environ(map[string]string{"DISPLAY": ":99"}), h.work
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no address printed: %v (stderr %q)", err, stderr.String())
	}
	_, url, _ := strings.Cut(strings.TrimSpace(first), "viewer: ")
	m := viewerURL.FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("control: the printed address is not the per-launch name with a token: %q", first)
	}
	name, token := m[1], m[3]

	var args []string
	ran := testkit.Within(20*time.Second, func() bool {
		b, err := os.ReadFile(record)
		if err == nil {
			args = strings.Split(strings.TrimSpace(string(b)), "\n")
		}
		return err == nil
	})
	if !ran {
		t.Fatalf("the fake xdg-open never ran (stderr %q)", stderr.String())
	}
	pid, _ := strconv.Atoi(args[0])
	defer syscall.Kill(pid, syscall.SIGKILL)
	if len(args) != 2 {
		t.Fatalf("xdg-open got %q; want one argument", args[1:])
	}
	launcher := args[1]

	// The fake writes its record before it execs sleep: scan once the opener sleeps, so
	// the control below finds it by its argv.
	testkit.Eventually(t, 20*time.Second, "the opener to exec sleep", func() bool {
		b, _ := os.ReadFile(filepath.Join("/proc", args[0], "cmdline"))
		return bytes.HasPrefix(b, []byte("sleep\x00"))
	})
	// Every process's argv, the opener's (still running: it sleeps) included.
	sawOpener := false
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(token)) || bytes.Contains(b, []byte(name)) {
			t.Errorf("process %s has the token or the host name in its argv: %q", e.Name(), bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
		if e.Name() == args[0] && bytes.Contains(b, []byte("sleep")) {
			sawOpener = true
		}
	}
	if !sawOpener {
		t.Errorf("control: the opener (pid %d) was not found running in /proc", pid)
	}
	page, err := os.ReadFile(launcher)
	if err != nil || !bytes.Contains(page, []byte(`content="0;url=`+url+`"`)) {
		t.Fatalf("the launcher %s does not redirect to the tokened address (%v): %s", launcher, err, page)
	}
	fi, _ := os.Stat(launcher)
	di, _ := os.Stat(filepath.Dir(launcher))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("launcher %v in a dir %v; want 0600 in 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("viewer: %v (stderr %q)", err, stderr.String())
	}
	if _, err := os.Stat(launcher); err == nil {
		t.Errorf("the launcher %s is left after the viewer stopped", launcher)
	}
}
