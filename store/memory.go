package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// What the model's memory tools (mcpserver) read and write: a compact index of hits, the
// records around one, full records by id, and notes the model asks to keep.

// ErrNotFound: the record a call is about does not exist.
var ErrNotFound = errors.New("no such record")

// OriginModel marks an observation the model wrote with the remember tool.
const OriginModel = "model"

// Entry is one record in compact form: what an index or timeline line shows.
type Entry struct {
	vocab.Ref
	Project      string
	Session      string
	Type         string // an observation's type; "summary" or "prompt" for the other kinds
	Title        string // an observation's title, a summary's request, a prompt's first line
	At           time.Time
	Size         int // characters in the full record, so the reader knows what opening it costs
	rank.Repeats     // a search hit's near-equal prompts (zero in a timeline)
	// Author and Machine say who made a pulled record (a teammate's server role; '' for
	// this person, from another of their machines) and on which machine; both are empty
	// for a record made here.
	Author, Machine string
}

// MemoryHit is one search hit in compact form, with its rank (lower is better), how many
// near-equal observations it stands for, and whether only its session's context matched.
type MemoryHit struct {
	Entry
	Rank    float64
	Similar int
	Context bool
}

// Record is one full stored record: exactly one of Observation, Summary and Prompt is set.
type Record struct {
	vocab.Ref
	Origin      string // an observation's writer: observer, model or import
	Observation *Observation
	Summary     *Summary
	Prompt      *Prompt
}

// Note is what the model asks to keep (the remember tool): stored as an observation of
// origin "model", with Text as its narrative.
type Note struct {
	SessionID, Project, Cwd string
	Type, Title, Text       string
	At                      time.Time
}

// memoryTable is how one kind's compact columns are read.
type memoryTable struct {
	kind, table, typ, title, size string
	order                         int // ties at one instant: observations, summaries, prompts
}

var memoryTables = []memoryTable{
	{vocab.KindObservation, "observations", "type", "title",
		"length(title)+length(subtitle)+length(narrative)+length(facts)+length(concepts)+length(files_read)+length(files_modified)", 0},
	{vocab.KindSummary, "summaries", "'summary'", "request",
		"length(request)+length(investigated)+length(learned)+length(completed)+length(next_steps)+length(notes)", 1},
	{vocab.KindPrompt, "prompts", "'prompt'", "text", "length(text)", 2},
}

func memoryTableOf(kind string) (memoryTable, error) {
	for _, t := range memoryTables {
		if t.kind == kind {
			return t, nil
		}
	}
	return memoryTable{}, fmt.Errorf("kind %q: %w", kind, ErrInvalidArgument)
}

// entrySelect is the compact columns of t, in the order scanEntry reads them.
func (t memoryTable) entrySelect() string {
	return `SELECT '` + t.kind + `' AS kind, id, project, session_id, ` + t.typ + ` AS typ, ` + t.title +
		` AS title, at, ` + t.size + ` AS size FROM ` + t.table
}

func scanEntry(r interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	var at sql.NullInt64
	err := r.Scan(&e.Kind, &e.ID, &e.Project, &e.Session, &e.Type, &e.Title, &at, &e.Size)
	e.At = fromNanos(at)
	if e.Kind == vocab.KindPrompt {
		e.Title = firstLine(e.Title)
	}
	return e, err
}

// Entry returns the compact form of one record, or ErrNotFound.
func (db *DB) Entry(ctx context.Context, ref vocab.Ref) (Entry, error) {
	t, err := memoryTableOf(ref.Kind)
	if err != nil {
		return Entry{}, err
	}
	e, err := scanEntry(db.sql.QueryRowContext(ctx, t.entrySelect()+` WHERE id = ?`, ref.ID))
	if err == sql.ErrNoRows {
		return Entry{}, fmt.Errorf("%s %d: %w", ref.Kind, ref.ID, ErrNotFound)
	}
	if err == nil {
		err = withOrigin(ctx, db, &e)
	}
	return e, db.fail("entry", err)
}

