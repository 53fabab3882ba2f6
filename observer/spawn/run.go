package spawn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Files of a run dir.
const (
	TranscriptFile = "transcript.jsonl"
	StderrFile     = "stderr.log"
)

// killGrace is how long a child may take to stop after SIGTERM (CTRL_BREAK on windows)
// before its group is killed, and how long its output may take to drain after it exits.
var killGrace = 5 * time.Second

// stderrTailBytes bounds Result.StderrTail, what is logged at ERROR on a non-zero exit.
const stderrTailBytes = 4 << 10

// RunFileCap bounds each of transcript.jsonl and stderr.log (head and tail are kept) and the
// stdout a child may print: past it the child is stopped, outcome error (DESIGN.md §18).
var RunFileCap int64 = 8 << 20

// RunLockFile is held by a run (and its child) while the run lives: Prune skips a run dir
// whose lock is held.
const RunLockFile = "run.lock"

// ErrShellTarget is a binary that windows would run through cmd.exe or a script host, which
// is exactly the shell the observer must never go through.
var ErrShellTarget = errors.New("refusing a script target: it would run through a shell")

// Result is what one observer run produced.
type Result struct {
	Outcome    vocab.Outcome
	Reason     string // why, for every outcome but ok
	Text       string // the final result text (ok only)
	Truncated  bool   // the answer was cut at the model's output limit (ok only)
	Continued  int    // cut parts the CLI continued and Text joins (ok only)
	ExitCode   int    // -1 when the child did not exit on its own (not started, killed)
	StderrTail string
	Binary     string // what actually ran (after a re-resolve, the new path)
	Lines      int    // stdout lines (transcript.jsonl keeps them scrubbed, within RunFileCap)
	StartErr   error  // setup_required: why the spawn failed (*claudebin.UnspawnableError, *claudebin.NotFoundError)
	// Usage is the result line's tokens, cost and durations, whatever the outcome; zero
	// when no result line came. Model is the model that answered, when the output says.
	Usage store.Usage
	Model string
}

// StdinMessage is the one stream-json user message the child gets on stdin, as one line.
func StdinMessage(prompt string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // ends the line with \n
	enc.SetEscapeHTML(false)
	_ = enc.Encode(userMessage{Type: "user", Message: messageBody{Role: "user", Content: prompt}}) // strings always encode
	return b.Bytes()
}

type userMessage struct {
	Type    string      `json:"type"`
	Message messageBody `json:"message"`
}

type messageBody struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Options is what a run holds besides its spec.
type Options struct {
	// Slot is the agent slot the run holds. The child inherits its lock, so the slot stays
	// taken until the child exits even if this process is killed, and the child's Lease is
	// written in it for ReapOrphans.
	Slot *lockfile.Held
	// Procs reads the child's start time for its lease; nil is OSProcs.
	Procs Procs
	// Now is the clock the lease's deadline is read from (required with Slot).
	Now func() time.Time
}

