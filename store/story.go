package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// StorySummaries bounds the summaries a story reads: the latest one, and the sessions
// without observations in the window that still get a heading; a budget of 8,000 bytes
// shows a handful of sessions, and each summary read costs its session's lookup.
const StorySummaries = 16

// What the SessionStart story reads: only the columns it shows (a narrative or a fact list
// is never read), newest first, from the (project, at, id) indexes.
const (
	sqlStoryObservations = `SELECT id, session_id, type, title, subtitle, at FROM observations
WHERE project = ? ORDER BY at DESC, id DESC`
	sqlStorySummaries = `SELECT id, session_id, request, learned, next_steps, at FROM summaries
WHERE project = ? ORDER BY at DESC, id DESC`
	// A session's request: its latest summary's request, else its first non-blank prompt
	// (only its start is read: a pasted log can be megabytes). The ids' placeholders
	// and ")" follow.
	sqlStorySessions = `SELECT s.id, s.started_at,
	coalesce((SELECT m.request FROM summaries m WHERE m.session_id = s.id AND m.request <> ''
		ORDER BY m.at DESC, m.id DESC LIMIT 1), ''),
	coalesce((SELECT substr(p.text, 1, 1000) FROM prompts p WHERE p.session_id = s.id
		AND trim(p.text, ' ' || char(9, 10, 13)) <> '' ORDER BY p.at, p.id LIMIT 1), '')
FROM sessions s WHERE s.id IN (`
)

// StorySession is a session as the story heads it.
type StorySession struct {
	ID        string
	StartedAt time.Time // zero when the session's start was never seen
	Request   string    // one line: the latest summary's request, else the first prompt; "" when neither
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// Story is what SessionStart tells of a project (DESIGN.md §24): its newest observations
// and summaries and the sessions they belong to. Observations hold only ID, SessionID,
// Type, Title, Subtitle and At; Summaries only ID, SessionID, Request, Learned, NextSteps
// and At.
type Story struct {
	Observations []Observation // newest first
	Summaries    []Summary     // newest first; Summaries[0] is the project's latest
	Sessions     map[string]StorySession
}

// Empty reports whether the project has no memory to tell.
func (s Story) Empty() bool { return len(s.Observations) == 0 && len(s.Summaries) == 0 }

// Story reads the project's newest limit observations (limit <= 0: none), its newest
// StorySummaries summaries, and the sessions of both.
func (db *DB) Story(ctx context.Context, project string, limit int) (Story, error) {
	var st Story
	if limit > 0 {
		obs, err := rowsOf(ctx, db, "story", scanStoryObservations, sqlStoryObservations+sqlLimit(limit), project)
		if err != nil {
			return Story{}, err
		}
		st.Observations = obs
	}
	sums, err := rowsOf(ctx, db, "story", scanStorySummaries, sqlStorySummaries+sqlLimit(StorySummaries), project)
	if err != nil {
		return Story{}, err
	}
	st.Summaries = sums
	var ids []string
	for _, o := range st.Observations {
		ids = append(ids, o.SessionID)
	}
	for _, s := range st.Summaries {
		ids = append(ids, s.SessionID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	st.Sessions = make(map[string]StorySession, len(ids))
	if len(ids) == 0 {
		return st, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := sqlStorySessions + strings.Repeat("?, ", len(ids)-1) + "?)"
	sessions, err := rowsOf(ctx, db, "story", scanStorySessions, q, args...)
	if err != nil {
		return Story{}, err
	}
	for _, s := range sessions {
		st.Sessions[s.ID] = s
	}
	return st, nil
}

func scanStoryObservations(rows *sql.Rows) ([]Observation, error) {
	var out []Observation
	err := scanAll(rows, func(r *sql.Rows) error {
		var o Observation
		var at sql.NullInt64
		err := r.Scan(&o.ID, &o.SessionID, &o.Type, &o.Title, &o.Subtitle, &at)
		o.At = fromNanos(at)
		out = append(out, o)
		return err
	})
	return out, err
}

func scanStorySummaries(rows *sql.Rows) ([]Summary, error) {
	var out []Summary
	err := scanAll(rows, func(r *sql.Rows) error {
		var s Summary
		var at sql.NullInt64
		err := r.Scan(&s.ID, &s.SessionID, &s.Request, &s.Learned, &s.NextSteps, &at)
		s.At = fromNanos(at)
		out = append(out, s)
		return err
	})
	return out, err
}

func scanStorySessions(rows *sql.Rows) ([]StorySession, error) {
	var out []StorySession
	err := scanAll(rows, func(r *sql.Rows) error {
		var s StorySession
		var started sql.NullInt64
		var request, prompt string
		err := r.Scan(&s.ID, &started, &request, &prompt)
		s.StartedAt = fromNanos(started)
		if s.Request = firstLine(request); s.Request == "" {
			s.Request = firstLine(prompt)
		}
		out = append(out, s)
		return err
	})
	return out, err
}

// SessionStory is one session as the story heads it; a session not stored is
// ErrNotFound.
func (db *DB) SessionStory(ctx context.Context, id string) (StorySession, error) {
	out, err := rowsOf(ctx, db, "session story", scanStorySessions, sqlStorySessions+"?)", id)
	if err != nil {
		return StorySession{}, err
	}
	if len(out) == 0 {
		return StorySession{}, fmt.Errorf("store: session %q: %w", id, ErrNotFound)
	}
	return out[0], nil
}
