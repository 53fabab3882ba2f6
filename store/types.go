package store

import (
	"time"
)

// Event states, in the order an event moves through them.
const (
	StatePending    = "pending"
	StateProcessing = "processing"
	StateDone       = "done"
	StateFailed     = "failed"
)

// Session is one Claude Code session of a user's project.
type Session struct {
	ID        string
	Project   string
	Cwd       string
	StartedAt time.Time
	EndedAt   time.Time // zero while the session is open
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// Prompt is one stored user prompt (private spans already removed).
type Prompt struct {
	ID        int64
	SessionID string
	Project   string
	Text      string
	At        time.Time
	RecordID  string // the capture journal's record id: a second ingestion of it is skipped
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// Answer is the assistant's last message of one turn (Stop's last_assistant_message),
// redacted and clipped at capture.
type Answer struct {
	ID        int64
	SessionID string
	Project   string
	Text      string
	At        time.Time
	RecordID  string // the capture journal's record id: a second ingestion of it is skipped
}

// Event is one captured tool use waiting for (or processed by) the observer.
type Event struct {
	ID        int64
	SessionID string
	Project   string
	Hook      string // PostToolUse or PostToolUseFailure
	ToolName  string
	ToolUseID string
	Input     string // JSON text, possibly shortened with a marker
	Response  string // JSON text or error text, possibly shortened with a marker
	IsError   bool
	Cwd       string
	At        time.Time
	State     string
	Attempts  int
	RunID     string
	RecordID  string // the capture journal's record id: a second ingestion of it is skipped
}

// Observation is one unit of memory the observer produced.
type Observation struct {
	ID            int64
	SessionID     string
	Project       string
	RunID         string
	Type          string // bugfix, feature, refactor, change, discovery, decision
	Title         string
	Subtitle      string
	Narrative     string
	Facts         []string
	Concepts      []string
	FilesRead     []string
	FilesModified []string
	At            time.Time
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// Summary is the observer's summary of a whole session, written at SessionEnd.
type Summary struct {
	ID           int64
	SessionID    string
	Project      string
	RunID        string
	Request      string
	Investigated string
	Learned      string
	Completed    string
	NextSteps    string
	Notes        string
	At           time.Time
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// Counts is the number of events in each state.
type Counts struct {
	Pending, Processing, Done, Failed int
}
