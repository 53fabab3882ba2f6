// Package health persists the state the observer, SessionStart and `hook doctor` share:
// auth and setup state, settings errors, the last run and the pause, in <data>/health.json.
package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
)

// States of Auth.State and Setup.State.
const (
	StateUnknown  = "unknown"
	StateOK       = "ok"
	StateFailed   = "failed"   // Auth only
	StateRequired = "required" // Setup only
)

// lockWait bounds how long Update waits for another writer: writers hold the lock for one
// small read-modify-write, so only a wedged holder could exceed it, and a health write must
// not wedge the observer in turn.
const lockWait = 10 * time.Second

// The JSON shape below is stable: `hook doctor --json` embeds it under "health" and other
// tools may read health.json. Add fields; never rename or repurpose one.
//
//	{
//	  "auth":  {"state": "ok|failed|unknown", "source": "...", "reason": "...", "since": "RFC 3339"},
//	  "setup": {"state": "ok|required|unknown", "reason": "...", "probed": ["..."], "since": "RFC 3339"},
//	  "settings_errors": ["KEY=value: problem; using default"],
//	  "last_run": {"id": "...", "outcome": "ok|auth_failed|setup_required|transient|error", "reason": "...", "time": "RFC 3339", "events": 0},
//	  "paused_until": "RFC 3339", "pause_reason": "...", "pause_fingerprint": "...",
//	  "ingest_error": "...", "ingest_error_at": "RFC 3339",
//	  "low_space": {"free_bytes": 0, "since": "RFC 3339"},
//	  "unkept": {"count": 0, "since": "RFC 3339"},
//	  "sync": {"server": "...", "last_success": "RFC 3339", "last_error": "...", "last_error_kind": "...", "last_error_at": "RFC 3339",
//	           "failing_since": "RFC 3339", "waiting": 0, "held": 0, "refused": 0, "backlog": [0]}
//	}

// Auth is the state of the observer's credential as of its last use.
type Auth struct {
	State  string    `json:"state"` // ok|failed|unknown
	Source string    `json:"source,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since,omitzero"` // when State took its current value
}

// Setup is the state of the claude executable as of the observer's last spawn.
type Setup struct {
	State  string    `json:"state"` // ok|required|unknown
	Reason string    `json:"reason,omitempty"`
	Probed []string  `json:"probed,omitempty"` // every place probed when not found
	Since  time.Time `json:"since,omitzero"`   // when State took its current value
	// Path and Sig name the executable that could not be started and its size and mtime
	// then: while the same file is still there, the notice stays; a new one clears it.
	Path string `json:"path,omitempty"`
	Sig  string `json:"sig,omitempty"`
}

// Run is the outcome of the last observer run.
type Run struct {
	ID      string    `json:"id"`
	Outcome string    `json:"outcome"`
	Reason  string    `json:"reason,omitempty"`
	Time    time.Time `json:"time"`
	Events  int       `json:"events"`
}

// Health is the whole of health.json.
type Health struct {
	Auth             Auth      `json:"auth"`
	Setup            Setup     `json:"setup"`
	Settings         []string  `json:"settings_errors"`
	LastRun          *Run      `json:"last_run,omitempty"`
	PausedUntil      time.Time `json:"paused_until,omitzero"`
	PauseReason      string    `json:"pause_reason,omitempty"`
	PauseFingerprint string    `json:"pause_fingerprint,omitempty"`
	// IngestError is why the last ingestion of the capture journal failed, since
	// IngestErrorAt; the next one that succeeds clears both.
	IngestError   string    `json:"ingest_error,omitempty"`
	IngestErrorAt time.Time `json:"ingest_error_at,omitzero"`
	// LowSpace: SessionStart found the data dir under 64 MiB free (the disk-full notice);
	// nil once a SessionStart finds room again.
	LowSpace *LowSpace `json:"low_space,omitempty"`
	// Unkept counts the records no place could take (data dir and every fallback
	// refused), since the first; nil once a SessionStart's record is kept again.
	Unkept *Unkept `json:"unkept,omitempty"`
	// Sync is the state of the last sync run (DESIGN §25); nil when sync never ran.
	Sync *Sync `json:"sync,omitempty"`
}

