package sync

import (
	"fmt"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/when"
)

// Failure is the kind of a failed run: what health keeps, so doctor and SessionStart (other
// processes, later) can name the fix.
type Failure string

const (
	Unreachable Failure = "unreachable"  // no server answered at that address
	TLSRefused  Failure = "tls"          // TLS failed, or the certificate is not trusted
	AuthFailed  Failure = "auth"         // the server refused the role or its password
	Denied      Failure = "denied"       // the role logged in but is not a person of the server
	Plaintext   Failure = "plaintext"    // a remote host without TLS, which is refused
	SchemaOlder Failure = "schema_older" // the server's schema predates this build
	SchemaNewer Failure = "schema_newer" // the server's schema is newer than this build
	BadURL      Failure = "url"          // CLAUDE_MEM_SYNC_URL cannot be read
	Failed      Failure = "error"        // anything else: the message says what
)

// fixes is what the person does about each failure.
var fixes = map[Failure]string{
	Unreachable: "check the host and port in CLAUDE_MEM_SYNC_URL and that the server runs",
	TLSRefused:  "give the server's CA with sslrootcert= in CLAUDE_MEM_SYNC_URL (or PGSSLROOTCERT), or renew its certificate",
	AuthFailed:  "check the role in CLAUDE_MEM_SYNC_URL and its password (PGPASSWORD or ~/.pgpass)",
	Denied:      "ask the server's admin to GRANT claude_mem_user TO this role (`claude-mem sync init` sets the roles up)",
	Plaintext:   "use TLS (sslmode=verify-full), or say sslmode=disable in the URL to accept plaintext",
	SchemaOlder: "run `claude-mem sync init` as the server's admin role to upgrade its schema",
	SchemaNewer: "upgrade claude-mem on this machine: the server was set up by a newer build",
	BadURL:      "fix CLAUDE_MEM_SYNC_URL: postgres://ROLE@HOST/DB?sslmode=verify-full",
	Failed:      "run `claude-mem sync` to see the whole error",
}

// Fix is what to do about a failure.
func (f Failure) Fix() string {
	if s, ok := fixes[f]; ok {
		return s
	}
	return fixes[Failed]
}

// Counts is the local side's state after a run.
type Counts struct {
	Waiting int // records this machine has not pushed yet
	Held    int // held back: the redactor still finds a secret in them
	Refused int // refused by the server
	// HeldIDs are the held-back records' ids as the person types them (12, S3, P7), the
	// oldest first, at most MaxHeldShown.
	HeldIDs []string
}

// MaxHeldShown bounds the held-back ids sync status lists.
const MaxHeldShown = 50

// backlogRuns is how many runs' backlogs health keeps: a backlog larger after each of the
// last three is one that keeps growing.
const backlogRuns = 3

// Record keeps a run's outcome in h: err nil is a success (a run that stopped at its
// deadline succeeded too), else its failure kind and message. message must be shown-safe:
// the caller scrubs it (no password reaches health.json).
func Record(h *health.Health, server string, now time.Time, c Counts, f Failure, message string) {
	s := h.Sync
	if s == nil || s.Server != server {
		s = &health.Sync{Server: server}
	}
	if message == "" {
		s.LastSuccess = now
		s.FailingSince = time.Time{}
		s.LastError, s.LastErrorKind, s.LastErrorAt = "", "", time.Time{}
	} else {
		if s.FailingSince.IsZero() {
			s.FailingSince = now
		}
		s.LastError, s.LastErrorKind, s.LastErrorAt = message, string(f), now
	}
	s.Waiting, s.Held, s.Refused = c.Waiting, c.Held, c.Refused
	s.Backlog = append(s.Backlog, c.Waiting)
	if len(s.Backlog) > backlogRuns {
		s.Backlog = s.Backlog[len(s.Backlog)-backlogRuns:]
	}
	h.Sync = s
}

// failingFor is how long sync may fail before SessionStart says so: a laptop offline for
// an afternoon is normal, a day is not.
const failingFor = 24 * time.Hour

// Notice is SessionStart's one line about sync, or "": when it has failed for a day, or
// when the backlog grew at each of the last runs.
func Notice(s *health.Sync, now time.Time, loc *time.Location) string {
	if s == nil {
		return ""
	}
	if !s.FailingSince.IsZero() && now.Sub(s.FailingSince) >= failingFor {
		return fmt.Sprintf("claude-mem: sync with %s has failed since %s (%s): %s.",
			s.Server, when.Show(s.FailingSince, loc, when.Minute), s.LastError, Failure(s.LastErrorKind).Fix())
	}
	if growing(s.Backlog) {
		return fmt.Sprintf("claude-mem: %d records wait to sync with %s, more after each run; `claude-mem sync status` shows why.",
			s.Waiting, s.Server)
	}
	return ""
}

func growing(b []int) bool {
	if len(b) < backlogRuns {
		return false
	}
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			return false
		}
	}
	return true
}

// Findings are doctor's lines about sync: problems (the last run failed, each with its fix)
// and notes (records held back, and how to see them).
func Findings(s *health.Sync, loc *time.Location) (problems, notes []string) {
	if s == nil {
		return nil, nil
	}
	if s.LastError != "" {
		problems = append(problems, fmt.Sprintf("sync with %s failed at %s: %s; %s",
			s.Server, when.Show(s.LastErrorAt, loc, when.Minute), s.LastError, Failure(s.LastErrorKind).Fix()))
	}
	if s.Held > 0 {
		notes = append(notes, fmt.Sprintf("%d record(s) held back from sync: the redactor finds a secret in them; `claude-mem sync status` lists them; edit nothing, `claude-mem forget ID` removes one", s.Held))
	}
	if s.Refused > 0 {
		notes = append(notes, fmt.Sprintf("%d record(s) refused by the sync server (an id another person owns)", s.Refused))
	}
	return problems, notes
}