// SearchMemory is Search narrowed by f, each hit in compact form (type and size included).
// The query is plain words, as for Search.
func (db *DB) SearchMemory(ctx context.Context, query string, f rank.Filter, limit int) ([]MemoryHit, error) {
	if f.Type != "" {
		if f.Kinds != nil && !slices.Contains(f.Kinds, vocab.KindObservation) {
			return nil, nil
		}
		f.Kinds = []string{vocab.KindObservation}
	}
	hits, err := rank.Compact(searchContext(ctx), db.index(f), query, f, limit)
	if err != nil {
		return nil, db.fail("search", err)
	}
	out := make([]MemoryHit, 0, len(hits))
	for _, h := range hits {
		e, err := db.Entry(ctx, vocab.Ref{Kind: h.Kind, ID: h.ID})
		if err != nil {
			return nil, err
		}
		e.Repeats = h.Repeats
		out = append(out, MemoryHit{Entry: e, Rank: h.Rank, Similar: h.Similar, Context: h.Context})
	}
	return out, nil
}

// Timeline returns what happened around anchor in its project: up to before records just
// older than it, the anchor, and up to after records just newer, across observations,
// summaries and prompts, oldest first. A missing anchor is ErrNotFound.
func (db *DB) Timeline(ctx context.Context, anchor vocab.Ref, before, after int) ([]Entry, error) {
	if before < 0 || after < 0 {
		return nil, db.fail("timeline", fmt.Errorf("before %d, after %d: %w", before, after, ErrInvalidArgument))
	}
	a, err := db.Entry(ctx, anchor)
	if err != nil {
		return nil, err
	}
	at, _ := memoryTableOf(anchor.Kind)
	older, err := db.around(ctx, a, at.order, "<", "DESC", before)
	if err != nil {
		return nil, err
	}
	newer, err := db.around(ctx, a, at.order, ">", "ASC", after)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(older)+1+len(newer))
	for i := len(older) - 1; i >= 0; i-- {
		out = append(out, older[i])
	}
	out = append(out, a)
	return append(out, newer...), nil
}

// around reads the n records of a's project nearest to it on one side (op "<": older,
// dir DESC; op ">": newer, dir ASC), nearest first. Records are ordered by (time, kind
// order, id), so ties at one instant still have one order.
func (db *DB) around(ctx context.Context, a Entry, anchorOrder int, op, dir string, n int) ([]Entry, error) {
	if n == 0 {
		return nil, nil
	}
	var parts []string
	var args []any
	for _, t := range memoryTables {
		// (at, order, id) op (A, anchorOrder, I), with order constant within a table.
		cond := `(at, id) ` + op + ` (?, ?)`
		condArgs := []any{a.At.UnixNano(), a.ID}
		switch {
		case (t.order < anchorOrder) == (op == "<") && t.order != anchorOrder:
			cond, condArgs = `at `+op+`= ?`, []any{a.At.UnixNano()}
		case t.order != anchorOrder:
			cond, condArgs = `at `+op+` ?`, []any{a.At.UnixNano()}
		}
		parts = append(parts, `SELECT * FROM (`+t.entrySelect()+` WHERE project = ? AND `+cond+
			` ORDER BY at `+dir+`, id `+dir+sqlLimit(n)+`)`)
		args = append(append(args, a.Project), condArgs...)
	}
	q := `SELECT * FROM (` + strings.Join(parts, " UNION ALL ") + `) ORDER BY at ` + dir + `, ` +
		orderCase() + ` ` + dir + `, id ` + dir + sqlLimit(n)
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.fail("timeline", err)
	}
	var out []Entry
	err = scanAll(rows, func(r *sql.Rows) error {
		e, err := scanEntry(r)
		out = append(out, e)
		return err
	})
	if err == nil {
		err = db.withOrigins(ctx, out)
	}
	return out, db.fail("timeline", err)
}

