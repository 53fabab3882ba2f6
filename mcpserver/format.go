package mcpserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-mem/claude-mem-go/byline"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// maxAnswer bounds every answer: its text, and separately its structured content, stay
// within about this many bytes; what does not fit is named as left out.
const maxAnswer = 6000

// maxTitle bounds a title in an index line.
const maxTitle = 200

// EntryOut is one index or timeline line as structured content.
type EntryOut struct {
	Ref     string `json:"ref"`
	Kind    string `json:"kind"`
	Time    string `json:"time"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Size    int    `json:"size"`
	// A search hit that stands for near-equal prompts: how often, in which sessions.
	Asked    int      `json:"asked,omitempty"`
	Sessions []string `json:"sessions,omitempty"`
	// A pulled record: who made it (a teammate's name; "" for the user's own) and where.
	Author  string `json:"author,omitempty"`
	Machine string `json:"machine,omitempty"`
}

// IndexOut is search's and timeline's structured content. Message says in words what
// the text says around the lines (hits found, what was left out, what to call next):
// Claude Code 2.1.328 hands the model the structured content instead of the text.
type IndexOut struct {
	Message string     `json:"message"`
	Project string     `json:"project,omitempty"` // "*": every project
	Anchor  string     `json:"anchor,omitempty"`  // timeline: the ref it is centred on
	Entries []EntryOut `json:"entries"`
	LeftOut int        `json:"left_out"` // entries not shown to keep the answer bounded
}

// RecordOut is one full record as structured content.
type RecordOut struct {
	Ref           string   `json:"ref"`
	Kind          string   `json:"kind"`
	Time          string   `json:"time"`
	Project       string   `json:"project"`
	Session       string   `json:"session"`
	Type          string   `json:"type,omitempty"`
	Origin        string   `json:"origin,omitempty"`
	Author        string   `json:"author,omitempty"`  // a teammate's record: who made it
	Machine       string   `json:"machine,omitempty"` // a pulled record: where it was made
	Title         string   `json:"title,omitempty"`
	Subtitle      string   `json:"subtitle,omitempty"`
	Narrative     string   `json:"narrative,omitempty"`
	Facts         []string `json:"facts,omitempty"`
	Concepts      []string `json:"concepts,omitempty"`
	FilesRead     []string `json:"files_read,omitempty"`
	FilesModified []string `json:"files_modified,omitempty"`
	Request       string   `json:"request,omitempty"`
	Investigated  string   `json:"investigated,omitempty"`
	Learned       string   `json:"learned,omitempty"`
	Completed     string   `json:"completed,omitempty"`
	NextSteps     string   `json:"next_steps,omitempty"`
	Notes         string   `json:"notes,omitempty"`
	Text          string   `json:"text,omitempty"`
	Clipped       bool     `json:"clipped,omitempty"` // a field was shortened to fit the bound

	shown string // Time as the text shows it, to the second in the user's zone
}

// RecordsOut is get_observations' structured content.
type RecordsOut struct {
	Message string      `json:"message"`
	Records []RecordOut `json:"records"`
	Missing []string    `json:"missing"`  // refs that name no record
	LeftOut []string    `json:"left_out"` // refs not shown to keep the answer bounded
}

// RememberOut is remember's structured content.
type RememberOut struct {
	Message string `json:"message"`
	Ref     string `json:"ref"`
	ID      int64  `json:"id"`
	Project string `json:"project"`
	Type    string `json:"type"`
	Title   string `json:"title"`
}

// budget admits parts while both the text and the structured content stay within
// maxAnswer.
type budget struct{ text, js int }

func (b *budget) admit(text string, v any) bool {
	js, _ := json.Marshal(v)
	if b.text+len(text)+1 > maxAnswer || b.js+len(js)+1 > maxAnswer {
		return false
	}
	b.text += len(text) + 1
	b.js += len(js) + 1
	return true
}

// shownEntries are entries with their stored text as an answer carries it (printable.Inert),
// escaped before it is clipped and measured, so the bound holds for what is sent.
func shownEntries(entries []store.Entry) []store.Entry {
	out := make([]store.Entry, len(entries))
	for i, e := range entries {
		e.Title, e.Type, e.Project = printable.Inert(e.Title), printable.Inert(e.Type), printable.Inert(e.Project)
		e.Author, e.Machine = printable.Inert(e.Author), printable.Inert(e.Machine)
		out[i] = e
	}
	return out
}

func entryOut(e store.Entry, loc *time.Location) EntryOut {
	return EntryOut{Ref: recordid.Format(e.Ref), Kind: e.Kind, Time: when.Show(e.At, loc, when.Instant),
		Type: e.Type, Title: clip.Head(oneLine(e.Title), maxTitle), Project: e.Project, Size: e.Size,
		Asked: e.Asked, Sessions: e.Sessions, Author: e.Author, Machine: e.Machine}
}

// entryLine is "#12 2026-11-30 [bugfix] Title (project) · 1.2k chars", and "· by alice on
// desk" for a pulled record (package byline); a timeline line
// has the time of day too and marks its anchor; both in the user's zone loc.
func entryLine(e store.Entry, timeline, isAnchor bool, loc *time.Location) string {
	shown := when.Show(e.At, loc, when.Date)
	if timeline {
		shown = when.Show(e.At, loc, when.Minute)
	}
	mark := ""
	if timeline {
		mark = "  "
		if isAnchor {
			mark = "→ "
		}
	}
	title := clip.Head(oneLine(e.Title), maxTitle)
	if title == "" {
		title = "(untitled)"
	}
	line := fmt.Sprintf("%s%s %s [%s] %s (%s) · %s", mark, recordid.Label(e.Ref), shown, e.Type, title, e.Project, size(e.Size))
	if note := e.AskedNote(); note != "" {
		line += " · " + note
	}
	if by := byline.Of(e.Author, e.Machine); by != "" {
		line += " · " + by
	}
	return line
}

func size(n int) string {
	if n < 1000 {
		return strconv.Itoa(n) + " chars"
	}
	return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k chars"
}

// index renders entries as lines under head: search's hits in rank order, or a timeline
// (anchor set) whose lines nearest the anchor are kept first when the bound bites.
func index(head string, entries []store.Entry, anchor *vocab.Ref, foot string, loc *time.Location) (*mcp.CallToolResult, *IndexOut) {
	entries = shownEntries(entries)
	b := budget{text: len(head) + len(foot) + 120, js: 2*(len(head)+len(foot)) + 320}
	order := make([]int, 0, len(entries))
	centre := 0
	if anchor != nil {
		for i, e := range entries {
			if e.Ref == *anchor {
				centre = i
			}
		}
		order = append(order, centre)
		for d := 1; len(order) < len(entries); d++ {
			for _, i := range []int{centre - d, centre + d} {
				if i >= 0 && i < len(entries) {
					order = append(order, i)
				}
			}
		}
	} else {
		for i := range entries {
			order = append(order, i)
		}
	}
	shown := make([]bool, len(entries))
	left := 0
	for _, i := range order {
		e := entries[i]
		if left == 0 || anchor != nil {
			if b.admit(entryLine(e, anchor != nil, anchor != nil && e.Ref == *anchor, loc), entryOut(e, loc)) {
				shown[i] = true
				continue
			}
		}
		left++
	}
	lines := []string{head}
	out := &IndexOut{Entries: []EntryOut{}, LeftOut: left}
	var words []string
	for i, e := range entries {
		if shown[i] {
			lines = append(lines, entryLine(e, anchor != nil, anchor != nil && e.Ref == *anchor, loc))
			out.Entries = append(out.Entries, entryOut(e, loc))
		}
	}
	if left > 0 {
		words = append(words, fmt.Sprintf("(%d more left out to keep this answer under 6 KB; narrow the query, or ask for fewer)", left))
	}
	if len(out.Entries) > 0 {
		words = append(words, foot)
	}
	out.Message = strings.Join(append([]string{head}, words...), " ")
	return textResult(strings.Join(append(lines, words...), "\n")), out
}

// Field bounds of a full record, tried in order until the record fits; only the first
// record of an answer goes past the first two.
var fieldBounds = []int{1500, 600, 250, 100}

const maxListItems = 20

// records renders full records, as many as fit, then the refs left out and the missing.
func records(found []store.Record, missing []vocab.Ref, loc *time.Location) (*mcp.CallToolResult, *RecordsOut) {
	out := &RecordsOut{Records: []RecordOut{}, Missing: []string{}, LeftOut: []string{}}
	b := budget{text: 300, js: 600}
	var blocks []string
	var left []vocab.Ref
	for i, rec := range found {
		admitted := false
		for level, n := range fieldBounds {
			if i > 0 && level > 1 {
				break
			}
			ro := recordOut(rec, n, loc)
			text := recordText(ro)
			if b.admit(text, ro) {
				blocks = append(blocks, text)
				out.Records = append(out.Records, ro)
				admitted = true
				break
			}
		}
		if !admitted {
			left = append(left, rec.Ref)
			out.LeftOut = append(out.LeftOut, recordid.Format(rec.Ref))
		}
	}
	for _, m := range missing {
		out.Missing = append(out.Missing, recordid.Format(m))
	}
	words := []string{fmt.Sprintf("%d record(s).", len(out.Records))}
	if len(left) > 0 {
		words = append(words, "Left out to keep this answer under 6 KB: "+labels(left)+"; ask for them in another call.")
	}
	if len(missing) > 0 {
		words = append(words, "Not found: "+labels(missing)+" (search and timeline print the refs that exist).")
	}
	out.Message = strings.Join(words, " ")
	return textResult(strings.Join(append(blocks, words[1:]...), "\n\n")), out
}

// labels lists refs as lists print them: "#12, #S3".
func labels(refs []vocab.Ref) string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = recordid.Label(r)
	}
	return strings.Join(out, ", ")
}

// recordOut is rec with every field inert (printable.Inert) and clipped to n bytes (list
// items to n/4, at most maxListItems of them).
func recordOut(rec store.Record, n int, loc *time.Location) RecordOut {
	ro := RecordOut{Ref: recordid.Format(rec.Ref), Kind: rec.Kind, Origin: rec.Origin}
	field := func(s string) string {
		s = printable.Inert(s)
		c := clip.Head(s, n)
		if c != s {
			ro.Clipped = true
		}
		return c
	}
	list := func(l []string) []string {
		var out []string
		for i, s := range l {
			s = printable.Inert(s)
			if i == maxListItems {
				ro.Clipped = true
				out = append(out, fmt.Sprintf("(%d more)", len(l)-i))
				break
			}
			c := clip.Head(s, max(n/4, 60))
			if c != s {
				ro.Clipped = true
			}
			out = append(out, c)
		}
		return out
	}
	stamp := func(project, session string, at time.Time, author, machine string) {
		ro.Project, ro.Session, ro.Time = printable.Inert(project), printable.Inert(session), when.Show(at, loc, when.Instant)
		ro.shown = when.Show(at, loc, when.Second)
		ro.Author, ro.Machine = printable.Inert(author), printable.Inert(machine)
	}
	switch {
	case rec.Observation != nil:
		o := rec.Observation
		stamp(o.Project, o.SessionID, o.At, o.Author, o.Machine)
		ro.Type, ro.Title, ro.Subtitle, ro.Narrative = printable.Inert(o.Type), field(o.Title), field(o.Subtitle), field(o.Narrative)
		ro.Facts, ro.Concepts, ro.FilesRead, ro.FilesModified = list(o.Facts), list(o.Concepts), list(o.FilesRead), list(o.FilesModified)
	case rec.Summary != nil:
		s := rec.Summary
		stamp(s.Project, s.SessionID, s.At, s.Author, s.Machine)
		ro.Type = "summary"
		ro.Request, ro.Investigated, ro.Learned = field(s.Request), field(s.Investigated), field(s.Learned)
		ro.Completed, ro.NextSteps, ro.Notes = field(s.Completed), field(s.NextSteps), field(s.Notes)
	case rec.Prompt != nil:
		p := rec.Prompt
		stamp(p.Project, p.SessionID, p.At, p.Author, p.Machine)
		ro.Type, ro.Text = "prompt", field(p.Text)
	}
	return ro
}

// recordText is a record as the model reads it: a header line, then its fields, one line
// each, and a prompt's text with each of its lines quoted ("> "): a line break in a stored
// value cannot start a line that reads as a label, a record's header or a heading of ours.
// The structured content keeps the values' line breaks, as JSON escapes.
func recordText(ro RecordOut) string {
	head := fmt.Sprintf("#%s %s [%s]", ro.Ref, ro.shown, ro.Type)
	if ro.Title != "" {
		head += " " + oneLine(ro.Title)
	}
	about := "project " + ro.Project + ", session " + ro.Session
	if ro.Origin == store.OriginModel {
		about += ", written by the model"
	}
	if by := byline.Of(ro.Author, ro.Machine); by != "" {
		about += ", " + by
	}
	if ro.Clipped {
		about += ", shortened to fit"
	}
	lines := []string{head + " (" + about + ")"}
	field := func(label, v string) {
		if strings.TrimSpace(v) != "" {
			lines = append(lines, label+": "+oneLine(v))
		}
	}
	items := func(label string, l []string) {
		if len(l) > 0 {
			lines = append(lines, label+":")
			for _, s := range l {
				lines = append(lines, "- "+oneLine(s))
			}
		}
	}
	field("Subtitle", ro.Subtitle)
	field("Narrative", ro.Narrative)
	items("Facts", ro.Facts)
	if len(ro.Concepts) > 0 {
		field("Concepts", strings.Join(ro.Concepts, ", "))
	}
	items("Files read", ro.FilesRead)
	items("Files modified", ro.FilesModified)
	field("Request", ro.Request)
	field("Investigated", ro.Investigated)
	field("Learned", ro.Learned)
	field("Completed", ro.Completed)
	field("Next steps", ro.NextSteps)
	field("Notes", ro.Notes)
	if ro.Text != "" {
		lines = append(lines, "> "+strings.ReplaceAll(strings.ReplaceAll(ro.Text, "\r\n", "\n"), "\n", "\n> "))
	}
	return strings.Join(lines, "\n")
}

// oneLine folds line breaks into spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
