package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/sync/wire"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// What a pulled record may be. Its text is bounded as captured text is (a tool's field,
// hooks.MaxField); a body larger than any record this product writes is refused whole.
const (
	PulledFieldBytes = 16 << 10
	PulledBodyBytes  = 4 << 20
	pulledLabelBytes = 128 // an author's or machine's name
	pulledKeyBytes   = 512 // a project's key
	// noteType is the type of a note the remember tool stored (mcpserver's typeNote): a
	// teammate's notes travel too.
	noteType = "note"
)

// Why a pulled record was refused (SyncApplied.Refused, SyncServer.Rejected).
const (
	RejectKind      = "unknown_kind"      // not a kind that travels
	RejectGID       = "bad_gid"           // its global id is not a UUID in canonical text
	RejectProject   = "bad_project"       // no project key, or one that is no key
	RejectTime      = "bad_time"          // no time
	RejectSession   = "bad_session"       // no session, or one that is another kind's gid
	RejectForeign   = "foreign_session"   // its session belongs to another author
	RejectCollision = "gid_collision"     // its gid names a local session of another origin
	RejectOversized = "oversized"         // a body over PulledBodyBytes
	RejectMalformed = "malformed"         // a body that is not its kind's JSON object
	RejectType      = "unknown_type"      // an observation type outside the vocabulary
	RejectEmpty     = "empty"             // no title, or no text
	RejectTombstone = "foreign_tombstone" // a tombstone of a record another author made
)

// SyncApplied is what one page did locally.
type SyncApplied struct {
	Stored  int            // records stored
	Skipped int            // records already here (a gid known), or already forgotten
	Deleted int            // records a tombstone removed
	Refused map[string]int // records refused, by reason: never stored
}

