package hooks

import (
	"context"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/observe"
	"github.com/claude-mem/claude-mem-go/store"
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

func sessionStartOutput(context, systemMessage string) sessionStartJSON {
	var o sessionStartJSON
	o.HookSpecificOutput.HookEventName = SessionStart
	o.HookSpecificOutput.AdditionalContext = context
	o.SystemMessage = systemMessage
	return o
}

// handleSessionStart answers with notices first, then the project's memory. A dropped or
// refused event gets an empty context and stores nothing.
func handleSessionStart(ctx context.Context, d *Deps, in Input) Result {
	p, ok := admit(d, in)
	if !ok {
		return Result{Output: sessionStartOutput("", "")}
	}
	var (
		obs           []store.Observation
		sum           *store.Summary
		stale, finals []string
		budget        observe.Budget
	)
	storeErr := withStore(d, in.Event, func(db *store.DB) error {
		// A failed session row (a database locked past the busy timeout) must not hide the
		// project's memory: log it and read on.
		if err := db.TouchSession(ctx, d.session(in, p)); err != nil {
			d.Log.Error().Err(err).Msg("recording the session start failed")
		}
		var err error
		if obs, err = db.RecentObservations(ctx, p.Name, d.Settings.ContextObservations); err != nil {
			return err
		}
		if sum, err = db.LatestSummary(ctx, p.Name); err != nil {
			return err
		}
		if d.observerEnabled() {
			if budget, err = observe.TodayBudget(ctx, db, d.Settings, d.Now(), d.Loc); err != nil {
				return err
			}
			if budget.Reached() {
				return nil // nothing is restarted today; the notice says until when
			}
			horizon := d.Now().Add(-StaleAfter)
			if stale, err = db.StaleSessions(ctx, horizon); err != nil {
				return err
			}
			finals, err = db.PendingFinals(ctx, horizon, MaxFinalAttempts)
		}
		return err
	})
	h := d.health()
	lines := notice.Collect(notice.Inputs{
		Hook:            d.Hook,
		ObserverEnabled: d.observerEnabled(),
		Binary:          d.claudeCheck(h),
		Health:          h,
		SettingsErrors:  d.Settings.Errors,
		StoreErr:        storeErr,
		Budget:          budget,
	})
	text := notice.Render(notice.Context{Project: p.Name, Observations: obs, Summary: sum, Notices: lines})
	res := Result{Output: sessionStartOutput(text, notice.SystemMessage(lines))}
	res.Observe = leftBehind(stale, finals)
	return res
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

// leftBehind is what SessionStart restarts, at most maxStaleStarts runs: sessions whose
// summary is still owed (a final run also observes their pending events), then sessions
// with stale events.
func leftBehind(stale, finals []string) []ObserveRequest {
	var out []ObserveRequest
	owed := make(map[string]bool, len(finals))
	for _, id := range finals {
		owed[id] = true
		out = append(out, ObserveRequest{SessionID: id, Final: true})
	}
	for _, id := range stale {
		if !owed[id] {
			out = append(out, ObserveRequest{SessionID: id})
		}
	}
	return out[:min(len(out), maxStaleStarts)]
}
