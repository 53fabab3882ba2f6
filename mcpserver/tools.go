package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Bounds of the tools' inputs.
const (
	maxQuery      = 500  // characters of a search query
	defaultLimit  = 20   // search hits
	maxLimit      = 50   // search hits
	defaultAround = 5    // timeline records on each side
	maxAround     = 25   // timeline records on each side
	maxIDs        = 20   // records in one get_observations call
	maxNoteTitle  = 200  // characters
	maxNoteText   = 4000 // characters
)

// answerKB is maxAnswer as the tools' descriptions and errors say it.
func answerKB() string { return strconv.Itoa(maxAnswer/1000) + " KB" }

// typeNote is remember's default type, beside the observer's.
const typeNote = "note"

// noteTypes are the types remember accepts: note, and the observer's.
func noteTypes() []string { return slices.Concat([]string{typeNote}, vocab.ObservationTypes) }

// schema is a tool's JSON input schema: format with each bound the handler enforces, so the
// model reads the same numbers the handler checks.
func schema(format string, a ...any) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(format, a...))
}

// jsonList is ss as the items of a JSON array.
func jsonList(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

// The tool names, as the model sees them after Claude Code's mcp__plugin_claude-mem_memory__ prefix.
const (
	toolSearch   = "search"
	toolTimeline = "timeline"
	toolGet      = "get_observations"
	toolRemember = "remember"
)

func isTool(name string) bool {
	return slices.Contains([]string{toolSearch, toolTimeline, toolGet, toolRemember}, name)
}

const instructions = `claude-mem: memory of this project's earlier Claude Code sessions. Before re-investigating something that may have come up before, search it (a compact index), then open only the records you need with get_observations (timeline shows what happened around one). Use remember to keep a decision, preference or gotcha for future sessions.`

const refHelp = `A ref names a record: 12 (observation #12), "S3" (summary #S3) or "P7" (prompt #P7), as search and timeline print them.`

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  toolSearch,
		Title: "Search memory",
		Description: `Search the memory of earlier Claude Code sessions in this project: observations (what was done, found and decided, with files), session summaries, and the user's past prompts. Use it before re-investigating something that may have been worked on before: a bug, a design decision, how a part of the code works, what the user asked for last time.
Returns a compact index, best match first, one line per hit: "#id date [type] title (project) · size of the full record". Then open only the relevant records with get_observations, or see what happened around one with timeline.
The query is plain words (no operators or quotes needed): records with all the words rank first; when none has them all, any word matches. Prefer a few distinctive words (a function, file or error name) over a sentence.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Plain words to look for, e.g. \"login cookie expiry\". At most %d characters."},
    "project": {"type": "string", "description": "Project name to search; default: the current project. \"*\" searches every project."},
    "type": {"type": "string", "description": "Only this kind of record: an observation type (%s), or \"observation\", \"summary\", \"prompt\"."},
    "since": {"type": "string", "description": "Only records from this time on: a date (2026-11-30, from local midnight), a time as these tools show one, an RFC 3339 time, or an age such as 7d, 12h, 2w."},
    "until": {"type": "string", "description": "Only records up to this time: a date (its whole local day included), a time as these tools show one (its whole minute or second included), an RFC 3339 time, or an age such as 1d."},
    "author": {"type": "string", "description": "Only records this person wrote: a teammate's name as the hits show it (\"by alice\"), or the user's own."},
    "limit": {"type": "integer", "description": "Most hits to return, 1 to %d; default %d."}
  },
  "required": ["query"],
  "additionalProperties": false
}`, maxQuery, strings.Join(append(slices.Clip(vocab.ObservationTypes), typeNote), ", "), maxLimit, defaultLimit),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.search)

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  toolTimeline,
		Title: "Memory timeline",
		Description: `Show what happened around one memory record, oldest first: the observations, session summaries and user prompts just before and after it in its project, one line each. Use it to understand a search hit in context: what led to a change and what followed.
Give id (a ref from search, e.g. 12, "S3" or "P7"), or query to anchor on the best search hit. ` + refHelp,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "id": {"type": ["integer", "string"], "description": "The record to center on: 12, \"#12\", \"S3\" or \"P7\"."},
    "query": {"type": "string", "description": "Instead of id: plain words; the best search hit is the center."},
    "before": {"type": "integer", "description": "Records to show before it, 0 to %[1]d; default %[2]d."},
    "after": {"type": "integer", "description": "Records to show after it, 0 to %[1]d; default %[2]d."},
    "project": {"type": "string", "description": "With query: the project to search; default the current one, \"*\" for every project."}
  },
  "additionalProperties": false
}`, maxAround, defaultAround),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.timeline)

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        toolGet,
		Title:       "Get memory records",
		Description: `Fetch the full memory records for refs found with search or timeline: an observation's narrative, facts, concepts and files read or modified; a summary's request, findings and next steps; a prompt's text. Ask only for the records you need (at most ` + strconv.Itoa(maxIDs) + `): the answer is bounded to about ` + answerKB() + ` and names any record left out, and any ref that does not exist. ` + refHelp,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "ids": {"type": "array", "items": {"type": ["integer", "string"]}, "description": "Refs to fetch, e.g. [12, 15, \"S3\"], at most %d."}
  },
  "required": ["ids"],
  "additionalProperties": false
}`, maxIDs),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.get)

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        toolRemember,
		Title:       "Remember a note",
		Description: `Store a note in this project's memory so that future sessions find it: it is searchable at once and shows in the next session's context. Use it when the user asks you to remember something, or to keep a durable fact worth knowing next time: a decision and its reason, a preference, a gotcha, where something lives. Write a short specific title and a self-contained text (it will be read without this conversation). Never store secrets. The note is marked as written by the model.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "One line, at most %d characters, e.g. \"Deploys go through the staging pipeline\"."},
    "text": {"type": "string", "description": "The note itself, self-contained, at most %d characters."},
    "type": {"type": "string", "enum": %s, "description": "What kind of note; default %s."}
  },
  "required": ["title", "text"],
  "additionalProperties": false
}`, maxNoteTitle, maxNoteText, jsonList(noteTypes()), typeNote),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, s.remember)
}

func ptr[T any](v T) *T { return &v }

// SearchArgs is search's input.
type SearchArgs struct {
	Query   string `json:"query"`
	Project string `json:"project,omitempty"`
	Type    string `json:"type,omitempty"`
	Since   string `json:"since,omitempty"`
	Until   string `json:"until,omitempty"`
	Author  string `json:"author,omitempty"`
	Limit   *int   `json:"limit,omitempty"`
}

// TimelineArgs is timeline's input.
type TimelineArgs struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Query   string          `json:"query,omitempty"`
	Before  *int            `json:"before,omitempty"`
	After   *int            `json:"after,omitempty"`
	Project string          `json:"project,omitempty"`
}

// GetArgs is get_observations' input.
type GetArgs struct {
	IDs []json.RawMessage `json:"ids"`
}

// RememberArgs is remember's input.
type RememberArgs struct {
	Title string `json:"title"`
	Text  string `json:"text"`
	Type  string `json:"type,omitempty"`
}

// scope is the project a call reads: "" for every project.
func (s *Server) scope(arg string) string {
	if strings.TrimSpace(arg) == "" {
		return s.proj.Name
	}
	return project.Filter(arg)
}

func scopeLabel(project string) string {
	if project == "" {
		return "every project"
	}
	return "project " + project
}

// offText is what every tool says in a directory where memory is off.
func (s *Server) offText() string {
	return "claude-mem: memory is off in this directory (" + offReason(s.projErr) + "); nothing is returned and nothing is stored."
}

func (s *Server) offIndex() (*mcp.CallToolResult, *IndexOut, error) {
	msg := s.offText()
	return textResult(msg), &IndexOut{Message: msg, Entries: []EntryOut{}}, nil
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, *IndexOut, error) {
	if s.projErr != nil {
		return s.offIndex()
	}
	if err := checkQuery(a.Query, true); err != nil {
		return nil, nil, err
	}
	limit, err := intArg("limit", a.Limit, defaultLimit, 1, maxLimit)
	if err != nil {
		return nil, nil, err
	}
	f := rank.Filter{Project: s.scope(a.Project), Author: rank.AuthorFilter(strings.TrimSpace(a.Author), s.d.Self)}
	if f.Kinds, f.Type, err = typeArg(a.Type); err != nil {
		return nil, nil, err
	}
	now := s.d.Now()
	if f.Since, err = timeArg("since", a.Since, now, s.d.Loc, false); err != nil {
		return nil, nil, err
	}
	if f.Until, err = timeArg("until", a.Until, now, s.d.Loc, true); err != nil {
		return nil, nil, err
	}
	var hits []store.MemoryHit
	err = s.read(ctx, func(db *store.DB) (err error) {
		hits, err = db.SearchMemory(ctx, a.Query, f, limit)
		return err
	})
	if errors.Is(err, errNoMemory) {
		return noEntries(f.Project, "No memory stored yet.")
	}
	if err != nil {
		return nil, nil, err
	}
	entries := make([]store.Entry, len(hits))
	for i, h := range hits {
		entries[i] = h.Entry
	}
	head := fmt.Sprintf("No memory matches %q in %s.", a.Query, scopeLabel(f.Project))
	if len(hits) > 0 {
		head = fmt.Sprintf("%d hit(s) for %q in %s, best first:", len(hits), a.Query, scopeLabel(f.Project))
	}
	res, out := index(head, entries, nil, "Open records with get_observations (ids as shown, e.g. [12, \"S3\"]); see what happened around one with timeline.", s.d.Loc)
	out.Project = projectOut(f.Project)
	return res, out, nil
}

func (s *Server) timeline(ctx context.Context, _ *mcp.CallToolRequest, a TimelineArgs) (*mcp.CallToolResult, *IndexOut, error) {
	if s.projErr != nil {
		return s.offIndex()
	}
	before, err := intArg("before", a.Before, defaultAround, 0, maxAround)
	if err != nil {
		return nil, nil, err
	}
	after, err := intArg("after", a.After, defaultAround, 0, maxAround)
	if err != nil {
		return nil, nil, err
	}
	var anchor vocab.Ref
	hasID := len(a.ID) > 0 && string(a.ID) != "null"
	switch {
	case hasID && strings.TrimSpace(a.Query) != "":
		return nil, nil, errors.New("give id or query, not both")
	case hasID:
		if anchor, err = parseRef(a.ID); err != nil {
			return nil, nil, err
		}
	case strings.TrimSpace(a.Query) == "":
		return nil, nil, errors.New("give id (a ref from search, e.g. 12 or \"S3\") or query")
	default:
		if err := checkQuery(a.Query, false); err != nil {
			return nil, nil, err
		}
	}
	project := s.scope(a.Project)
	var entries []store.Entry
	err = s.read(ctx, func(db *store.DB) error {
		if !hasID {
			hits, err := db.SearchMemory(ctx, a.Query, rank.Filter{Project: project}, 1)
			if err != nil || len(hits) == 0 {
				return err
			}
			anchor = hits[0].Ref
		}
		var err error
		entries, err = db.Timeline(ctx, anchor, before, after)
		return err
	})
	switch {
	case errors.Is(err, errNoMemory):
		return noEntries(project, "No memory stored yet.")
	case errors.Is(err, store.ErrNotFound):
		return nil, nil, fmt.Errorf("no record %s (search prints the refs that exist)", recordid.Label(anchor))
	case err != nil:
		return nil, nil, err
	case anchor.Kind == "":
		return noEntries(project, fmt.Sprintf("No memory matches %q in %s, so there is no timeline.", a.Query, scopeLabel(project)))
	}
	head := fmt.Sprintf("Timeline of project %s around %s, oldest first (%s marks it):", entries[0].Project, recordid.Label(anchor), "→")
	res, out := index(head, entries, &anchor, "Open records with get_observations.", s.d.Loc)
	out.Project = entries[0].Project
	out.Anchor = recordid.Format(anchor)
	return res, out, nil
}

func (s *Server) get(ctx context.Context, _ *mcp.CallToolRequest, a GetArgs) (*mcp.CallToolResult, *RecordsOut, error) {
	if s.projErr != nil {
		msg := s.offText()
		return textResult(msg), &RecordsOut{Message: msg, Records: []RecordOut{}, Missing: []string{}, LeftOut: []string{}}, nil
	}
	if len(a.IDs) == 0 {
		return nil, nil, errors.New("ids is empty: give the refs to fetch, e.g. [12, \"S3\"]")
	}
	if len(a.IDs) > maxIDs {
		return nil, nil, fmt.Errorf("%d ids asked for; at most %d at once (the answer is bounded to about %s)", len(a.IDs), maxIDs, answerKB())
	}
	var refs []vocab.Ref
	for _, raw := range a.IDs {
		ref, err := parseRef(raw)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	var found []store.Record
	var missing []vocab.Ref
	err := s.read(ctx, func(db *store.DB) (err error) {
		found, missing, err = db.Records(ctx, refs)
		return err
	})
	if errors.Is(err, errNoMemory) {
		missing = refs
	} else if err != nil {
		return nil, nil, err
	}
	res, out := records(found, missing, s.d.Loc)
	if len(found) == 0 {
		res.IsError = true // every ref was wrong: the model should look again
	}
	return res, out, nil
}

func (s *Server) remember(ctx context.Context, _ *mcp.CallToolRequest, a RememberArgs) (*mcp.CallToolResult, *RememberOut, error) {
	if s.projErr != nil {
		return nil, nil, errors.New(s.offText()) // a tool error: the note was not kept
	}
	title, text := strings.TrimSpace(a.Title), strings.TrimSpace(a.Text)
	switch {
	case title == "":
		return nil, nil, errors.New("title is empty: give the note a short specific title")
	case text == "":
		return nil, nil, errors.New("text is empty: write the note itself")
	case strings.ContainsAny(title, "\r\n"):
		return nil, nil, errors.New("title must be one line")
	case utf8.RuneCountInString(title) > maxNoteTitle:
		return nil, nil, fmt.Errorf("title is %d characters; at most %d", utf8.RuneCountInString(title), maxNoteTitle)
	case utf8.RuneCountInString(text) > maxNoteText:
		return nil, nil, fmt.Errorf("text is %d characters; at most %d: keep the note to what a future session needs", utf8.RuneCountInString(text), maxNoteText)
	}
	typ := strings.TrimSpace(a.Type)
	if typ == "" {
		typ = typeNote
	}
	if !slices.Contains(noteTypes(), typ) {
		return nil, nil, fmt.Errorf("type %q: use one of %s", typ, strings.Join(noteTypes(), ", "))
	}
	if s.d.Redact != nil {
		title, text = s.d.Redact(title), s.d.Redact(text)
	}
	session := s.d.SessionID
	if session == "" {
		session = "model-notes-" + s.proj.Name
	}
	db, err := s.d.Memory.OpenWrite()
	if err != nil {
		s.d.Log.Error().Err(err).Msg("mcp: database unavailable; note not stored")
		return nil, nil, fmt.Errorf("memory unavailable, the note was not stored: %v (details: claude-mem doctor)", err)
	}
	defer db.Close()
	id, err := db.Remember(ctx, store.Note{SessionID: session, Project: s.proj.Name, Cwd: s.d.Cwd,
		Type: typ, Title: title, Text: text, At: s.d.Now()})
	if err != nil {
		s.d.Log.Error().Err(err).Msg("mcp: storing a note failed")
		return nil, nil, fmt.Errorf("the note was not stored: %v", err)
	}
	s.d.Log.Info().Int64("observation", id).Str("project", s.proj.Name).Msg("mcp: note remembered")
	ref := vocab.Ref{Kind: vocab.KindObservation, ID: id}
	msg := fmt.Sprintf("Remembered as %s [%s] %s (project %s). It is searchable now and shows in the next session's context.", recordid.Label(ref), typ, title, s.proj.Name)
	return textResult(msg), &RememberOut{Message: msg, Ref: recordid.Format(ref), ID: id, Project: s.proj.Name, Type: typ, Title: title}, nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// noEntries is an index answer with no entries: msg as the text and as the structured
// content's message (Claude Code 2.1.328 shows the model the structured content alone).
func noEntries(project, msg string) (*mcp.CallToolResult, *IndexOut, error) {
	return textResult(msg), &IndexOut{Message: msg, Project: projectOut(project), Entries: []EntryOut{}}, nil
}

func projectOut(p string) string {
	if p == "" {
		return project.All
	}
	return p
}
