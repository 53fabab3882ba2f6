package hooks

import (
	"context"
	"time"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/store"
	memsync "github.com/claude-mem/claude-mem-go/sync"
)

// StaleAfter is how old a session's oldest pending event may get before SessionStart starts
// an observer for it (a crash or a closed terminal left it behind).
const StaleAfter = 10 * time.Minute

// maxStaleStarts bounds the observers one SessionStart may start; the rest wait their turn.
const maxStaleStarts = 4

// MaxFinalAttempts bounds the summary runs one session gets: a summary the observer never
// manages to write costs a bounded number of runs.
const MaxFinalAttempts = 3

type sessionStartJSON struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// sessionStartOutput is the one exit of SessionStart's text, and makes it inert there
// (printable.Inert): the model reads the context inside Claude Code's wrapper and the
// person's terminal shows the systemMessage, whose notices quote paths and reasons as they
// are. notice.Render escapes the story's values before measuring them, so for the context
// this pass changes nothing; it is what holds whatever a later line brings.
func sessionStartOutput(context, systemMessage string) sessionStartJSON {
	var o sessionStartJSON
	o.HookSpecificOutput.HookEventName = SessionStart
	o.HookSpecificOutput.AdditionalContext = printable.Inert(context)
	o.SystemMessage = printable.Inert(systemMessage)
	return o
}

// handleSessionStart journals the session's start, ingests the capture journal, and
// answers with notices first, then the project's story; its systemMessage is the notices
// and, unless CLAUDE_MEM_LOADED_MESSAGE is off, one line saying what memory loaded. Our
// own observer's event gets an empty context; an excluded or refused cwd gets the notices and no memory, and stores
// nothing of its own.
func handleSessionStart(ctx context.Context, d *Deps, in Input) Result {
	p, v := admission(d, in)
	if v == ours {
		return Result{Output: sessionStartOutput("", "")}
	}
	var unkept *journal.AppendError
	if v == admitted {
		unkept = d.capture(in, p, journal.Record{Kind: store.CaptureStart})
	}
	var (
		story store.Story
		left  []ObserveRequest
		spend budget.Budget
	)
	storeErr := withStore(d, in.Event, func(db *store.DB) error {
		// A journal the database would not take (locked past the hook's wait) must not
		// hide the project's memory: reads go on (WAL readers are not blocked), and the
		// records wait for the next pass.
		_ = d.Ingest(ctx, db)
		var err error
		if v == admitted {
			if story, err = db.Story(ctx, p.Name, d.Settings.ContextObservations); err != nil {
				return err
			}
		}
		if d.observerEnabled() {
			if spend, err = budget.Today(ctx, db, d.Settings.DailyBudgetUSD, d.Now(), d.Loc); err != nil {
				return err
			}
			if spend.Reached() {
				return nil // nothing is restarted today; the notice says until when
			}
			left, err = Waiting(ctx, db, d.Now().Add(-StaleAfter))
		}
		return err
	})
	if d.ReapOrphans != nil {
		d.ReapOrphans() // a few stats of slot files; a kill only for a child past its deadline
	}
	h := d.health()
	ni := notice.Inputs{
		Hook:            d.Hook(),
		ObserverEnabled: d.observerEnabled(),
		Binary:          d.claudeCheck(h),
		Health:          h,
		SettingsErrors:  d.Settings.Errors,
		StoreErr:        storeErr,
		Budget:          spend,
		Now:             d.Now(),
		DataDir:         d.Settings.DataDir,
	}
	if d.DataDirErr == nil {
		ni.Journal = d.journalStatus()
		ni.Journal.Unkept = unkept
		d.flagLowSpace(h, ni.Journal)
		if unkept == nil && v == admitted && h.Unkept != nil {
			d.clearUnkept()
		}
	}
	lines := notice.Collect(ni)
	// A refused cwd has no project name: Render gives the notices alone.
	text, shown := notice.Render(notice.Context{Project: p.Name, Story: story, Notices: lines, Loc: d.loc()})
	loaded := ""
	if d.Settings.LoadedMessage {
		loaded = notice.Loaded(p.Name, shown)
	}
	res := Result{Output: sessionStartOutput(text, notice.SystemMessage(lines, loaded))}
	res.Observe = left
	// What the other machines and teammates recorded arrives for the next session.
	if storeErr == nil && d.DataDirErr == nil {
		res.Sync = memsync.Pull
	}
	return res
}

// journalStatus reads, live, what waits in the capture journal and the data dir's free
// space, for the notices.
func (d *Deps) journalStatus() journal.Status {
	st := d.Journal.Status(d.FreeBytes)
	if st.Err != nil {
		d.Log.Warn().Err(st.Err).Msg("reading the capture journal's backlog failed")
	}
	st.Oldest = st.Oldest.In(d.loc())
	return st
}

// flagLowSpace keeps health.json's low-space flag in step with what SessionStart found,
// writing only when it changes.
func (d *Deps) flagLowSpace(h health.Health, st journal.Status) {
	low := st.Low()
	if d.UpdateHealth == nil || !st.FreeKnown || low == (h.LowSpace != nil) {
		return
	}
	err := d.UpdateHealth(func(h *health.Health) {
		h.LowSpace = nil
		if low {
			h.LowSpace = &health.LowSpace{FreeBytes: st.Free, Since: d.Now()}
		}
	})
	if err != nil {
		d.Log.Warn().Err(err).Msg("recording the data dir's free space in health.json failed")
	}
}

// clearUnkept ends health.json's count of lost records: this session's record was kept.
func (d *Deps) clearUnkept() {
	if d.UpdateHealth == nil {
		return
	}
	if err := d.UpdateHealth(func(h *health.Health) { h.Unkept = nil }); err != nil {
		d.Log.Warn().Err(err).Msg("clearing the lost-record count in health.json failed")
	}
}

func (d *Deps) claudeCheck(h health.Health) error {
	if !d.observerEnabled() {
		return nil
	}
	return d.ClaudeCheck(h)
}

func (d *Deps) health() health.Health {
	h, err := d.LoadHealth()
	if err != nil {
		d.Log.Warn().Err(err).Msg("health.json unreadable; treated as unknown")
	}
	return h
}