// SyncApply stores one pulled page and the server's cursor in one transaction, so a kill
// anywhere leaves both or neither. A pulled record gets a local id in the usual grammar and
// its author and machine; a record whose gid is known is skipped, so applying a page twice
// changes nothing; a tombstone deletes the local copy (and its index entries, by the
// triggers) and leaves no tombstone of its own; a record of an unknown session creates the
// session's header row. Pulled text is untrusted: every field is made valid UTF-8 (as
// capture does), redacted and clipped to PulledFieldBytes (redact.Clipped, as a captured
// field); an unknown kind or type, an oversized or malformed body is refused and counted,
// never stored. Records whose Author is here.Self are this person's own (no author). A
// pulled record is never pushed back.
func (db *DB) SyncApply(ctx context.Context, server string, here SyncHere, page wire.Page) (SyncApplied, error) {
	var res SyncApplied
	if server == "" {
		return res, db.fail("sync apply", fmt.Errorf("no server: %w", ErrInvalidArgument))
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		res = SyncApplied{}
		if err := mapProjects(ctx, tx, here.Key); err != nil {
			return err
		}
		a := newApplier(ctx, tx, here)
		for _, r := range page.Records {
			outcome, err := a.apply(r)
			if err != nil {
				return fmt.Errorf("record %q: %w", printable.Text(clip.Head(r.GID, 64)), err)
			}
			switch outcome {
			case applyStored:
				res.Stored++
			case applySkipped:
				res.Skipped++
			case applyDeleted:
				res.Deleted++
			default:
				if res.Refused == nil {
					res.Refused = map[string]int{}
				}
				res.Refused[outcome]++
			}
		}
		if err := a.flush(); err != nil {
			return fmt.Errorf("records of the page: %w", err)
		}
		if err := beforeCursor(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sync_cursors (server, cursor, pulled) VALUES (?, ?, ?)
ON CONFLICT (server) DO UPDATE SET cursor = excluded.cursor, pulled = pulled + excluded.pulled`,
			server, string(page.Next), res.Stored); err != nil {
			return err
		}
		for reason, n := range res.Refused {
			if _, err := tx.ExecContext(ctx, `INSERT INTO sync_rejects (server, reason, count) VALUES (?, ?, ?)
ON CONFLICT (server, reason) DO UPDATE SET count = count + excluded.count`, server, reason, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return SyncApplied{}, db.fail("sync apply", err)
	}
	return res, nil
}

// beforeCursor runs in SyncApply's transaction after the records, before the cursor; a
// test fails or kills the apply there.
var beforeCursor = func() error { return nil }

// What apply did with a record that was not refused.
const (
	applyStored  = "stored"
	applySkipped = "skipped"
	applyDeleted = "deleted"
)

// applier stores pulled records within one transaction.
type applier struct {
	ctx      context.Context
	tx       *sql.Tx
	self     string
	loc      *time.Location
	projects map[string]string // key → local project name
	stmts    map[string]*sql.Stmt
	// The observations, summaries and prompts checked and not yet inserted (flush), and
	// their gids: stored already, as far as the page's later records are concerned.
	batches [3]*batch
	queued  map[string]bool
}

func newApplier(ctx context.Context, tx *sql.Tx, here SyncHere) *applier {
	a := &applier{ctx: ctx, tx: tx, self: here.Self, loc: here.Loc, projects: map[string]string{}, queued: map[string]bool{},
		batches: [3]*batch{
			{kind: "observation", table: "observations", cols: []string{"session_id", "project", "run_id", "type", "title",
				"subtitle", "narrative", "facts", "concepts", "files_read", "files_modified", "at"}},
			{kind: "summary", table: "summaries", cols: []string{"session_id", "project", "run_id", "request", "investigated",
				"learned", "completed", "next_steps", "notes", "at"}},
			{kind: "prompt", table: "prompts", cols: []string{"session_id", "project", "text", "at"}},
		}}
	if a.loc == nil {
		a.loc = time.UTC
	}
	return a
}

// batch is the rows of one table that a page stores, inserted by flush a few hundred to a
// statement. An INSERT a row was most of a pull: FTS5 writes its pending index at every
// statement's savepoint (an index trigger's INSERT has one), so each row became a segment
// of its own, and merging them cost more (100,000 observations: 47 s, 17 s of it FTS5
// flushing; 17 s in all since).
type batch struct {
	kind, table string
	cols        []string // without id
	vals        []any    // the rows' values, one row after another
	from        []origin // each row's
}

// origin is who made a record, where, and its gid: what sync_ids holds of it.
type origin struct{ gid, author, machine string }

// batchRows bounds the rows of one INSERT: 13 values a row stay far below SQLite's 32,766.
const batchRows = 500

// flush inserts the queued rows, each table's with ids in the order the records came
// (the ids SQLite would give them, one past the largest), and gives each its gid and
// origin.
func (a *applier) flush() error {
	for _, b := range a.batches {
		if len(b.from) == 0 {
			continue
		}
		var last int64
		if err := a.row(`SELECT coalesce(max(id), 0) FROM ` + b.table).Scan(&last); err != nil {
			return err
		}
		n := len(b.cols)
		for at := 0; at < len(b.from); at += batchRows {
			rows := min(batchRows, len(b.from)-at)
			args := make([]any, 0, rows*(n+1))
			for i := at; i < at+rows; i++ {
				args = append(args, last+1+int64(i))
				args = append(args, b.vals[i*n:(i+1)*n]...)
			}
			if _, err := a.exec(b.insert(rows), args...); err != nil {
				return err
			}
		}
		for i, o := range b.from {
			if err := a.pulled(b.kind, itoa(last+1+int64(i)), o.gid, o.author, o.machine); err != nil {
				return err
			}
		}
		b.vals, b.from = b.vals[:0], b.from[:0]
	}
	clear(a.queued)
	return nil
}

// insert is the INSERT of rows rows of b.
func (b *batch) insert(rows int) string {
	row := "(?" + strings.Repeat(", ?", len(b.cols)) + ")"
	return "INSERT INTO " + b.table + " (id, " + strings.Join(b.cols, ", ") + ") VALUES " +
		row + strings.Repeat(", "+row, rows-1)
}

// prepared is query prepared once per page: preparing an INSERT into a table with index
// triggers costs more than running it (a third of a 100,000-record pull before).
func (a *applier) prepared(query string) (*sql.Stmt, error) {
	if st, ok := a.stmts[query]; ok {
		return st, nil
	}
	st, err := a.tx.PrepareContext(a.ctx, query)
	if err != nil {
		return nil, err
	}
	if a.stmts == nil {
		a.stmts = map[string]*sql.Stmt{}
	}
	a.stmts[query] = st
	return st, nil
}

func (a *applier) exec(query string, args ...any) (sql.Result, error) {
	st, err := a.prepared(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(a.ctx, args...)
}

func (a *applier) row(query string, args ...any) *sql.Row {
	st, err := a.prepared(query)
	if err != nil {
		return a.tx.QueryRowContext(a.ctx, query, args...) // gives the same error at Scan
	}
	return st.QueryRowContext(a.ctx, args...)
}

// canonicalGID is a UUID's text form as this product writes it: lowercase, hyphenated.
// Compiled at first use, as every pattern of the binary: every hook starts it.
var canonicalGID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

// known is what sync_ids holds of a gid.
type known struct {
	kind, localID, author, state string
}

func (a *applier) known(gid string) (known, bool, error) {
	var k known
	err := a.row(`SELECT kind, local_id, author, state FROM sync_ids WHERE gid = ?`, gid).
		Scan(&k.kind, &k.localID, &k.author, &k.state)
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	return k, err == nil, err
}

// author is who a pulled record's author is here: empty for this person's own.
func (a *applier) author(r wire.Record) string {
	if r.Author == "" || a.self != "" && r.Author == a.self {
		return ""
	}
	return label(r.Author)
}

// label is a name a server sent (an author, a machine), bounded and inert: valid UTF-8, its
// hidden characters written as escapes.
func label(s string) string {
	return clip.Head(printable.Text(strings.ToValidUTF8(s, "\uFFFD")), pulledLabelBytes)
}

// apply stores, skips or deletes one record, or returns the reason it is refused.
func (a *applier) apply(r wire.Record) (string, error) {
	table := slices.IndexFunc(syncTables, func(t syncTable) bool { return t.kind == string(r.Kind) })
	switch {
	case table < 0:
		return RejectKind, nil
	case !canonicalGID().MatchString(r.GID):
		return RejectGID, nil
	}
	author := a.author(r)
	if r.Deleted {
		// What it deletes may be queued.
		if err := a.flush(); err != nil {
			return "", err
		}
	} else if a.queued[r.GID] {
		return applySkipped, nil
	}
	k, ok, err := a.known(r.GID)
	if err != nil {
		return "", err
	}
	if r.Deleted {
		return a.tombstone(r, k, ok, author)
	}
	if ok {
		// This person's record coming back proves the server holds it, whatever a push
		// that was cut short before SyncMark left.
		if k.author == "" && author == "" && k.state == syncWaiting {
			if _, err := a.exec(`UPDATE sync_ids SET state = 'pushed' WHERE gid = ?`, r.GID); err != nil {
				return "", err
			}
		}
		return applySkipped, nil
	}
	var dead bool
	if err := a.row(`SELECT EXISTS (SELECT 1 FROM sync_tombstones WHERE gid = ?)`, r.GID).Scan(&dead); err != nil || dead {
		return applySkipped, err
	}
	key := strings.TrimSpace(r.Project)
	switch {
	case key == "" || len(key) > pulledKeyBytes || !utf8.ValidString(key) || strings.IndexFunc(key, hiddenRune) >= 0:
		return RejectProject, nil
	case r.At.IsZero() || r.At.Year() < 1970:
		return RejectTime, nil
	case len(r.Body) > PulledBodyBytes:
		return RejectOversized, nil
	}
	// Every check comes before the first write: a refused record leaves nothing, not even
	// its project's name or its session's header.
	at := r.At.UnixNano()
	var c redact.Counts
	text := func(s string) string {
		out, n := redact.Clipped(s, false, PulledFieldBytes)
		c.Add(n)
		return out
	}
	// values are the checked record's columns (batch.cols) in its session and project.
	var values func(session, project string) []any
	var into *batch // nil: a session, inserted at once
	switch r.Kind {
	case wire.Session:
		var b wire.SessionBody
		if !decode(r.Body, &b) {
			return RejectMalformed, nil
		}
		var taken bool
		if err := a.row(`SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, r.GID).Scan(&taken); err != nil || taken {
			return RejectCollision, err
		}
		started := b.Started
		if started.IsZero() {
			started = r.At
		}
		ended := nanos(b.Ended)
		values = func(_, project string) []any { return []any{r.GID, project, started.UnixNano(), ended} }
	case wire.Observation:
		var b wire.ObservationBody
		if !decode(r.Body, &b) {
			return RejectMalformed, nil
		}
		if !slices.Contains(vocab.ObservationTypes, b.Type) && b.Type != noteType {
			return RejectType, nil
		}
		o := Observation{Type: b.Type, Title: text(b.Title), Subtitle: text(b.Subtitle), Narrative: text(b.Narrative)}
		for i, l := range [][]string{b.Facts, b.Concepts, b.FilesRead, b.FilesModified} {
			dst := []*[]string{&o.Facts, &o.Concepts, &o.FilesRead, &o.FilesModified}[i]
			for _, s := range l {
				*dst = append(*dst, text(s))
			}
		}
		if strings.TrimSpace(o.Title) == "" {
			return RejectEmpty, nil
		}
		lists, err := marshalLists(o.Facts, o.Concepts, o.FilesRead, o.FilesModified)
		if err != nil {
			return "", err
		}
		into = a.batches[0]
		values = func(session, project string) []any {
			return []any{session, project, "", o.Type, o.Title, o.Subtitle, o.Narrative, lists[0], lists[1], lists[2], lists[3], at}
		}
	case wire.Summary:
		var b wire.SummaryBody
		if !decode(r.Body, &b) {
			return RejectMalformed, nil
		}
		f := []string{text(b.Request), text(b.Investigated), text(b.Learned), text(b.Completed), text(b.NextSteps), text(b.Notes)}
		if strings.TrimSpace(strings.Join(f, "")) == "" {
			return RejectEmpty, nil
		}
		into = a.batches[1]
		values = func(session, project string) []any {
			return []any{session, project, "", f[0], f[1], f[2], f[3], f[4], f[5], at}
		}
	case wire.Prompt:
		var b wire.PromptBody
		if !decode(r.Body, &b) {
			return RejectMalformed, nil
		}
		t := text(b.Text)
		if strings.TrimSpace(t) == "" {
			return RejectEmpty, nil
		}
		into = a.batches[2]
		values = func(session, project string) []any { return []any{session, project, t, at} }
	}
	var session string
	if r.Kind != wire.Session {
		var reason string
		if session, reason, err = a.checkSession(r.Session, author); err != nil || reason != "" {
			return reason, err
		}
	}
	project, err := a.project(key)
	if err != nil {
		return "", err
	}
	machine := label(r.Machine)
	if session == "" && r.Kind != wire.Session {
		// A session not seen yet: its header row, with what its record says of it.
		session = r.Session
		if _, err := a.exec(`INSERT INTO sessions (id, project, cwd, started_at) VALUES (?, ?, '', ?)`,
			session, project, at); err != nil {
			return "", err
		}
		if err := a.pulled("session", session, session, author, machine); err != nil {
			return "", err
		}
	}
	day := time.Unix(0, at).In(a.loc).Format(time.DateOnly)
	for kind, n := range c {
		if _, err := a.exec(sqlAddRedactions, day, project, kind, n); err != nil {
			return "", err
		}
	}
	if into != nil {
		into.vals = append(into.vals, values(session, project)...)
		into.from = append(into.from, origin{r.GID, author, machine})
		a.queued[r.GID] = true
		return applyStored, nil
	}
	if _, err := a.exec(`INSERT INTO sessions (id, project, cwd, started_at, ended_at) VALUES (?, ?, '', ?, ?)`,
		values(session, project)...); err != nil {
		return "", err
	}
	return applyStored, a.pulled(string(r.Kind), r.GID, r.GID, author, machine)
}

