// Package journal is the capture journal (DESIGN.md §15): hook mode appends each captured
// record as one line of <data>/journal/<session>.jsonl and returns without touching
// SQLite; Ingest moves the records into the store exactly once. When the data dir cannot
// take a line (full, read-only, not ours), it goes to a fallback dir on another
// filesystem, which Ingest reads too.
package journal

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// Version is the newest record format this build writes and reads. A line of a later
// version (a newer claude-mem wrote it) is left for that version to ingest. Each record
// carries the oldest version that can store it (versionOf), so a build from before a kind
// still ingests the other kinds and leaves that one's file for a newer build.
const Version = 2

// versionOf is the oldest record format that knows kind: 2 added the answer.
func versionOf(kind string) int {
	if kind == store.CaptureAnswer {
		return 2
	}
	return 1
}

const (
	ext      = ".jsonl"
	claimExt = ".ingesting"
	// appendWait bounds an appender's wait for the file lock, which another appender holds
	// for one write and an ingester only while it takes over a renamed file.
	appendWait = 500 * time.Millisecond
)

// Record is one line of a journal: one captured thing, with the id that makes its
// ingestion idempotent.
type Record struct {
	V       int    `json:"v"`
	ID      string `json:"id"`
	Kind    string `json:"kind"` // store.CaptureStart, CapturePrompt, CaptureEvent, CaptureAnswer, CaptureEnd
	Session string `json:"session"`
	Project string `json:"project"`
	Cwd     string `json:"cwd"`
	At      int64  `json:"at"` // unix nanoseconds

	Text      string `json:"text,omitempty"` // prompt, answer
	Hook      string `json:"hook,omitempty"` // event
	Tool      string `json:"tool,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Input     string `json:"input,omitempty"`
	Response  string `json:"response,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	Final     bool   `json:"final,omitempty"` // end: a summary is owed

	Day      string         `json:"day,omitempty"` // local date of capture, for Redacted
	Redacted map[string]int `json:"redacted,omitempty"`
}

// Journal is a data dir's journal dir and its fallbacks.
type Journal struct {
	// Dir is <data>/journal; Fallbacks are tried in order when an append to Dir fails
	// (the user runtime dir, the user cache dir, then the temp dir), each private to this
	// data dir.
	Dir       string
	Fallbacks []string
	// Refused is why the data dir is not the user's alone (a *private.Error), or nil:
	// Append then skips Dir, whose records another user could read or replace.
	Refused error
	bases   []string // the shared dir each fallback is under: checked from there down
	// legacy is the temp fallback as versions before the uid in its name made it
	// (<temp>/claude-mem/journal-…), under legacyBase: read, never written, and only when
	// it is the user's alone (no version wrote to it otherwise), so records an upgrade
	// found waiting there are not lost.
	legacy, legacyBase string
	now                func() time.Time
}

// tempDirName is the temp dir's fallback parent: claude-mem-<uid>, as tmux and ssh-agent
// name theirs, so another user's claude-mem (whose dir a shared /tmp holds first) never
// takes it. uid "" (Windows, whose temp dir is the user's own) is plain claude-mem.
func tempDirName(uid string) string {
	if uid == "" {
		return settings.DirName
	}
	return settings.DirName + "-" + uid
}

