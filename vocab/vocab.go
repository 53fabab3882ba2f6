// Package vocab is the product's vocabulary, each word declared once: the kinds of stored
// record and the ref that names one. Every package that speaks of records imports it
// rather than the store, so a reader of records (recordid, mcpserver, the viewer) does not
// depend on storage.
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