// Run starts spec exactly as declared (no shell: Path, Args, Dir and Env are all set), sends
// prompt on stdin, keeps stdout in <Dir>/transcript.jsonl and stderr in <Dir>/stderr.log
// (each capped by RunFileCap), and classifies the outcome. spec.Binary is started first;
// when that fails with ENOENT/EACCES/ETXTBSY/ENOEXEC, resolve (required) is asked once more
// and its path is tried once.
// A spec.Timeout > 0 bounds the run: the child's group is stopped, then killed after
// killGrace; so is a child whose stdout passes RunFileCap.
func Run(ctx context.Context, spec Spec, prompt string, resolve func() (claudebin.Result, error), opt Options) Result {
	res := Result{Binary: spec.Binary, ExitCode: -1}
	fail := func(o vocab.Outcome, format string, a ...any) Result {
		res.Outcome, res.Reason = o, fmt.Sprintf(format, a...)
		return res
	}
	// The run dir is checked with the sessions dir above it, the config dir alone.
	for _, d := range [][2]string{{filepath.Dir(filepath.Dir(spec.Dir)), spec.Dir}, {filepath.Dir(spec.ConfigDir), spec.ConfigDir}} {
		if err := MakeRunDir(d[0], d[1]); err != nil {
			return fail(vocab.OutcomeError, "creating %s: %v", d[1], err)
		}
	}
	runLock, ok, err := lockfile.TryHold(filepath.Join(spec.Dir, RunLockFile))
	if err != nil || !ok {
		return fail(vocab.OutcomeError, "locking the run dir %s: %v", spec.Dir, err)
	}
	defer runLock.Release()
	if spec.SettingsFile != "" {
		// The apiKeyHelper goes in a file only this user can read, never in argv (§18); it
		// is removed once the child is gone.
		if err := writePrivate(spec.SettingsFile, spec.SettingsJSON()); err != nil {
			return fail(vocab.OutcomeError, "writing %s: %v", spec.SettingsFile, err)
		}
		defer os.Remove(spec.SettingsFile)
	}
	inherited := []*os.File{runLock.File}
	if opt.Slot != nil {
		inherited = append(inherited, opt.Slot.File)
	}
	// Run files are scrubbed as written and capped, head and tail kept (§16, §18): a
	// child may print its credential, or a gigabyte.
	known := spec.Auth.Value.Reveal()
	transcriptFile, err := os.OpenFile(filepath.Join(spec.Dir, TranscriptFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(vocab.OutcomeError, "%v", err)
	}
	defer transcriptFile.Close()
	transcript := redact.NewWriter(transcriptFile, RunFileCap, known)
	stderrPath := filepath.Join(spec.Dir, StderrFile)
	stderrFile, err := os.OpenFile(stderrPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(vocab.OutcomeError, "%v", err)
	}
	defer stderrFile.Close()
	stderr := redact.NewWriter(stderrFile, RunFileCap, known)

	var c *child
	first := true
	bin, err := claudebin.StartWithRetry(func() (claudebin.Result, error) {
		if first { // the binary the spec declares (and logged) is the one tried first
			first = false
			return claudebin.Result{Path: spec.Binary, Via: spec.Via}, nil
		}
		return resolve()
	}, func(b claudebin.Result) (err error) {
		if c, err = startChild(spec, b.Path, inherited); err != nil {
			if _, serr := os.Stat(spec.Dir); serr != nil {
				// The run dir went away (exec reports a missing cwd as ENOENT): nothing is
				// wrong with claude, so this must not read as setup_required.
				return &localStartError{fmt.Errorf("the run dir is gone: %v", serr)}
			}
		}
		return err
	})
	if bin.Path != "" {
		res.Binary = bin.Path
	}
	if err != nil {
		var local *localStartError
		if errors.As(err, &local) {
			// Out of file descriptors, say: nothing is wrong with claude (no setup pause) nor
			// with the events (no attempt counted); a later run tries again.
			return fail(vocab.OutcomeTransient, "starting the observer: %v", local.err)
		}
		res.StartErr = err
		return fail(vocab.OutcomeSetupRequired, "%v", err)
	}
	defer c.group.close()
	if opt.Slot != nil {
		procs := opt.Procs
		if procs == nil {
			procs = OSProcs{}
		}
		// Without a start time the lease could not be checked against pid reuse: none is
		// written, and an orphan then keeps the slot until it exits by itself.
		if st, err := procs.StartTime(c.cmd.Process.Pid); err == nil && spec.Timeout > 0 {
			deadline := opt.Now().Add(spec.Timeout + killGrace)
			_ = writeLease(opt.Slot.File, Lease{Pid: c.cmd.Process.Pid, Start: st, Deadline: deadline, Run: spec.RunID})
		}
		defer opt.Slot.File.Truncate(0) // the child is gone: nothing to reap
	}

	go func() {
		_, _ = c.stdin.Write(StdinMessage(prompt)) // EPIPE when the child exits unread: classified below
		_ = c.stdin.Close()
	}()
	defer c.stdin.Close() // unblocks the writer if the child never read

	var out *stream
	tooLarge := make(chan struct{})
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(outDone)
		out, res.Lines = readLines(c.stdout, transcript, RunFileCap, func() { close(tooLarge) })
	}()
	go func() {
		defer close(errDone)
		_, _ = io.Copy(stderr, c.stderr) // capped: memory stays bounded however much comes
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- c.cmd.Wait() }()

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	stopped := ""
	select {
	case <-waitDone:
	case <-timeout:
		stopped = "timed out after " + spec.Timeout.String()
	case <-ctx.Done():
		stopped = "stopped: " + context.Cause(ctx).Error()
	case <-tooLarge:
		stopped = fmt.Sprintf("output too large: stdout passed %d bytes", RunFileCap)
	}
	if stopped != "" {
		c.group.terminate()
		grace := time.NewTimer(killGrace)
		select {
		case <-waitDone:
		case <-grace.C:
			c.group.kill()
			<-waitDone
		}
		grace.Stop()
	}
	// Nothing the child started may outlive it; its output ends when the last writer is gone.
	c.group.kill()
	drain := time.NewTimer(killGrace)
	for _, p := range []struct {
		done <-chan struct{}
		r    *os.File
	}{{outDone, c.stdout}, {errDone, c.stderr}} {
		select {
		case <-p.done:
		case <-drain.C: // a descendant escaped the group and holds the pipe
			_ = c.stdout.Close()
			_ = c.stderr.Close()
			<-p.done
		}
	}
	drain.Stop()
	_ = c.stdout.Close()
	_ = c.stderr.Close()
	_ = transcript.Close() // writes the kept tail
	_ = stderr.Close()

	res.ExitCode = c.cmd.ProcessState.ExitCode()
	res.StderrTail = tail(stderrPath, stderrTailBytes)
	res.Usage, res.Model = out.usage, out.model
	select {
	case <-tooLarge:
		// Whatever the stream said, a child that flooded its output is an error (attempts
		// counted), not a timeout to retry as it is.
		res.Outcome, res.Reason = vocab.OutcomeError, stopped
		return res
	default:
	}
	res.Outcome, res.Reason = out.classify(res.ExitCode, stopped)
	if res.Outcome == vocab.OutcomeOK {
		res.Text, res.Truncated, res.Continued = out.text(), out.truncated, out.continued
	}
	return res
}

