// Package notice writes the one-line problem notices and the SessionStart context text.
package notice

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// The texts of DESIGN.md §11. Every notice is one line: the values put into them pass
// through oneLine, since reasons come from errors and stderr that may span lines. hook, in
// each, is how the user runs claude-mem (doctor.Command): "claude-mem" when that name on
// PATH is this binary, else its path; "details: claude-mem doctor" is the product's name.

// SetupNotFound is the notice for a claude executable found nowhere.
func SetupNotFound(hook string) string {
	return "claude-mem: setup required — claude CLI not found (set CLAUDE_MEM_CLAUDE_PATH or install Claude Code; details: " +
		oneLine(hook) + " doctor)"
}

// SetupUnspawnable is the notice for a claude executable that exists but cannot be started.
func SetupUnspawnable(path, reason, hook string) string {
	return "claude-mem: setup required — claude CLI at " + oneLine(path) + " cannot be started: " + oneLine(reason) +
		" (details: " + oneLine(hook) + " doctor)"
}

// AuthFailed is the notice for a credential the observer could not use.
func AuthFailed(source, reason, hook string) string {
	return "claude-mem: auth failed — " + oneLine(source) + ": " + oneLine(reason) +
		"; observations paused, nothing lost (details: " + oneLine(hook) + " doctor)"
}

// SettingsError is the notice for a setting whose value could not be used.
func SettingsError(key, value, problem, def string) string {
	return "claude-mem: settings error — " + oneLine(key) + "=" + oneLine(value) + ": " + oneLine(problem) +
		"; using " + oneLine(def)
}

// MemoryUnavailable is the notice for a store that could not be opened or read: nothing is
// captured or injected until it is fixed.
func MemoryUnavailable(reason, hook string) string {
	return "claude-mem: memory unavailable — " + oneLine(reason) + " (details: " + oneLine(hook) + " doctor)"
}

// Refused is the notice for a path in the data dir (or the data dir itself) that another
// user could have written: it is never read, run or written, and e.Fix says how to make
// it the user's alone.
func Refused(e *private.Error, hook string) string {
	return "claude-mem: refused " + oneLine(e.Path) + " — " + oneLine(e.Problem) +
		"; another user could have written it, so nothing in it is read or run (fix: " + oneLine(e.Fix) +
		"; details: " + oneLine(hook) + " doctor)"
}

// BudgetReached is the notice for a day whose observer cost reached
// CLAUDE_MEM_DAILY_BUDGET_USD: no run starts until until, the next local midnight.
func BudgetReached(spent, budget float64, until time.Time, hook string) string {
	return fmt.Sprintf("claude-mem: observer budget reached — $%.2f of $%.2f today; observations paused until %s, nothing lost (details: %s doctor)",
		spent, budget, until.Format("2006-01-02 15:04 MST"), oneLine(hook))
}

// EventsNotStored is the notice for records that have waited in the capture journal past
// journal.StuckAfter: the database would not take them.
func EventsNotStored(n int, since time.Time, reason, hook string) string {
	return fmt.Sprintf("claude-mem: events not stored — %d waiting in the journal since %s: %s (details: %s doctor)",
		n, since.Format("2006-01-02 15:04 MST"), oneLine(reason), oneLine(hook))
}

// DiskFull is the notice for a data dir with less than journal.LowSpace free.
func DiskFull(dataDir string, free uint64, hook string) string {
	return fmt.Sprintf("claude-mem: disk full — %s has %d MiB free; new events cannot be kept (details: %s doctor)",
		oneLine(dataDir), free>>20, oneLine(hook))
}

// EventsCannotBeKept is the notice for a record no place would take: the data dir's
// journal and every fallback refused it. unkept is health.json's count of such records,
// nil when health.json could not record it (it lives in the data dir).
func EventsCannotBeKept(dirs []string, unkept *health.Unkept, hook string) string {
	places := make([]string, len(dirs))
	for i, d := range dirs {
		places[i] = oneLine(d)
	}
	count := "how many were lost is unknown (health.json cannot be written either)"
	if unkept != nil {
		count = fmt.Sprintf("%d lost since %s", unkept.Count, unkept.Since.Format("2006-01-02 15:04 MST"))
	}
	return "claude-mem: events cannot be kept: no writable place among " + strings.Join(places, ", ") +
		"; " + count + " (details: " + oneLine(hook) + " doctor)"
}

// setupFailed covers a binary check that failed in a way claudebin does not type; it keeps
// the shape of the other setup notices.
func setupFailed(reason, hook string) string {
	return "claude-mem: setup required — " + oneLine(reason) + " (details: " + oneLine(hook) + " doctor)"
}