// orderCase sorts the union's first column (the kind) by memoryTables' order.
func orderCase() string {
	var b strings.Builder
	b.WriteString("CASE kind")
	for _, t := range memoryTables {
		b.WriteString(" WHEN '" + t.kind + "' THEN " + strconv.Itoa(t.order))
	}
	return b.String() + " END"
}

// Records returns the full records refs name, in refs' order, and the refs that name
// nothing.
func (db *DB) Records(ctx context.Context, refs []vocab.Ref) (found []Record, missing []vocab.Ref, err error) {
	for _, ref := range refs {
		rec, err := db.record(ctx, ref)
		if errors.Is(err, ErrNotFound) {
			missing = append(missing, ref)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		found = append(found, rec)
	}
	return found, missing, nil
}

func (db *DB) record(ctx context.Context, ref vocab.Ref) (Record, error) {
	rec := Record{Ref: ref}
	var err error
	switch ref.Kind {
	case vocab.KindObservation:
		var rows *sql.Rows
		rows, err = db.sql.QueryContext(ctx, `SELECT `+observationColumns+` FROM observations WHERE id = ?`, ref.ID)
		if err == nil {
			var obs []Observation
			if obs, err = scanObservations(rows); err == nil && len(obs) == 1 {
				rec.Observation = &obs[0]
				err = db.sql.QueryRowContext(ctx, `SELECT origin FROM observations WHERE id = ?`, ref.ID).Scan(&rec.Origin)
			} else if err == nil {
				err = sql.ErrNoRows
			}
		}
	case vocab.KindSummary:
		var s Summary
		var at sql.NullInt64
		err = db.sql.QueryRowContext(ctx, `
SELECT id, session_id, project, run_id, request, investigated, learned, completed, next_steps, notes, at
FROM summaries WHERE id = ?`, ref.ID).Scan(&s.ID, &s.SessionID, &s.Project, &s.RunID, &s.Request,
			&s.Investigated, &s.Learned, &s.Completed, &s.NextSteps, &s.Notes, &at)
		s.At = fromNanos(at)
		rec.Summary = &s
	case vocab.KindPrompt:
		var p Prompt
		var at sql.NullInt64
		err = db.sql.QueryRowContext(ctx, `SELECT id, session_id, project, text, at FROM prompts WHERE id = ?`, ref.ID).
			Scan(&p.ID, &p.SessionID, &p.Project, &p.Text, &at)
		p.At = fromNanos(at)
		rec.Prompt = &p
	default:
		return rec, fmt.Errorf("kind %q: %w", ref.Kind, ErrInvalidArgument)
	}
	if err == sql.ErrNoRows {
		return rec, fmt.Errorf("%s %d: %w", ref.Kind, ref.ID, ErrNotFound)
	}
	switch {
	case err != nil:
	case rec.Observation != nil:
		err = withOrigin(ctx, db, rec.Observation)
	case rec.Summary != nil:
		err = withOrigin(ctx, db, rec.Summary)
	case rec.Prompt != nil:
		err = withOrigin(ctx, db, rec.Prompt)
	}
	return rec, db.fail("records", err)
}

// Remember stores a note as an observation of origin "model" in one transaction (its
// session recorded too), searchable at once through the full-text triggers, and returns
// its id.
func (db *DB) Remember(ctx context.Context, n Note) (int64, error) {
	if n.SessionID == "" || n.Project == "" || strings.TrimSpace(n.Title) == "" || n.At.IsZero() {
		return 0, db.fail("remember", fmt.Errorf("session %q, project %q, title %q, time %v: %w",
			n.SessionID, n.Project, n.Title, n.At, ErrInvalidArgument))
	}
	var id int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := upsertSession(ctx, tx, Session{ID: n.SessionID, Project: n.Project, Cwd: n.Cwd, StartedAt: n.At}); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `
INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative, at, origin)
VALUES (?, ?, '', ?, ?, '', ?, ?, ?) RETURNING id`,
			n.SessionID, n.Project, n.Type, n.Title, n.Text, n.At.UnixNano(), OriginModel).Scan(&id)
	})
	return id, db.fail("remember", err)
}