// decode reads a body into its kind's fields. Fields it does not know (a forged "id") are
// not read; a body that is not one JSON object of the kind's field types is malformed.
// Invalid UTF-8 becomes U+FFFD, a run of it one, as capture makes it (the JSON decoder
// alone would write one per byte).
func decode(body json.RawMessage, into any) bool {
	b := strings.ToValidUTF8(strings.TrimSpace(string(body)), "\uFFFD")
	return strings.HasPrefix(b, "{") && json.Unmarshal([]byte(b), into) == nil
}

// hiddenRune: a character a key must not hold (a control, a format character).
func hiddenRune(r rune) bool { return printable.Text(string(r)) != string(r) || r == utf8.RuneError }

// checkSession is the local id of a record's session when it was pulled before, "" when it
// is new here, or the reason the record is refused: a session another author made, or a
// gid of another kind or of a local session. A record cannot join a session that is not
// its author's.
func (a *applier) checkSession(gid, author string) (local, reason string, err error) {
	if !canonicalGID().MatchString(gid) || a.queued[gid] { // a queued record is no session
		return "", RejectSession, nil
	}
	k, ok, err := a.known(gid)
	switch {
	case err != nil:
		return "", "", err
	case ok && k.kind != "session":
		return "", RejectSession, nil
	case ok && k.author != author:
		return "", RejectForeign, nil
	case ok:
		return k.localID, "", nil
	}
	var taken bool
	if err := a.row(`SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, gid).Scan(&taken); err != nil || taken {
		return "", RejectCollision, err
	}
	return "", "", nil
}

// pulled gives a row just stored the gid and origin it came with, in place of the gid the
// insert trigger made, and the state that keeps it from being pushed back.
func (a *applier) pulled(kind, localID, gid, author, machine string) error {
	_, err := a.exec(`UPDATE sync_ids SET gid = ?, author = ?, machine = ?, state = ?
WHERE kind = ? AND local_id = ?`, gid, author, machine, syncPulled, kind, localID)
	return err
}

// project is the local project a key's records land in: the one whose key it is, else one
// named after the key's last segment, else (that name is another repository's) the key.
func (a *applier) project(key string) (string, error) {
	if p, ok := a.projects[key]; ok {
		return p, nil
	}
	var p string
	err := a.row(`SELECT project FROM sync_projects WHERE key = ? ORDER BY rowid LIMIT 1`, key).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		p = key[strings.LastIndex(key, "/")+1:]
		var taken bool
		if err := a.row(`SELECT EXISTS (SELECT 1 FROM sync_projects WHERE project = ?)
	OR EXISTS (SELECT 1 FROM sessions WHERE project = ?)`, p, p).Scan(&taken); err != nil {
			return "", err
		}
		if taken || p == "" {
			p = key
		}
		_, err = a.exec(`INSERT INTO sync_projects (project, key) VALUES (?, ?)`, p, key)
	}
	if err != nil {
		return "", err
	}
	a.projects[key] = p
	return p, nil
}

// tombstone deletes the local copy of a forgotten record, unlinking it first so that the
// delete trigger leaves no tombstone to push, and remembers the gid as forgotten so that a
// copy pulled later is skipped. Only the record's own author may forget it.
func (a *applier) tombstone(r wire.Record, k known, ok bool, author string) (string, error) {
	remember := func() error {
		_, err := a.exec(`INSERT OR IGNORE INTO sync_tombstones (gid, kind, project, session, at, state)
VALUES (?, ?, '', '', ?, 'pulled')`, r.GID, string(r.Kind), max(r.At.UnixNano(), 0))
		return err
	}
	if !ok {
		return applySkipped, remember()
	}
	if k.author != author {
		return RejectTombstone, nil
	}
	t := syncTables[slices.IndexFunc(syncTables, func(t syncTable) bool { return t.kind == k.kind })]
	if k.kind == "session" {
		// Its author's records in it go with it; another author's keep it.
		for _, rt := range syncTables[1:] {
			ids, err := queryList[string](a.ctx, a.tx, `SELECT i.local_id FROM `+rt.table+` x
JOIN sync_ids i ON i.kind = ? AND i.local_id = CAST(x.id AS TEXT) WHERE x.session_id = ? AND i.author = ?`, rt.kind, k.localID, author)
			if err != nil {
				return "", err
			}
			for _, id := range ids {
				if err := a.unlink(rt, id); err != nil {
					return "", err
				}
			}
		}
		var used bool
		err := a.row(`SELECT EXISTS (SELECT 1 FROM observations WHERE session_id = ?1)
	OR EXISTS (SELECT 1 FROM summaries WHERE session_id = ?1) OR EXISTS (SELECT 1 FROM prompts WHERE session_id = ?1)
	OR EXISTS (SELECT 1 FROM events WHERE session_id = ?1) OR EXISTS (SELECT 1 FROM answers WHERE session_id = ?1)`, k.localID).Scan(&used)
		if err != nil || used {
			return applyDeleted, err
		}
	}
	if err := a.unlink(t, k.localID); err != nil {
		return "", err
	}
	return applyDeleted, remember()
}

// unlink deletes a record and its sync id, the id first so no tombstone is left.
func (a *applier) unlink(t syncTable, localID string) error {
	if _, err := a.exec(`DELETE FROM sync_ids WHERE kind = ? AND local_id = ?`, t.kind, localID); err != nil {
		return err
	}
	_, err := a.exec(`DELETE FROM `+t.table+` WHERE id = ?`, localID)
	return err
}