// New is the journal of dataDir. runtimeDir ($XDG_RUNTIME_DIR: per user, 0700), cacheHome
// and tempDir (any may be "", and only an absolute one is used) hold the fallback dirs,
// named for the data dir so two data dirs never ingest each other's records; the temp
// dir's is under claude-mem-<uid> (uid: the user's id, "" where the temp dir is the
// user's own), the other two bases being the user's alone.
func New(dataDir, runtimeDir, cacheHome, tempDir, uid string, now func() time.Time) *Journal {
	j := &Journal{Dir: settings.Layout(dataDir).Journal(), now: now}
	sum := sha256.Sum256([]byte(filepath.Clean(dataDir)))
	tag := "journal-" + hex.EncodeToString(sum[:6])
	for i, base := range []string{runtimeDir, cacheHome, tempDir} {
		// A relative dir (an unset HOME gave one) would be the hook's cwd: the user's project.
		if !filepath.IsAbs(base) {
			continue
		}
		name := settings.DirName
		if i == 2 {
			name = tempDirName(uid)
			if name != settings.DirName {
				j.legacy, j.legacyBase = filepath.Join(base, settings.DirName, tag), base
			}
		}
		j.Fallbacks = append(j.Fallbacks, filepath.Join(base, name, tag))
		j.bases = append(j.bases, base)
	}
	return j
}

// checkFallback makes (create) or checks fallback i and the dir above it: both must be the
// user's alone, or another local user could plant records in it or read them.
func (j *Journal) checkFallback(i int, create bool) error {
	if create {
		return private.MkdirAll(j.bases[i], j.Fallbacks[i])
	}
	return private.Dirs(j.bases[i], j.Fallbacks[i])
}

// checkDir checks journal dir i of Dirs (0: Dir, then the fallbacks, then the legacy
// one), making a fallback when create: each must be the user's alone (Dir is made by its
// first append, and refused with the data dir).
func (j *Journal) checkDir(i int, create bool) error {
	switch {
	case i > len(j.Fallbacks):
		return private.Dirs(j.legacyBase, j.legacy)
	case i > 0:
		return j.checkFallback(i-1, create)
	case j.Refused != nil:
		return j.Refused
	}
	return private.Lstat(j.Dir)
}

// Dirs is every dir a record may wait in: Dir, the fallbacks, then the legacy one.
func (j *Journal) Dirs() []string {
	dirs := j.places()
	if j.legacy != "" {
		dirs = append(dirs, j.legacy)
	}
	return dirs
}

// places are the dirs a record is written to, in order: Dir, then the fallbacks.
func (j *Journal) places() []string { return append([]string{j.Dir}, j.Fallbacks...) }