// Sync is how the last sync runs with the server went. The server is named without its
// password (the sync package shows it that way).
type Sync struct {
	Server      string    `json:"server"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	// LastErrorKind is the failure's kind (sync.Failure), which names its fix.
	LastErrorKind string    `json:"last_error_kind,omitempty"`
	LastErrorAt   time.Time `json:"last_error_at,omitzero"`
	// FailingSince is the first failure since the last success; zero while runs succeed.
	FailingSince time.Time `json:"failing_since,omitzero"`
	Waiting      int       `json:"waiting"` // records waiting to go, as the last run left them
	Held         int       `json:"held"`    // held back: the redactor still finds a secret in them
	Refused      int       `json:"refused"` // refused by the server
	// Backlog is Waiting at the end of the last few runs, oldest first: a backlog that keeps
	// growing is as loud as a failing sync.
	Backlog []int `json:"backlog,omitempty"`
}

// Unkept is the records lost since Since for want of a writable place.
type Unkept struct {
	Count int       `json:"count"`
	Since time.Time `json:"since"`
}

// LowSpace is the data dir's free space when SessionStart last found it too low.
type LowSpace struct {
	FreeBytes uint64    `json:"free_bytes"`
	Since     time.Time `json:"since"`
}

// CorruptError is returned by Load when health.json exists but cannot be decoded. Readers
// treat it as unknown health; Update overwrites the file.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string { return "health: corrupt " + e.Path + ": " + e.Err.Error() }

func (e *CorruptError) Unwrap() error { return e.Err }

func lockPath(dataDir string) string {
	return filepath.Join(settings.Layout(dataDir).Locks(), "health.lock")
}

// Load reads health.json. A missing file is unknown health, not an error. Readers need no
// lock: Update replaces the file by rename, so a reader sees the old or the new file whole.
func Load(dataDir string) (Health, error) {
	h := Health{}
	// Only a file the user alone could write is believed: a planted one could clear a
	// pause or forge a state.
	b, err := private.ReadFile(settings.Layout(dataDir).Health())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return unknown(h), fmt.Errorf("health: %w", err)
	default:
		if err := json.Unmarshal(b, &h); err != nil {
			return unknown(Health{}), &CorruptError{Path: settings.Layout(dataDir).Health(), Err: err}
		}
	}
	return unknown(h), nil
}

// unknown fills unset states, so that a missing file or field reads as "unknown".
func unknown(h Health) Health {
	if h.Auth.State == "" {
		h.Auth.State = StateUnknown
	}
	if h.Setup.State == "" {
		h.Setup.State = StateUnknown
	}
	return h
}

// Update applies fn to the current health and writes the result atomically, under
// <data>/locks/health.lock so that concurrent writers (observers, `hook doctor --retry`)
// never lose each other's changes. A corrupt file is replaced, starting from unknown
// health. When fn changes Auth.State or Setup.State and leaves its Since zero or as it
// was, Since becomes now.
func Update(dataDir string, now time.Time, fn func(*Health)) error {
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	release, err := lockfile.Lock(ctx, lockPath(dataDir))
	if err != nil {
		return fmt.Errorf("health: lock: %w", err)
	}
	defer release()

	h, err := Load(dataDir)
	// A corrupt file, or one not the user's alone, is replaced (the rename puts a fresh
	// 0600 file in its place), starting from unknown health.
	cerr, perr := (*CorruptError)(nil), (*private.Error)(nil)
	if err != nil && !errors.As(err, &cerr) && !errors.As(err, &perr) {
		return err
	}
	before := h
	fn(&h)
	h = unknown(h)
	if h.Auth.State != before.Auth.State && (h.Auth.Since.IsZero() || h.Auth.Since.Equal(before.Auth.Since)) {
		h.Auth.Since = now
	}
	if h.Setup.State != before.Setup.State && (h.Setup.Since.IsZero() || h.Setup.Since.Equal(before.Setup.Since)) {
		h.Setup.Since = now
	}
	if err := write(dataDir, h); err != nil {
		return err
	}
	return release()
}

// write replaces health.json by a fully written, synced temp file in the same directory,
// so a crash leaves the old file or the new one, never a torn one.
func write(dataDir string, h Health) error {
	if h.Settings == nil {
		h.Settings = []string{} // the stable shape has a list here, never null
	}
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	// Reasons quote errors and a child's output: the file is scrubbed as a whole, so no
	// field can carry a secret to disk.
	b = []byte(redact.Scrub(string(b)))
	f, err := os.CreateTemp(dataDir, ".health-*.tmp") // created 0600
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, settings.Layout(dataDir).Health())
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("health: write: %w", err)
	}
	return nil
}

// RecordIngest records how an ingestion of the capture journal ended (err nil: it
// succeeded): a failure stays in IngestError, since the first one's time, until an
// ingestion succeeds. A success with no failure recorded writes nothing.
func RecordIngest(dataDir string, now time.Time, err error) error {
	if h, _ := Load(dataDir); err == nil && h.IngestError == "" {
		return nil
	}
	return Update(dataDir, now, func(h *Health) {
		switch {
		case err == nil:
			h.IngestError, h.IngestErrorAt = "", time.Time{}
		case h.IngestError == "":
			h.IngestError, h.IngestErrorAt = err.Error(), now
		default:
			h.IngestError = err.Error() // failing since the first failure
		}
	})
}

// Paused reports whether the observer must not start: while now is before PausedUntil and
// its inputs are unchanged (fingerprint equals the one the pause was taken with). A changed
// credential, setting or binary yields a new fingerprint, and so lifts the pause at once.
func (h Health) Paused(now time.Time, fingerprint string) (bool, string) {
	if now.Before(h.PausedUntil) && fingerprint == h.PauseFingerprint {
		return true, h.PauseReason
	}
	return false, ""
}

// Pause stops observer runs for d from now, for as long as the inputs keep fingerprint.
func (h *Health) Pause(now time.Time, d time.Duration, fingerprint, reason string) {
	h.PausedUntil = now.Add(d)
	h.PauseFingerprint = fingerprint
	h.PauseReason = reason
}

// ClearPause lets the next run start (`hook doctor --retry`, or a run that succeeded).
func (h *Health) ClearPause() {
	h.PausedUntil = time.Time{}
	h.PauseFingerprint = ""
	h.PauseReason = ""
}
