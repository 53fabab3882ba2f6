// Package vocab is the product's vocabulary, each word declared once: the kinds of stored
// record and the ref that names one, the types of an observation, how an observer run
// ended and what its answer yielded. Every package that speaks of records or runs imports
// it rather than the store or the spawner, so a reader of records (recordid, mcpserver,
// the viewer) or of runs (stats, doctor) does not depend on storage.
package vocab

// Record kinds: what a search hit, a record id or a memory tool names.
const (
	KindObservation = "observation"
	KindSummary     = "summary"
	KindPrompt      = "prompt"
)

// Ref names one stored record. Ids are per kind: observation 7 and prompt 7 are two
// records.
type Ref struct {
	Kind string // KindObservation, KindSummary or KindPrompt
	ID   int64
}

// ObservationTypes are the types an observation may have: the observer's prompt offers
// them, its parser maps any other to the nearest, the viewer filters by them, and remember
// accepts them (and note).
var ObservationTypes = []string{"bugfix", "feature", "refactor", "change", "discovery", "decision"}

// Outcome is how an observer run ended (DESIGN.md §8).
type Outcome string

const (
	OutcomeOK            Outcome = "ok"             // observations parsed from its answer; events done
	OutcomeAuthFailed    Outcome = "auth_failed"    // pause until the credential changes
	OutcomeSetupRequired Outcome = "setup_required" // the spawn itself failed; pause
	OutcomeTransient     Outcome = "transient"      // rate limit, overload, timeout: retry later
	OutcomeError         Outcome = "error"          // anything else: attempts counted
	// OutcomeUnrecorded: the run's process was gone before it said what it cost (a
	// SIGKILL, a crash): its events went back to pending, and what it spent is not known,
	// so the budget may undercount. Counted per day.
	OutcomeUnrecorded Outcome = "unrecorded"
)

// Verdict is what one observer answer yielded (§24): every answer gets one, so none is
// lost without a count.
type Verdict string

const (
	VerdictStored   Verdict = "stored"   // kept as given
	VerdictSalvaged Verdict = "salvaged" // kept after a repair, or in part; its reasons say which
	VerdictSkipped  Verdict = "skipped"  // the observer said nothing was worth remembering
	VerdictUnusable Verdict = "unusable" // nothing could be kept: its events are retried
)

// Verdicts are every verdict, in the order reports show them.
var Verdicts = []Verdict{VerdictStored, VerdictSalvaged, VerdictSkipped, VerdictUnusable}
