package spawn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// tableProcs is a process table: pid → start time, or the error StartTime gives.
type tableProcs map[int]any

func (p tableProcs) StartTime(pid int) (string, error) {
	switch v := p[pid].(type) {
	case string:
		return v, nil
	case error:
		return "", v
	}
	return "", fmt.Errorf("process %d: %w", pid, ErrNoProcess)
}

func (tableProcs) KillGroup(int) error { return errors.New("not here") }

// OwnerAlive: only an owner of this host whose pid is gone or reused is dead; what cannot
// be told counts as alive (its events wait for the stale timeout instead of running twice).
func TestOwnerAlive(t *testing.T) {
	host, _ := os.Hostname()
	procs := tableProcs{10: "500", 11: "777", 12: errors.New("permission denied"), 13: fmt.Errorf("zombie: %w", ErrNoProcess)}
	alive := OwnerAlive(procs)
	for _, tc := range []struct {
		name string
		o    Owner
		want bool
	}{
		{"running, same start", Owner{Pid: 10, Start: "500", Host: host}, true},
		{"pid reused by a later process", Owner{Pid: 11, Start: "500", Host: host}, false},
		{"no such pid", Owner{Pid: 99, Start: "500", Host: host}, false},
		{"a zombie", Owner{Pid: 13, Start: "500", Host: host}, false},
		{"the table cannot be read", Owner{Pid: 12, Start: "500", Host: host}, true},
		{"another host's process", Owner{Pid: 99, Start: "500", Host: host + "-other"}, true},
	} {
		if got := alive(tc.o); got != tc.want {
			t.Errorf("%s: alive %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The real table: this process is alive under its own start time, not under another, and
// a pid that no process has is dead.
func TestOwnerAliveOnThisMachine(t *testing.T) {
	self, err := SelfOwner(OSProcs{})
	if err != nil {
		t.Skipf("no start times on this platform: %v", err)
	}
	alive := OwnerAlive(OSProcs{})
	if !alive(self) {
		t.Errorf("this process (%+v) reads as gone", self)
	}
	reused := Owner{Pid: self.Pid, Start: self.Start + "0", Host: self.Host}
	if alive(reused) {
		t.Errorf("a pid with another start time reads as alive")
	}
	if _, err := (OSProcs{}).StartTime(1 << 30); !errors.Is(err, ErrNoProcess) {
		t.Errorf("a pid no process has: %v, want ErrNoProcess", err)
	}
}

func TestOwnerFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadOwner(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no lease: %v, want not exist", err)
	}
	want := Owner{Pid: 42, Start: "123", Host: "h"}
	if err := WriteOwner(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadOwner(dir); err != nil || got != want {
		t.Errorf("read %+v, %v; want %+v", got, err, want)
	}
	if fi, _ := os.Stat(filepath.Join(dir, OwnerFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("lease mode %v", fi.Mode().Perm())
	}
	os.WriteFile(filepath.Join(dir, OwnerFile), []byte(`{"pid":4`), 0o600)
	if _, err := ReadOwner(dir); err == nil {
		t.Error("a torn lease read as an owner")
	}
}

// ReadResult classifies a transcript as Run classified the stdout it kept.
func TestReadResult(t *testing.T) {
	for _, tc := range []struct {
		name, transcript string
		want             vocab.Outcome
		text             string
		cost             float64
	}{
		{"answered", initLine + "\n" + `{"type":"assistant","message":{"content":[{"type":"text","text":"<observation>x</observation>"}]}}` + "\n" +
			`{"type":"result","subtype":"success","is_error":false,"result":"<observation>x</observation>","total_cost_usd":0.25}` + "\n",
			vocab.OutcomeOK, "<observation>x</observation>", 0.25},
		{"killed before its answer", initLine + "\n", vocab.OutcomeError, "", 0},
		{"no transcript", "", vocab.OutcomeError, "", 0},
	} {
		dir := t.TempDir()
		if tc.transcript != "" {
			os.WriteFile(filepath.Join(dir, TranscriptFile), []byte(tc.transcript), 0o600)
		}
		r := ReadResult(dir)
		if r.Outcome != tc.want || r.Text != tc.text || r.Usage.CostUSD != tc.cost {
			t.Errorf("%s: %s %q $%v (%s); want %s %q $%v", tc.name, r.Outcome, r.Text, r.Usage.CostUSD, r.Reason, tc.want, tc.text, tc.cost)
		}
		if tc.want != vocab.OutcomeOK && !strings.Contains(r.Reason, "no result") {
			t.Errorf("%s: reason %q", tc.name, r.Reason)
		}
	}
}

// A lease or a transcript that another user could have written is not read: it could make
// a live run look gone, or have its "answer" stored as memory.
func TestLeaseAndTranscriptMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	if err := WriteOwner(dir, Owner{Pid: 1, Start: "1", Host: "h"}); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, TranscriptFile)
	os.WriteFile(tr, []byte(`{"type":"result","subtype":"success","is_error":false,"result":"planted"}`+"\n"), 0o600)
	if _, err := ReadOwner(dir); err != nil {
		t.Fatalf("the control: a private lease is read: %v", err)
	}
	if r := ReadResult(dir); r.Outcome != vocab.OutcomeOK {
		t.Fatalf("the control: a private transcript is read: %+v", r)
	}
	if runtime.GOOS == "windows" {
		return // modes say nothing of other users there (private.Check reads the owner alone)
	}
	for _, p := range []string{filepath.Join(dir, OwnerFile), tr} {
		if err := os.Chmod(p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadOwner(dir); err == nil {
		t.Error("a lease others may write was read")
	}
	if r := ReadResult(dir); r.Outcome == vocab.OutcomeOK || r.Text != "" {
		t.Errorf("a transcript others may write was read: %+v", r)
	}
}