// plainSession reports a session id that is safe as a file name as it is (a loop, not a
// regexp: compiling one at start-up costs every hook).
func plainSession(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FileName is the journal file of a session: <session>.jsonl for a plain id, else a hash of
// it, so no id reaches a path outside the journal dir.
func FileName(session string) string {
	if plainSession(session) {
		return session + ext
	}
	sum := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(sum[:16]) + ext
}

// SessionFiles are the files in dirs that hold a session's pending records: its journal
// and the claims an ingester took of it and has not finished.
func SessionFiles(dirs []string, session string) []string {
	var out []string
	for _, d := range dirs {
		// FileName has no glob metacharacter, and a claim is <file>.<id>.ingesting.
		m, _ := filepath.Glob(filepath.Join(d, FileName(session)+"*"))
		out = append(out, m...)
	}
	return out
}

// AppendError is the dirs an append skipped, each with its reason (Errs). Lost: no dir
// took the record; else it is returned with the dir that did, for the log.
type AppendError struct {
	Dirs []string
	Errs []error
	Lost bool
}

func (e *AppendError) Error() string {
	if !e.Lost {
		return fmt.Sprintf("journal: dirs skipped: %v", errors.Join(e.Errs...))
	}
	return fmt.Sprintf("journal: no dir could take the record: %v", errors.Join(e.Errs...))
}

func (e *AppendError) Unwrap() []error { return e.Errs }

// Append writes r as one line of its session's journal: in Dir, else in the first fallback
// that takes it. It fills r's version, id and time. dir is where it went.
func (j *Journal) Append(r Record) (dir string, err error) {
	r.V = versionOf(r.Kind)
	if r.ID == "" {
		r.ID = newID()
	}
	if r.At == 0 {
		r.At = j.now().UnixNano()
	}
	line, err := encode(r)
	if err != nil {
		return "", err
	}
	ae := &AppendError{}
	// Dir first: a fallback is not looked at while Dir takes the record.
	for i, d := range j.places() {
		err := j.checkDir(i, true)
		if i == 0 && errors.Is(err, fs.ErrNotExist) {
			err = nil // made by appendLine
		}
		if err == nil {
			err = appendLine(filepath.Join(d, FileName(r.Session)), line)
		}
		if err == nil {
			return d, ae.errOrNil()
		}
		ae.Dirs = append(ae.Dirs, d)
		ae.Errs = append(ae.Errs, err)
	}
	ae.Lost = true
	return "", ae
}

// errOrNil is the dirs a record that was kept skipped (their reasons are logged), or nil.
func (e *AppendError) errOrNil() error {
	if len(e.Errs) == 0 {
		return nil
	}
	return e
}

// encode is r as one journal line, newline included, built in one buffer sized for it: the
// record's small fields by json.Marshal, then its text fields appended to that object (a
// 15 MB prompt through json.Marshal cost its buffer's doublings and a final copy, some
// 50 MB; DESIGN.md §4 keeps every event under 64 MB).
func encode(r Record) ([]byte, error) {
	big := []struct {
		key string
		val *string
	}{{"text", &r.Text}, {"input", &r.Input}, {"response", &r.Response}}
	n := 0
	for _, f := range big {
		n += len(*f.val)
	}
	vals := make([]string, len(big))
	for i, f := range big {
		vals[i], *f.val = *f.val, ""
	}
	small, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(small)+n+n/8+64) // JSON escapes: a few per line of text
	line = append(line, small[:len(small)-1]...) // without its closing }
	for i, f := range big {
		if vals[i] != "" {
			line = append(line, `,"`+f.key+`":`...)
			line = gjson.AppendJSONString(line, vals[i])
		}
	}
	return append(line, '}', '\n'), nil
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// appendLine appends line to path with one write, holding the file's lock so an ingester
// that renamed the file away (its claim) reads every line written to it. A file renamed
// between open and lock is reopened by its path; a short write (a full disk) is undone, so
// the file never holds a partial line.
func appendLine(path string, line []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), appendWait)
	defer cancel()
	for {
		// Open does not follow a symlink: one planted under the journal's name never
		// receives a record.
		const flags = os.O_RDWR | os.O_APPEND | os.O_CREATE
		f, err := private.Open(path, flags)
		if errors.Is(err, fs.ErrNotExist) {
			// The dir is made on the first append only: every hook appends.
			if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
				f, err = private.Open(path, flags)
			}
		}
		if err != nil {
			return err
		}
		err = appendLocked(ctx, f, path, line)
		f.Close()
		if !errors.Is(err, errRenamed) {
			return err
		}
	}
}

var errRenamed = errors.New("journal renamed away while appending")

func appendLocked(ctx context.Context, f *os.File, path string, line []byte) error {
	var fi os.FileInfo
	renamed := func() bool {
		var err error
		if fi, err = f.Stat(); err != nil {
			return true
		}
		pi, err := os.Stat(path)
		return err != nil || !os.SameFile(fi, pi)
	}
	ok, err := lockfile.LockOpen(ctx, f, renamed)
	if err != nil {
		return fmt.Errorf("journal: lock %s: %w", path, err)
	}
	if !ok {
		return errRenamed
	}
	defer lockfile.UnlockOpen(f)
	// Checked under the lock: fi is then the size this holder appends after.
	if renamed() {
		return errRenamed
	}
	// An appender SIGKILLed inside its write left a line without its newline: ours starts
	// on a line of its own, so only the torn fragment is dropped at ingestion.
	var last [1]byte
	if fi.Size() > 0 {
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if n, err := f.Write(line); err != nil {
		if n > 0 {
			_ = f.Truncate(fi.Size()) // this holder is the only writer: the size before is its own
		}
		return err
	}
	return nil
}
