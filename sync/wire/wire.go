// Package wire is the shape of a record as it travels between a machine and the sync server
// (DESIGN §25): the one vocabulary the local store (what goes out, what comes in) and the
// server client (push, pull) both speak, so neither knows the other's tables.
package wire

import (
	"encoding/json"
	"time"
)

// Kind is what a record is. Events, answers and run files have no kind here: they never
// leave the machine.
type Kind string

const (
	Session     Kind = "session"     // a session header: its times and request
	Observation Kind = "observation" // what the observer made of a turn
	Summary     Kind = "summary"     // a session's summary
	Prompt      Kind = "prompt"      // a user's prompt: only between one person's machines
)

// Kinds lists every kind that travels, in the order a pull applies them (a session before
// what belongs to it).
var Kinds = []Kind{Session, Observation, Summary, Prompt}

// Record is one record as it travels. A pushed record's Author is ignored: the server sets
// the owner from the database role that wrote it, never from what a client sends.
type Record struct {
	GID     string    // global id, a UUIDv7 in its text form, given where the record was made
	Kind    Kind      // what it is
	Project string    // the project's key across machines (project.Key)
	Session string    // the GID of the session it belongs to ("" for a session header)
	Machine string    // the machine that made it
	Author  string    // on a pull: the person (server role) who owns it
	At      time.Time // when it was made, to the millisecond
	// Deleted marks a tombstone: the record was forgotten by its owner; Body is empty.
	Deleted bool
	// Body holds the kind's fields: a SessionBody, ObservationBody, SummaryBody or
	// PromptBody as JSON. What comes back from a server is untrusted input.
	Body json.RawMessage
}

// SessionBody is a session header's fields.
type SessionBody struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	Request string    `json:"request,omitempty"`
}

// ObservationBody is an observation's fields.
type ObservationBody struct {
	Type          string   `json:"type"`
	Title         string   `json:"title"`
	Subtitle      string   `json:"subtitle,omitempty"`
	Narrative     string   `json:"narrative,omitempty"`
	Facts         []string `json:"facts,omitempty"`
	Concepts      []string `json:"concepts,omitempty"`
	FilesRead     []string `json:"files_read,omitempty"`
	FilesModified []string `json:"files_modified,omitempty"`
}

// SummaryBody is a session summary's fields.
type SummaryBody struct {
	Request      string `json:"request,omitempty"`
	Investigated string `json:"investigated,omitempty"`
	Learned      string `json:"learned,omitempty"`
	Completed    string `json:"completed,omitempty"`
	NextSteps    string `json:"next_steps,omitempty"`
	Notes        string `json:"notes,omitempty"`
}

// PromptBody is a prompt's fields.
type PromptBody struct {
	Text string `json:"text"`
}

// Cursor is how far a machine has pulled from one server: opaque to the local store, which
// keeps it per server and advances it only in the transaction that stores what was pulled.
type Cursor string

// Pushed says what became of the records of one push. A push is idempotent: a record the
// server already holds from this person is Stored again, not duplicated.
type Pushed struct {
	Stored  []string // GIDs the server holds now
	Refused []string // GIDs it refused: another person's id, or a tombstone of a row not theirs
}

// Page is one pull's answer: records in the order to apply them, and the cursor to store
// with them. More says a next pull may find more now.
type Page struct {
	Records []Record
	Next    Cursor
	More    bool
}
