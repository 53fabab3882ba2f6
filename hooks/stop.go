package hooks

import (
	"context"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
)

// MaxAnswer is the longest turn answer (Stop's last_assistant_message) stored whole; a
// longer one keeps its head (what was done) and tail (the conclusion) around a marker.
const MaxAnswer = 8 << 10

// handleStop journals the turn's answer, ingests the capture journal, then starts the
// observer when the session's pending events make a batch (budget.BatchDue) and today's
// budget is not spent. It returns at once: the observer runs detached, in its own session.
func handleStop(ctx context.Context, d *Deps, in Input) Result {
	p, ok := admit(d, in)
	if !ok {
		return Result{}
	}
	// An answer may quote the prompt's private spans: they go as the prompt's did.
	if text := StripPrivate(in.LastMessage); text != "" {
		r := journal.Record{Kind: store.CaptureAnswer, Text: text}
		d.redacted(&r, MaxAnswer, asText(&r.Text))
		d.capture(in, p, r)
	}
	var due bool
	_ = withStore(d, in.Event, func(db *store.DB) error {
		// A database that would not take the journal (locked past the hook's wait) is
		// not written again here: the records wait, and no hook waits twice.
		_ = d.Ingest(ctx, db)
		if !d.observerEnabled() {
			return nil
		}
		// What is still in journal files counts too (another ingester's claim, or a
		// failed ingestion): read first, so a commit in between is counted at worst twice.
		jn, joldest := d.Journal.SessionEvents(in.SessionID)
		n, oldest, err := db.PendingOf(ctx, in.SessionID)
		if err != nil {
			return err
		}
		n += jn
		if !joldest.IsZero() && (oldest.IsZero() || joldest.Before(oldest)) {
			oldest = joldest
		}
		due = budget.BatchDue(n, oldest, d.Now(), d.Settings.BatchEvents, d.Settings.BatchWait) && !d.budgetReached(ctx, db)
		return nil
	})
	if !due {
		return Result{}
	}
	return Result{Observe: []ObserveRequest{{SessionID: in.SessionID}}}
}
