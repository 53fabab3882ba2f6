package spawn

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// OwnerFile, in a run dir, names the `hook observe` that claimed the run's events. Written
// before the claim, so a run whose process is gone (SIGKILL, a crash, a reboot) is told from
// one still working and its events go back at once, not after the stale timeout.
const OwnerFile = "owner.json"

// Owner is the process that claimed a run's events: its pid, its start time as the OS
// reports it (a reused pid is another process) and the host (a data dir shared between
// machines names processes of another process table).
type Owner struct {
	Pid   int    `json:"pid"`
	Start string `json:"start"`
	Host  string `json:"host"`
}

// ErrNoProcess is a Procs.StartTime error: no process has the pid (or only its zombie).
var ErrNoProcess = errors.New("no such process")

// SelfOwner is this process as a run's owner; an error when its start time cannot be read
// (no lease is then written, and the stale timeout alone requeues its events).
func SelfOwner(procs Procs) (Owner, error) {
	st, err := procs.StartTime(os.Getpid())
	if err != nil {
		return Owner{}, err
	}
	host, _ := os.Hostname()
	return Owner{Pid: os.Getpid(), Start: st, Host: host}, nil
}

// WriteOwner writes o into the run dir (0600, replaced whole).
func WriteOwner(dir string, o Owner) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return writePrivate(filepath.Join(dir, OwnerFile), b)
}

// ReadOwner reads the run dir's owner; fs.ErrNotExist when the run wrote none (a build
// before it, or a run killed before its claim). A lease another user could have written is
// refused (*private.Error): it could make a live run look gone.
func ReadOwner(dir string) (Owner, error) {
	b, err := private.ReadFile(filepath.Join(dir, OwnerFile))
	if err != nil {
		return Owner{}, err
	}
	var o Owner
	if err := json.Unmarshal(b, &o); err != nil || o.Pid <= 0 || o.Start == "" {
		return Owner{}, errors.New(OwnerFile + " is torn")
	}
	return o, nil
}

// OwnerAlive is the rule that tells whether a run's owner still runs, on this machine's
// process table: only an owner of this host whose pid is gone, or now names a process that
// started at another time, is dead. Anything that cannot be told (another host, a platform
// without start times, /proc unreadable) counts as alive: its events wait for the stale
// timeout rather than being run twice.
func OwnerAlive(procs Procs) func(Owner) bool {
	host, _ := os.Hostname()
	return func(o Owner) bool {
		if o.Host != host {
			return true
		}
		st, err := procs.StartTime(o.Pid)
		switch {
		case err == nil:
			return st == o.Start
		case errors.Is(err, ErrNoProcess):
			return false
		}
		return true
	}
}

// ReadResult classifies a finished run from its transcript, as Run did from its stdout:
// what a run whose process was gone before it stored the answer left. The transcript is
// scrubbed and capped (§18); a missing one is a run that printed nothing, and one another
// user could have written is not read (its "answer" would be stored as memory).
func ReadResult(dir string) Result {
	res := Result{ExitCode: -1}
	s := &stream{}
	f, err := private.Open(filepath.Join(dir, TranscriptFile), os.O_RDONLY)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		res.Outcome, res.Reason = vocab.OutcomeError, err.Error()
		return res
	}
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, int(RunFileCap))
		for sc.Scan() {
			res.Lines++
			if len(sc.Bytes()) > 0 {
				s.add(sc.Bytes())
			}
		}
	}
	// Its exit status is not known: a result line decides, as for a child that exited 0.
	res.Outcome, res.Reason = s.classify(0, "")
	res.Usage, res.Model = s.usage, s.model
	if res.Outcome == vocab.OutcomeOK {
		res.Text, res.Truncated, res.Continued = s.text(), s.truncated, s.continued
	}
	return res
}
