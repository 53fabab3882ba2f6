package observer

import (
	"context"
	"errors"
	"strings"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// answerRun is one run that answered (outcome ok), with what its answer is applied to.
type answerRun struct {
	batchRun
	project string
	res     spawn.Result
	rec     *store.RunRecord // recorded by the caller once the answer is applied
	health  *health.Run
	src     auth.Source
	// held is set when the answer could not be stored (a full disk): it stays in the run's
	// transcript and its events stay claimed, for settleStranded to store it.
	held *bool
}

// answered applies the verdict on an answer (§24), so none is lost without a count:
//   - stored, salvaged or skipped: what it holds is stored and its events are done;
//   - cut at the output limit (more than one event): its complete blocks are stored and its
//     events go back to pending, no attempt counted, for batches of half the size. Which
//     events the kept blocks cover cannot be told from them, so all are run again; the
//     next batches are shown the kept ones (the session's earlier observations) and an
//     equal one is a duplicate, counted, not stored;
//   - unusable (nothing kept, no skip): its events go back with an attempt counted; after
//     maxAttempts they are failed, kept and shown by doctor.
//
// The verdict, its reasons and the dropped blocks go into the run's row of runs.
func (o *observeRun) answered(ctx context.Context, db *store.DB, r answerRun) (cont bool, err error) {
	a := prompt.Parse(r.res.Text, r.summary, r.res.Truncated)
	for _, w := range a.Warnings {
		r.log.Warn().Str("problem", w).Msg("observer output")
	}
	verdict := a.Verdict()
	r.rec.Answer, r.rec.Reasons, r.rec.Dropped = verdict, a.ReasonNames(), a.Dropped
	log := r.log.With().Str("answer", string(verdict)).Strs("reasons", r.rec.Reasons).Int("continued", r.res.Continued).
		Str("skip_reason", a.SkipWhy).Logger()
	at := o.d.Now()
	for i := range a.Observations {
		a.Observations[i].SessionID, a.Observations[i].Project, a.Observations[i].RunID, a.Observations[i].At = o.session, r.project, r.id, at
	}
	if a.Summary != nil {
		a.Summary.SessionID, a.Summary.Project, a.Summary.RunID, a.Summary.At = o.session, r.project, r.id, at
	}
	if verdict == vocab.VerdictUnusable {
		r.health.Reason = "answer unusable: " + strings.Join(r.rec.Reasons, " ")
	}
	if !r.stranded {
		o.update(func(h *health.Health) {
			// Any answer shows the credential and the executable work.
			h.Auth = health.Auth{State: health.StateOK, Source: string(r.src.Kind), Since: sinceOr(h.Auth, health.StateOK, at)}
			h.Setup = health.Setup{State: health.StateOK}
			h.ClearPause()
			h.LastRun = r.health
		})
	}

	again := a.Has(prompt.ReasonTruncated) && r.events > 1
	r.rec.Requeued = again || verdict == vocab.VerdictUnusable
	if verdict == vocab.VerdictUnusable && !again {
		log.Error().Msg("observer answer unusable; its events are retried (attempt counted)")
		o.release(ctx, db, r.batchRun, true)
		return false, nil
	}
	keep := db.CompleteRun
	if again {
		keep = db.KeepAndRelease
	}
	// The store redacts what the model wrote (it may join or decode a secret no captured
	// text held) before it compares or stores it, so no later batch is shown it either.
	dups, err := keep(ctx, r.id, store.RunAnswer{Observations: a.Observations, Summary: a.Summary, AsIs: !o.s.RedactSecrets, Loc: o.d.Loc})
	if err != nil {
		if errors.Is(err, store.ErrNoClaim) || errors.Is(err, store.ErrInvalidArgument) {
			o.release(ctx, db, r.batchRun, false)
			return false, err
		}
		// A full disk (SQLITE_FULL), a lock held too long: the answer is in the run's
		// transcript, and its events stay claimed under the run, whose process is gone
		// once this one exits: the next run, or SessionStart's, stores it (settleStranded).
		*r.held = true
		log.Error().Err(err).Msg("storing the observer's answer failed; it is kept in the run's transcript and stored by the next run")
		return false, err
	}
	r.rec.Observations, r.rec.Duplicates = len(a.Observations)-dups, dups
	log = log.With().Int("observations", r.rec.Observations).Int("duplicates", dups).Bool("summary", a.Summary != nil).
		Float64("cost_usd", r.res.Usage.CostUSD).Logger()
	if again {
		o.batch = max(1, r.events/2)
		o.again = true
		log.Warn().Int("dropped", a.Dropped).Int("next_batch", o.batch).
			Msg("observer answer cut at the output limit; complete blocks kept, its events run again in smaller batches")
		return true, nil
	}
	log.Info().Msg("observer run stored")
	if r.summary && a.Summary != nil {
		if err := db.FinalDone(ctx, o.session); err != nil {
			log.Warn().Err(err).Msg("recording the final run failed; a later SessionStart may run it again")
		}
	}
	return true, nil
}
