// Package archive is claude-mem's export file (DESIGN §20): what `hook export` writes and
// `hook import` accepts. It decides the format (JSONL: a header line, then one record per
// line with its kind), the order that makes an export of the same memory the same bytes,
// and what a file must satisfy before anything of it is imported.
package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/claude-mem/claude-mem-go/lines"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Format is the version of the file format this build writes and the newest it reads.
const Format = 1

// Product names the program that wrote a file.
const Product = "claude-mem-go"

// Record kinds.
const (
	KindHeader      = "header"
	KindSession     = "session"
	KindPrompt      = vocab.KindPrompt
	KindObservation = vocab.KindObservation
	KindSummary     = vocab.KindSummary
)

// Header is the first line of a file.
type Header struct {
	Kind       string `json:"kind"`
	Format     int    `json:"format"`
	Product    string `json:"product"`
	Version    string `json:"version"`
	ExportedAt string `json:"exported_at"`
}

// The records, one per line. Times are RFC 3339 in UTC with nanoseconds, as stored; local
// ids, observer runs and origins are not part of a record (they mean nothing elsewhere).
type (
	sessionRecord struct {
		Kind      string `json:"kind"`
		ID        string `json:"id"`
		Project   string `json:"project"`
		Cwd       string `json:"cwd"`
		StartedAt string `json:"started_at,omitempty"`
		EndedAt   string `json:"ended_at,omitempty"`
	}
	promptRecord struct {
		Kind    string `json:"kind"`
		Session string `json:"session"`
		Project string `json:"project"`
		At      string `json:"at"`
		Text    string `json:"text"`
	}
	observationRecord struct {
		Kind          string   `json:"kind"`
		Session       string   `json:"session"`
		Project       string   `json:"project"`
		At            string   `json:"at"`
		Type          string   `json:"type"`
		Title         string   `json:"title"`
		Subtitle      string   `json:"subtitle"`
		Narrative     string   `json:"narrative"`
		Facts         []string `json:"facts"`
		Concepts      []string `json:"concepts"`
		FilesRead     []string `json:"files_read"`
		FilesModified []string `json:"files_modified"`
	}
	summaryRecord struct {
		Kind         string `json:"kind"`
		Session      string `json:"session"`
		Project      string `json:"project"`
		At           string `json:"at"`
		Request      string `json:"request"`
		Investigated string `json:"investigated"`
		Learned      string `json:"learned"`
		Completed    string `json:"completed"`
		NextSteps    string `json:"next_steps"`
		Notes        string `json:"notes"`
	}
)

// Counts is how many records of each kind a file holds.
type Counts struct {
	Sessions, Prompts, Observations, Summaries int
}

// Export writes the filter's memory to w: the header (version is the product's version,
// now the export time), then sessions, prompts, observations and summaries. A nil db is
// an empty memory (nothing captured yet, no database): the header alone.
func Export(ctx context.Context, db *store.DB, w io.Writer, f store.ExportFilter, version string, now time.Time) (Counts, error) {
	var c Counts
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(printable.JSONWriter(bw)) // DEL and C1 escaped too: the file may be printed
	enc.SetEscapeHTML(false)
	err := enc.Encode(Header{Kind: KindHeader, Format: Format, Product: Product, Version: version, ExportedAt: stamp(now)})
	if err != nil {
		return c, err
	}
	if db == nil {
		return c, bw.Flush()
	}
	err = db.Export(ctx, f, store.ExportVisitor{
		Session: func(s store.Session) error {
			c.Sessions++
			return enc.Encode(sessionRecord{Kind: KindSession, ID: s.ID, Project: s.Project, Cwd: s.Cwd,
				StartedAt: stamp(s.StartedAt), EndedAt: stamp(s.EndedAt)})
		},
		Prompt: func(p store.Prompt) error {
			c.Prompts++
			return enc.Encode(promptRecord{Kind: KindPrompt, Session: p.SessionID, Project: p.Project, At: stamp(p.At), Text: p.Text})
		},
		Observation: func(o store.Observation) error {
			c.Observations++
			return enc.Encode(observationRecord{Kind: KindObservation, Session: o.SessionID, Project: o.Project,
				At: stamp(o.At), Type: o.Type, Title: o.Title, Subtitle: o.Subtitle, Narrative: o.Narrative,
				Facts: list(o.Facts), Concepts: list(o.Concepts), FilesRead: list(o.FilesRead), FilesModified: list(o.FilesModified)})
		},
		Summary: func(s store.Summary) error {
			c.Summaries++
			return enc.Encode(summaryRecord{Kind: KindSummary, Session: s.SessionID, Project: s.Project, At: stamp(s.At),
				Request: s.Request, Investigated: s.Investigated, Learned: s.Learned, Completed: s.Completed,
				NextSteps: s.NextSteps, Notes: s.Notes})
		},
	})
	if err != nil {
		return c, err
	}
	return c, bw.Flush()
}

