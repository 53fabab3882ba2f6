//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// The viewer stops cleanly on SIGTERM, which only unix can send to itself.
func TestViewerAction(t *testing.T) {
	w := newWorld(t).filled()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	w.expect(1, "claude-mem viewer: …", []string{"viewer", "--no-open", "--port", port})
	ln.Close()
	w.expect(2, "claude-mem viewer: --port 70000: not a port (0 to 65535)\n…", []string{"viewer", "--port", "70000"})
	w.expect(2, "claude-mem viewer: unexpected \"x\"\n…", []string{"viewer", "x"})

	r, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(w.proc(strings.NewReader(""), pw, &errb, "viewer", "--no-open")); pw.Close() }()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "claude-mem viewer: http://") {
		t.Fatalf("first line %q, %v", line, err)
	}
	go io.Copy(io.Discard, r)
	// Its signal handler is installed before the address is printed.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if rc := <-done; rc != 0 || errb.Len() != 0 {
		t.Errorf("after SIGTERM: rc %d stderr %q", rc, errb.String())
	}
}