type child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	group  *procGroup
}

// startChild starts path with the spec's argv, cwd and environment, in its own process group.
// localStartError is a start failure of this process (its pipes), not of the executable.
type localStartError struct{ err error }

func (e *localStartError) Error() string { return e.err.Error() }
func (e *localStartError) Unwrap() error { return e.err }

// newPipe is os.Pipe; a test makes it fail as a process out of file descriptors would.
var newPipe = os.Pipe

func startChild(spec Spec, path string, inherited []*os.File) (*child, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cmd", ".bat", ".ps1":
		return nil, fmt.Errorf("%w: %s", ErrShellTarget, path)
	}
	var ends [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	closeAll := func(fs ...*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := 0; i < len(ends); i += 2 {
		r, w, err := newPipe()
		if err != nil {
			closeAll(ends[:i]...)
			return nil, &localStartError{err}
		}
		ends[i], ends[i+1] = r, w
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{path}, spec.Args[min(1, len(spec.Args)):]...), // Args[0] is the path that runs
		Dir:  spec.Dir,
		Env:  append([]string{}, spec.Env...), // never nil: nil would be our whole environment
		// *os.File ends: the child writes to them directly, so Wait never waits for a
		// descendant that keeps a copy open.
		Stdin:  ends[0],
		Stdout: ends[3],
		Stderr: ends[5],
	}
	ownGroup(cmd)
	inherit(cmd, inherited)
	err := cmd.Start()
	closeAll(ends[0], ends[3], ends[5])
	if err != nil {
		closeAll(ends[1], ends[2], ends[4])
		return nil, err
	}
	return &child{cmd: cmd, stdin: ends[1], stdout: ends[2], stderr: ends[4], group: newProcGroup(cmd)}, nil
}

// readLines copies stdout to the transcript and classifies it line by line, keeping only
// what classification needs (stream), never the whole output: memory stays bounded whatever
// the child prints. A line longer than limit is not parsed. When more than limit bytes have
// come, over is called once; reading goes on (to the capped transcript) until the end.
func readLines(r io.Reader, transcript io.Writer, limit int64, over func()) (s *stream, n int) {
	s = &stream{}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	long := false
	var seen int64
	for {
		chunk, err := br.ReadSlice('\n')
		seen += int64(len(chunk))
		if seen > limit && over != nil {
			over()
			over = nil
		}
		if len(chunk) > 0 {
			_, _ = transcript.Write(chunk) // a full disk must not stop the run
			if int64(len(line)+len(chunk)) <= limit && !long {
				line = append(line, chunk...)
			} else {
				long, line = true, line[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 || long {
			n++
			if len(line) > 0 && line[len(line)-1] != '\n' {
				_, _ = transcript.Write([]byte{'\n'})
			}
			if t := bytes.TrimRight(line, "\r\n"); len(t) > 0 && !long && seen <= limit {
				s.add(t)
			}
		}
		line, long = line[:0], false
		if err != nil {
			return s, n
		}
	}
}

// writePrivate writes a file only its owner can read (0600 whatever the umask).
func writePrivate(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Chmod(0o600)
	if err := f.Close(); werr == nil && cerr == nil {
		return err
	}
	return errors.Join(werr, cerr)
}

// tail returns the last limit bytes of a file, starting at a whole UTF-8 character.
func tail(path string, limit int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-limit, 0)
	b := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(b, off)
	return strings.TrimSpace(clip.Tail(string(b[:n]), int(limit)))
}