// oneLine scrubs s (a reason may quote a child's output, a credential may be pasted into
// the wrong setting: neither reaches the model's context) and joins its non-blank lines,
// trimmed, with single spaces, so a notice never spans lines. Every value put into a notice
// passes here.
func oneLine(s string) string {
	s = redact.Scrub(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// Inputs is everything Collect decides from; SessionStart gathers it live.
type Inputs struct {
	Hook            string // how the user runs this binary (doctor.Command), for "details: <hook> doctor"
	ObserverEnabled bool   // false when CLAUDE_MEM_MAX_CONCURRENT_AGENTS=0: no setup/auth notices then
	Binary          error  // the live claudebin.Resolve error; nil when claude was found
	Health          health.Health
	SettingsErrors  []*settings.Error
	StoreErr        error // non-nil: memory unavailable
	Budget          budget.Budget
	Now             time.Time
	Journal         journal.Status // what waits in the capture journal, the data dir's free space
	DataDir         string
}

// Collect returns the notices for the current problems, most severe first: memory
// unavailable (or refused: the store's error or a settings error is a *private.Error),
// events cannot be kept, disk full, events not stored, setup, auth failed, budget reached, then
// settings errors in key order. Each problem gives at most one line, and a notice
// disappears as soon as its cause is gone:
//   - setup comes from the live binary check only. health.Setup records what the last
//     run saw, which is stale once claude is installed or fixed; a binary found now clears
//     the notice without waiting for a run.
//   - auth comes from health, since only a run can tell whether a credential works; the
//     observer records "ok" on its next successful run.
//   - settings errors come from this process's parse, not from health, so fixing a setting
//     clears its line at the next session.
func Collect(in Inputs) []string {
	var out []string
	var pe *private.Error
	if errors.As(in.StoreErr, &pe) {
		out = append(out, Refused(pe, in.Hook))
	} else if in.StoreErr != nil {
		out = append(out, MemoryUnavailable(in.StoreErr.Error(), in.Hook))
	}
	errs := slices.DeleteFunc(slices.Clone(in.SettingsErrors), func(e *settings.Error) bool { return e == nil })
	for _, e := range errs {
		if errors.As(e, &pe) {
			if line := Refused(pe, in.Hook); !slices.Contains(out, line) {
				out = append(out, line)
			}
		}
	}
	if u := in.Journal.Unkept; u != nil {
		out = append(out, EventsCannotBeKept(u.Dirs, in.Health.Unkept, in.Hook))
	}
	if in.Journal.Low() {
		out = append(out, DiskFull(in.DataDir, in.Journal.Free, in.Hook))
	}
	if b := in.Journal; b.Stuck(in.Now) {
		reason := in.Health.IngestError
		if reason == "" && in.StoreErr != nil {
			reason = in.StoreErr.Error() // the database could not even be opened to ingest
		}
		out = append(out, EventsNotStored(b.Records, b.Oldest, cmp.Or(reason, "not ingested yet"), in.Hook))
	}
	if in.ObserverEnabled {
		if line := setupNotice(in.Binary, in.Hook); line != "" {
			out = append(out, line)
		}
		if a := in.Health.Auth; a.State == health.StateFailed {
			out = append(out, AuthFailed(cmp.Or(a.Source, "no usable source"), cmp.Or(a.Reason, "unknown reason"), in.Hook))
		}
		if b := in.Budget; b.Reached() {
			out = append(out, BudgetReached(b.Spent, b.Limit, b.Until, in.Hook))
		}
	}
	// Sync's line stands whatever the observer does: it is about what travels.
	if line := memsync.Notice(in.Health.Sync, in.Now, in.Now.Location()); line != "" {
		out = append(out, oneLine(line))
	}
	slices.SortStableFunc(errs, func(a, b *settings.Error) int { return cmp.Compare(a.Key, b.Key) })
	for _, e := range errs {
		if errors.As(e, &pe) {
			continue // said above
		}
		line := SettingsError(e.Key, e.Value, e.Problem, e.Default)
		if !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

func setupNotice(err error, hook string) string {
	var notFound *claudebin.NotFoundError
	var unspawnable *claudebin.UnspawnableError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &notFound):
		return SetupNotFound(hook)
	case errors.As(err, &unspawnable):
		reason := "unknown reason"
		if unspawnable.Err != nil {
			reason = unspawnable.Err.Error()
		}
		if unspawnable.Setting != "" {
			reason += " (set by " + unspawnable.Setting + ")"
		}
		return SetupUnspawnable(unspawnable.Path, reason, hook)
	default:
		return setupFailed(err.Error(), hook)
	}
}

// SystemMessage is the text shown to the person: the notices, one per line, most severe
// first, then loaded (the Loaded line, "" when memory did not load or the person turned it
// off); "" when there is neither. A problem never hides that memory loaded, nor the
// reverse: both are true at once, and the problem is what needs the person.
func SystemMessage(notices []string, loaded string) string {
	if loaded != "" {
		notices = append(slices.Clip(notices), loaded)
	}
	return strings.Join(notices, "\n")
}
