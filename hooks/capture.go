package hooks

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/redact"
)

// capture appends one record to the session's capture journal (DESIGN.md §15): no
// capturing hook waits on the database. A record the data dir refused went to a fallback
// dir (logged with each skipped dir's reason; SessionStart's disk notice says why); one no
// dir took is lost: logged at ERROR, counted in health.json when it can still be written,
// and returned (SessionStart's notice names the places).
func (d *Deps) capture(in Input, p project.Project, r journal.Record) *journal.AppendError {
	// A data dir that is not the user's alone (a *private.Error) still lets the record wait
	// in a fallback journal (Journal.Refused skips the data dir's), for when it is fixed.
	var refused *private.Error
	if d.DataDirErr != nil && !errors.As(d.DataDirErr, &refused) {
		d.Log.Error().Err(d.DataDirErr).Str("event", in.Event).Msg("data dir unavailable; event not stored")
		return nil
	}
	r.Session, r.Project, r.Cwd, r.At = in.SessionID, p.Name, filepath.Clean(in.Cwd), d.Now().UnixNano()
	dir, err := d.Journal.Append(r)
	if d.Appended != nil {
		defer d.Appended() // after the log lines below
	}
	var ae *journal.AppendError
	errors.As(err, &ae)
	switch {
	case dir == "":
		d.Log.Error().Err(err).Str("event", in.Event).Msg("no journal dir could take the record; event not stored")
		d.countUnkept()
		return ae
	case dir != d.Journal.Dir:
		d.Log.Warn().Err(err).Str("event", in.Event).Str("dir", dir).Msg("data dir refused the record; kept in the fallback journal")
	}
	return nil
}

// countUnkept adds a lost record to health.json's count (it fails too when the data dir
// is read-only: doctor then says how many is unknown).
func (d *Deps) countUnkept() {
	if d.UpdateHealth == nil {
		return
	}
	err := d.UpdateHealth(func(h *health.Health) {
		if h.Unkept == nil {
			h.Unkept = &health.Unkept{Since: d.Now()}
		}
		h.Unkept.Count++
	})
	if err != nil {
		d.Log.Warn().Err(err).Msg("counting the lost record in health.json failed")
	}
}

// field is one captured value for redacted: text (a prompt, an error message) or a JSON
// document (a tool's input or response), redacted as its text reads.
type field struct {
	s    *string
	json bool
}

func asText(s *string) field { return field{s, false} }
func asJSON(s *string) field { return field{s, true} }

// redacted passes each field through the redactor when CLAUDE_MEM_REDACT_SECRETS is on and
// shortens it to max bytes (0: kept whole), redacting before it cuts (redact.Clipped), and
// counts what was replaced into r.
func (d *Deps) redacted(r *journal.Record, max int, fields ...field) {
	var all redact.Counts
	for _, f := range fields {
		if !d.Settings.RedactSecrets {
			if max > 0 {
				*f.s = clip.HeadTail(*f.s, max)
			}
			continue
		}
		var c redact.Counts
		*f.s, c = redact.Clipped(*f.s, f.json, max)
		all.Add(c)
	}
	if len(all) > 0 {
		r.Redacted, r.Day = all, d.Now().In(d.loc()).Format(time.DateOnly)
	}
}

func (d *Deps) loc() *time.Location {
	if d.Loc == nil {
		return time.UTC
	}
	return d.Loc
}