// stamp is a record's time: RFC 3339 UTC with nanoseconds; "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// list writes an empty list as [], never null.
func list(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// LineError is a file's first bad line: nothing of the file is imported.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// FormatError: the file is in a format newer than this build reads.
type FormatError struct {
	Format int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("the file is export format %d, and this claude-mem reads format %d and older: upgrade claude-mem to import it", e.Format, Format)
}

// MaxLine bounds one line of a file (a record): an export's longest record is an
// observation's narrative, far below it. A longer line is an error naming it.
const MaxLine = 16 << 20

// partBytes is how much of a file is decoded before it is handed to the store: the import
// runs in one transaction, part after part, so its memory is bounded whatever the file.
const partBytes = 4 << 20

// scan reads and checks a file: its header, then every record (well-formed, a known kind,
// no unknown field, under MaxLine, its session named by a session line), handing the
// records to add part by part. The first problem is a *LineError (or a *FormatError for a
// newer format): the caller's transaction then stores nothing of the file.
func scan(r io.Reader, add func(store.ImportBatch) error) error {
	var b store.ImportBatch
	size := 0
	sessions := map[string]bool{}
	missing := map[string]int{} // a row's session not (yet) named by a session line: its first row's line
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	for {
		line, tooLong, err := lines.Read(br, MaxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) == 0 && !tooLong && errors.Is(err, io.EOF) {
			break
		}
		n++
		if tooLong {
			return &LineError{Line: n, Err: fmt.Errorf("longer than %d MiB", MaxLine>>20)}
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if n == 1 {
				if _, err := readHeader(line); err != nil {
					return err
				}
			} else {
				session, err := readRecord(line, &b)
				if err != nil {
					return &LineError{Line: n, Err: err}
				}
				if !session.isRow {
					sessions[session.id] = true
					delete(missing, session.id)
				} else if _, ok := missing[session.id]; !ok && !sessions[session.id] {
					missing[session.id] = n
				}
				if size += len(line); size >= partBytes {
					if err := add(b); err != nil {
						return err
					}
					b, size = store.ImportBatch{}, 0
				}
			}
		} else if n == 1 {
			return &LineError{Line: 1, Err: errors.New("empty: an export starts with its header line")}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if n == 0 {
		return &LineError{Line: 1, Err: errors.New("the file is empty: an export starts with its header line")}
	}
	id, first := "", 0
	for s, line := range missing {
		if first == 0 || line < first {
			id, first = s, line
		}
	}
	if first > 0 {
		return &LineError{Line: first, Err: fmt.Errorf("session %q has no session line in the file", id)}
	}
	return add(b)
}

func readHeader(line []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || h.Kind != KindHeader {
		return h, &LineError{Line: 1, Err: fmt.Errorf(`not a claude-mem export: the first line must be its header, {"kind":"header","format":%d,…}`, Format)}
	}
	if h.Product != Product {
		return h, &LineError{Line: 1, Err: fmt.Errorf("an export of %q, not of %s", h.Product, Product)}
	}
	if h.Format < 1 {
		return h, &LineError{Line: 1, Err: fmt.Errorf("header without a format version")}
	}
	if h.Format > Format {
		return h, &FormatError{Format: h.Format}
	}
	return h, nil
}

// recordSession is the session a record is (a session line) or belongs to (a row).
type recordSession struct {
	id    string
	isRow bool
}

// readRecord checks one record line and adds it to b.
func readRecord(line []byte, b *store.ImportBatch) (recordSession, error) {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(line, &k); err != nil {
		return recordSession{}, fmt.Errorf("not a JSON object: %v", err)
	}
	switch k.Kind {
	case KindSession:
		var r sessionRecord
		if err := strict(line, &r); err != nil {
			return recordSession{}, err
		}
		if r.ID == "" {
			return recordSession{}, errors.New("session without an id")
		}
		start, err := optionalTime("started_at", r.StartedAt)
		if err != nil {
			return recordSession{}, err
		}
		end, err := optionalTime("ended_at", r.EndedAt)
		if err != nil {
			return recordSession{}, err
		}
		b.Sessions = append(b.Sessions, store.Session{ID: r.ID, Project: r.Project, Cwd: r.Cwd, StartedAt: start, EndedAt: end})
		return recordSession{id: r.ID}, nil
	case KindPrompt:
		var r promptRecord
		at, err := row(line, &r, &r.Session, &r.At)
		if err != nil {
			return recordSession{}, err
		}
		b.Prompts = append(b.Prompts, store.Prompt{SessionID: r.Session, Project: r.Project, Text: r.Text, At: at})
		return recordSession{r.Session, true}, nil
	case KindObservation:
		var r observationRecord
		at, err := row(line, &r, &r.Session, &r.At)
		if err != nil {
			return recordSession{}, err
		}
		if r.Type == "" || r.Title == "" {
			return recordSession{}, errors.New("observation without a type or title")
		}
		b.Observations = append(b.Observations, store.Observation{SessionID: r.Session, Project: r.Project, Type: r.Type,
			Title: r.Title, Subtitle: r.Subtitle, Narrative: r.Narrative, Facts: r.Facts, Concepts: r.Concepts,
			FilesRead: r.FilesRead, FilesModified: r.FilesModified, At: at})
		return recordSession{r.Session, true}, nil
	case KindSummary:
		var r summaryRecord
		at, err := row(line, &r, &r.Session, &r.At)
		if err != nil {
			return recordSession{}, err
		}
		b.Summaries = append(b.Summaries, store.Summary{SessionID: r.Session, Project: r.Project, Request: r.Request,
			Investigated: r.Investigated, Learned: r.Learned, Completed: r.Completed, NextSteps: r.NextSteps, Notes: r.Notes, At: at})
		return recordSession{r.Session, true}, nil
	case KindHeader:
		return recordSession{}, errors.New("a second header")
	case "":
		return recordSession{}, errors.New("record without a kind")
	}
	return recordSession{}, fmt.Errorf("unknown kind %q (format %d has session, prompt, observation, summary)", k.Kind, Format)
}

// row decodes a prompt, observation or summary and checks what every row needs.
func row(line []byte, r any, session, at *string) (time.Time, error) {
	if err := strict(line, r); err != nil {
		return time.Time{}, err
	}
	if *session == "" {
		return time.Time{}, errors.New("no session")
	}
	t, err := optionalTime("at", *at)
	if err == nil && t.IsZero() {
		err = errors.New("no time (at)")
	}
	return t, err
}

// strict decodes one JSON object (readRecord checked it is one, with nothing after it)
// with no unknown field.
func strict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func optionalTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, fmt.Errorf("%s %q is not an RFC 3339 time", field, s)
	}
	return t, nil
}

// Import reads, checks and stores the file in one transaction, in parts: a file with a
// bad line, wherever it is, adds nothing.
func Import(ctx context.Context, db *store.DB, r io.Reader) (store.ImportResult, error) {
	return db.ImportParts(ctx, func(add func(store.ImportBatch) error) error { return scan(readUntil(ctx, r), add) })
}

// readUntil is r whose Read returns ctx's error once ctx is done, even while r is silent: a
// read from a pipe (import -, its writer idle) blocks in the kernel and no signal would
// end it. The reading goes on in a goroutine, into one buffer handed over chunk by chunk;
// after ctx is done it is left blocked, and goes with the process.
func readUntil(ctx context.Context, r io.Reader) io.Reader {
	u := &untilReader{ctx: ctx, chunks: make(chan chunk), next: make(chan struct{})}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			select {
			case u.chunks <- chunk{buf[:n], err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			select {
			case <-u.next: // the chunk was read: buf is free
			case <-ctx.Done():
				return
			}
		}
	}()
	return u
}

type chunk struct {
	data []byte
	err  error
}

type untilReader struct {
	ctx    context.Context
	chunks chan chunk
	next   chan struct{}
	rest   []byte // of the chunk being read
	err    error  // r's error, after rest
}

func (u *untilReader) Read(p []byte) (int, error) {
	if len(u.rest) == 0 && u.err == nil {
		select {
		case c := <-u.chunks:
			u.rest, u.err = c.data, c.err
		case <-u.ctx.Done():
			return 0, u.ctx.Err()
		}
	}
	n := copy(p, u.rest)
	u.rest = u.rest[n:]
	if len(u.rest) > 0 {
		return n, nil
	}
	if u.err != nil {
		return n, u.err
	}
	u.next <- struct{}{}
	return n, nil
}
