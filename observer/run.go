package observer

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
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/store"
)

// Outcome is how an observer run ended (DESIGN.md §8).
type Outcome string

const (
	OutcomeOK            Outcome = "ok"             // observations parsed from Text; events done
	OutcomeAuthFailed    Outcome = "auth_failed"    // pause until the credential changes
	OutcomeSetupRequired Outcome = "setup_required" // the spawn itself failed; pause
	OutcomeTransient     Outcome = "transient"      // rate limit, overload, timeout: retry later
	OutcomeError         Outcome = "error"          // anything else: attempts counted
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

// ErrShellTarget is a binary that windows would run through cmd.exe or a script host, which
// is exactly the shell the observer must never go through.
var ErrShellTarget = errors.New("refusing a script target: it would run through a shell")

// Result is what one observer run produced.
type Result struct {
	Outcome    Outcome
	Reason     string // why, for every outcome but ok
	Text       string // the final result text (ok only)
	ExitCode   int    // -1 when the child did not exit on its own (not started, killed)
	StderrTail string
	Binary     string // what actually ran (after a re-resolve, the new path)
	Lines      int    // stdout lines, all kept in <Dir>/transcript.jsonl
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

// Run starts spec exactly as declared (no shell: Path, Args, Dir and Env are all set), sends
// prompt on stdin, keeps every stdout line in <Dir>/transcript.jsonl and stderr in
// <Dir>/stderr.log, and classifies the outcome. spec.Binary is started first; when that
// fails with ENOENT/ETXTBSY/ENOEXEC, resolve (required) is asked once more and its path is
// tried once.
// A spec.Timeout > 0 bounds the run: the child's group is stopped, then killed after killGrace.
func Run(ctx context.Context, spec Spec, prompt string, resolve func() (claudebin.Result, error)) Result {
	res := Result{Binary: spec.Binary, ExitCode: -1}
	fail := func(o Outcome, format string, a ...any) Result {
		res.Outcome, res.Reason = o, fmt.Sprintf(format, a...)
		return res
	}
	for _, d := range []string{spec.Dir, spec.ConfigDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fail(OutcomeError, "creating %s: %v", d, err)
		}
	}
	transcript, err := os.OpenFile(filepath.Join(spec.Dir, TranscriptFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(OutcomeError, "%v", err)
	}
	defer transcript.Close()
	stderrPath := filepath.Join(spec.Dir, StderrFile)
	stderr, err := os.OpenFile(stderrPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(OutcomeError, "%v", err)
	}
	defer stderr.Close()

	var c *child
	first := true
	bin, err := claudebin.StartWithRetry(func() (claudebin.Result, error) {
		if first { // the binary the spec declares (and logged) is the one tried first
			first = false
			return claudebin.Result{Path: spec.Binary, Via: spec.Via}, nil
		}
		return resolve()
	}, func(b claudebin.Result) (err error) {
		c, err = startChild(spec, b.Path, stderr)
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
			return fail(OutcomeTransient, "starting the observer: %v", local.err)
		}
		res.StartErr = err
		return fail(OutcomeSetupRequired, "%v", err)
	}
	defer c.group.close()

	go func() {
		_, _ = c.stdin.Write(StdinMessage(prompt)) // EPIPE when the child exits unread: classified below
		_ = c.stdin.Close()
	}()
	defer c.stdin.Close() // unblocks the writer if the child never read

	var lines [][]byte
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		lines, res.Lines = readLines(c.stdout, transcript)
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
	select {
	case <-readDone:
	case <-drain.C: // a descendant escaped the group and holds stdout
		_ = c.stdout.Close()
		<-readDone
	}
	drain.Stop()
	_ = c.stdout.Close()

	res.ExitCode = c.cmd.ProcessState.ExitCode()
	res.StderrTail = tail(stderrPath, stderrTailBytes)
	s := scan(lines)
	res.Outcome, res.Reason = s.classify(res.ExitCode, stopped)
	res.Usage, res.Model = s.usage, s.model
	if res.Outcome == OutcomeOK {
		res.Text = s.text()
	}
	return res
}

type child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	group  *procGroup
}

// startChild starts path with the spec's argv, cwd and environment, in its own process group.
// localStartError is a start failure of this process (its pipes), not of the executable.
type localStartError struct{ err error }

func (e *localStartError) Error() string { return e.err.Error() }
func (e *localStartError) Unwrap() error { return e.err }

// newPipe is os.Pipe; a test makes it fail as a process out of file descriptors would.
var newPipe = os.Pipe

func startChild(spec Spec, path string, stderr *os.File) (*child, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cmd", ".bat", ".ps1":
		return nil, fmt.Errorf("%w: %s", ErrShellTarget, path)
	}
	inR, inW, err := newPipe()
	if err != nil {
		return nil, &localStartError{err}
	}
	outR, outW, err := newPipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, &localStartError{err}
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{path}, spec.Args[min(1, len(spec.Args)):]...), // Args[0] is the path that runs
		Dir:  spec.Dir,
		Env:  append([]string{}, spec.Env...), // never nil: nil would be our whole environment
		// *os.File ends: the child writes to them directly, so Wait never waits for a
		// descendant that keeps a copy open.
		Stdin:  inR,
		Stdout: outW,
		Stderr: stderr,
	}
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return &child{cmd: cmd, stdin: inW, stdout: outR, group: newProcGroup(cmd)}, nil
}

// readLines appends every stdout line to the transcript and keeps the non-empty ones for
// classification.
func readLines(r io.Reader, transcript io.Writer) (kept [][]byte, n int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			_, _ = transcript.Write(line) // a full disk must not stop the run; the lines are kept below
			if t := bytes.TrimRight(line, "\r\n"); len(t) > 0 {
				kept = append(kept, t)
			}
		}
		if err != nil {
			return kept, n
		}
	}
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
	b = b[:n]
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return strings.TrimSpace(string(b))
}
