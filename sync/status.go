package sync

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/when"
)

// Status is `claude-mem sync status`: the server, how the last runs went (health) and
// what waits now (the store's counts). Its JSON shape is stable: add fields, never rename.
type Status struct {
	Server      string   `json:"server"` // "" : sync is off (no CLAUDE_MEM_SYNC_URL)
	LastSuccess string   `json:"last_success,omitempty"`
	LastError   string   `json:"last_error,omitempty"`
	LastErrorAt string   `json:"last_error_at,omitempty"`
	Fix         string   `json:"fix,omitempty"`
	Waiting     int      `json:"waiting"`
	Held        int      `json:"held"`
	HeldIDs     []string `json:"held_ids"`
	Refused     int      `json:"refused"`
}

// StatusOf is the status of server from health's record (nil: never ran, or another
// server) and the store's counts now.
func StatusOf(server string, s *health.Sync, c Counts, loc *time.Location) Status {
	st := Status{Server: server, Waiting: c.Waiting, Held: c.Held, HeldIDs: c.HeldIDs, Refused: c.Refused}
	if st.HeldIDs == nil {
		st.HeldIDs = []string{}
	}
	if s == nil || s.Server != server {
		return st
	}
	if !s.LastSuccess.IsZero() {
		st.LastSuccess = when.Show(s.LastSuccess, loc, when.Instant)
	}
	if s.LastError != "" {
		st.LastError, st.LastErrorAt = s.LastError, when.Show(s.LastErrorAt, loc, when.Instant)
		st.Fix = Failure(s.LastErrorKind).Fix()
	}
	return st
}

// WriteText writes the status for a person. Values a server sent (its error text) are
// shown escaped by the caller's writer rules: here they are one line each.
func (st Status) WriteText(w io.Writer) {
	if st.Server == "" {
		fmt.Fprintln(w, "sync is off: set CLAUDE_MEM_SYNC_URL to a PostgreSQL server to sync this memory with your other machines and your team")
		return
	}
	fmt.Fprintf(w, "server        %s\n", st.Server)
	fmt.Fprintf(w, "last success  %s\n", or(shown(st.LastSuccess), "never"))
	if st.LastError != "" {
		fmt.Fprintf(w, "last error    %s: %s\n", shown(st.LastErrorAt), oneLine(st.LastError))
		fmt.Fprintf(w, "fix           %s\n", st.Fix)
	}
	fmt.Fprintf(w, "waiting       %d record(s) to push\n", st.Waiting)
	fmt.Fprintf(w, "held back     %d record(s): the redactor finds a secret in them, so they never leave this machine\n", st.Held)
	if len(st.HeldIDs) > 0 {
		more := ""
		if st.Held > len(st.HeldIDs) {
			more = fmt.Sprintf(" (and %d more)", st.Held-len(st.HeldIDs))
		}
		fmt.Fprintf(w, "              %s%s: see one with `claude-mem search ID`, remove it with `claude-mem forget ID`\n", strings.Join(st.HeldIDs, " "), more)
	}
	if st.Refused > 0 {
		fmt.Fprintf(w, "refused       %d record(s): the server holds their ids from another person\n", st.Refused)
	}
}

// WriteJSON writes the status as one JSON object.
func (st Status) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// shown is an RFC 3339 time as a person reads it: date and minute.
func shown(instant string) string {
	t, err := time.Parse(time.RFC3339, instant)
	if err != nil {
		return instant
	}
	return when.Show(t, t.Location(), when.Minute)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ProgressLine is the foreground run's line on a terminal, rewritten after each batch.
func ProgressLine(p Progress) string {
	line := fmt.Sprintf("sync: pushed %d, pulled %d", p.Pushed, p.Pulled)
	if p.Refused > 0 {
		line += fmt.Sprintf(", %d refused", p.Refused)
	}
	return line
}
