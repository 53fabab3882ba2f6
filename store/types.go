package store

import (
	"fmt"
	"strings"
	"time"
)

// Event states, in the order an event moves through them.
const (
	StatePending    = "pending"
	StateProcessing = "processing"
	StateDone       = "done"
	StateFailed     = "failed"
)

// ObservationTypes are the types an observation may have: the observer's prompt offers
// them, its parser maps any other to the nearest, the viewer filters by them, and remember
// accepts them (and note).
var ObservationTypes = []string{"bugfix", "feature", "refactor", "change", "discovery", "decision"}

// Session is one Claude Code session of a user's project.
type Session struct {
	ID        string
	Project   string
	Cwd       string
	StartedAt time.Time
	EndedAt   time.Time // zero while the session is open
}

// Prompt is one stored user prompt (private spans already removed).
type Prompt struct {
	ID        int64
	SessionID string
	Project   string
	Text      string
	At        time.Time
	RecordID  string // the capture journal's record id: a second ingestion of it is skipped
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
}

// Hit is one search result.
type Hit struct {
	Kind     string // observation, summary or prompt
	ID       int64
	Project  string
	Session  string
	Type     string // an observation's type; "" for the other kinds
	Title    string // observation title, summary request, or the prompt's first line
	Subtitle string // an observation's subtitle
	Snippet  string // plain text: the words around the matches in the best matching field
	Marks    []Span // where the matched words are in Snippet, for a renderer to mark
	Similar  int    // near-equal observations this hit stands for (see collapse)
	Repeats
	Context bool // found only by its session's context: it holds none of the query's words
	At      time.Time
	Rank    float64 // lower is better
}

// Repeats is how often a prompt hit was asked: search collapses near-equal prompts of a
// project (TitleKey of their text) into the best of them. Zero on every other hit.
type Repeats struct {
	Asked    int      // the prompts it stands for, itself included
	Sessions []string // the sessions they were asked in, its own first, then by rank
}

// AskedNote is how every reader words Repeats: "asked 3 times, in sessions 6bd7b57a,
// c18e24bf, 626f39b5" (each session by its first 8 characters), or "" when r is zero.
func (r Repeats) AskedNote() string {
	if r.Asked < 2 {
		return ""
	}
	short := make([]string, len(r.Sessions))
	for i, s := range r.Sessions {
		short[i] = s[:min(len(s), 8)]
	}
	in := "session"
	if len(short) > 1 {
		in = "sessions"
	}
	return fmt.Sprintf("asked %d times, in %s %s", r.Asked, in, strings.Join(short, ", "))
}

// Counts is the number of events in each state.
type Counts struct {
	Pending, Processing, Done, Failed int
}
