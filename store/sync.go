package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/sync/wire"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// SyncHere is what a sync run tells the store about this machine.
type SyncHere struct {
	Machine string // this machine's name, on every record it pushes
	// Self is the person (server role) this machine syncs as: a pulled record of theirs is
	// this person's own (author ''), which they may forget here and so tombstone.
	Self string
	// Key is a local project's key across machines from one of its sessions' cwd and its
	// name (project.Key); nil keys every project by its name.
	Key func(cwd, name string) string
	Loc *time.Location // the local day pulled text's redactions are counted on; nil is UTC
}

// sqlOutgoing reads records of one push state in the order they were made, after a rowid;
// its LIMIT follows.
const sqlOutgoing = `SELECT rowid, kind, local_id, gid FROM sync_ids WHERE state = ? AND rowid > ? ORDER BY rowid`

// SyncOutgoing returns up to limit of this person's records not yet pushed, oldest first,
// then their tombstones, as they travel (wire.Record: Project is the project's key,
// Session the session's gid). The redactor runs on every text field again: a record in
// which it still finds a secret is held back (counted by SyncState, never returned) until
// the rules change, when a later call finds it clean and returns it. Pulled records are
// never returned. A record stays waiting until SyncMark says what the server did with it.
func (db *DB) SyncOutgoing(ctx context.Context, here SyncHere, limit int) ([]wire.Record, error) {
	var out []wire.Record
	err := db.write(ctx, func(tx *sql.Tx) error {
		out = nil
		if err := mapProjects(ctx, tx, here.Key); err != nil {
			return err
		}
		o := outgoing{ctx: ctx, tx: tx, machine: here.Machine, keys: map[string]string{}, sessions: map[string]string{}}
		// Held records whose text the rules now pass go back to waiting.
		held, err := o.rows(sqlOutgoing, syncHeld, 0)
		if err != nil {
			return err
		}
		for _, h := range held {
			if _, secret, err := o.record(h); err != nil {
				return err
			} else if !secret {
				if _, err := tx.ExecContext(ctx, `UPDATE sync_ids SET state = ? WHERE rowid = ?`, syncWaiting, h.rowid); err != nil {
					return err
				}
			}
		}
		after := int64(0)
		for len(out) < limit {
			batch, err := o.rows(sqlOutgoing+sqlLimit(limit-len(out)), syncWaiting, after)
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				break
			}
			for _, w := range batch {
				after = w.rowid
				r, secret, err := o.record(w)
				if err != nil {
					return err
				}
				if secret {
					if _, err := tx.ExecContext(ctx, `UPDATE sync_ids SET state = ? WHERE rowid = ?`, syncHeld, w.rowid); err != nil {
						return err
					}
					continue
				}
				out = append(out, r)
			}
		}
		if len(out) >= limit {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT gid, kind, project, session, at FROM sync_tombstones
WHERE state = 'waiting' ORDER BY rowid`+sqlLimit(limit-len(out)))
		if err != nil {
			return err
		}
		return scanAll(rows, func(r *sql.Rows) error {
			rec := wire.Record{Machine: here.Machine, Deleted: true}
			var at int64
			err := r.Scan(&rec.GID, &rec.Kind, &rec.Project, &rec.Session, &at)
			rec.At = time.Unix(0, at).UTC().Truncate(time.Millisecond)
			out = append(out, rec)
			return err
		})
	})
	if err != nil {
		return nil, db.fail("sync outgoing", err)
	}
	return out, nil
}

// outgoing reads this person's records as they travel, within one transaction.
type outgoing struct {
	ctx      context.Context
	tx       *sql.Tx
	machine  string
	keys     map[string]string // project name → key
	sessions map[string]string // local session id → gid
}

type syncRow struct {
	rowid              int64
	kind, localID, gid string
}

func (o *outgoing) rows(query string, args ...any) ([]syncRow, error) {
	rows, err := o.tx.QueryContext(o.ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var out []syncRow
	err = scanAll(rows, func(r *sql.Rows) error {
		var s syncRow
		err := r.Scan(&s.rowid, &s.kind, &s.localID, &s.gid)
		out = append(out, s)
		return err
	})
	return out, err
}

// record reads one record and its body; secret says the redactor found one in its text.
func (o *outgoing) record(s syncRow) (wire.Record, bool, error) {
	rec := wire.Record{GID: s.gid, Kind: wire.Kind(s.kind), Machine: o.machine}
	var project, session string
	var at sql.NullInt64
	var body any
	var texts []*string
	switch rec.Kind {
	case wire.Session:
		var b wire.SessionBody
		var started, ended sql.NullInt64
		// The request is the latest summary's only: a prompt's text travels as a prompt,
		// which only this person's machines may read, never inside a header a team reads.
		err := o.tx.QueryRowContext(o.ctx, `SELECT project, started_at, ended_at,
	coalesce((SELECT m.request FROM summaries m WHERE m.session_id = s.id AND m.request <> '' ORDER BY m.at DESC, m.id DESC LIMIT 1), '')
FROM sessions s WHERE id = ?`, s.localID).Scan(&project, &started, &ended, &b.Request)
		if err != nil {
			return rec, false, err
		}
		b.Started, b.Ended = millis(fromNanos(started)), millis(fromNanos(ended))
		at = started
		if !at.Valid {
			at = sql.NullInt64{Int64: gidTime(s.gid).UnixNano(), Valid: true}
		}
		b.Request = firstLine(b.Request)
		body, texts = &b, []*string{&b.Request}
	case wire.Observation:
		var b wire.ObservationBody
		var lists [4]string
		err := o.tx.QueryRowContext(o.ctx, `SELECT project, session_id, type, title, subtitle, narrative,
	facts, concepts, files_read, files_modified, at FROM observations WHERE id = ?`, s.localID).Scan(
			&project, &session, &b.Type, &b.Title, &b.Subtitle, &b.Narrative, &lists[0], &lists[1], &lists[2], &lists[3], &at)
		if err != nil {
			return rec, false, err
		}
		for i, dst := range []*[]string{&b.Facts, &b.Concepts, &b.FilesRead, &b.FilesModified} {
			if err := json.Unmarshal([]byte(lists[i]), dst); err != nil {
				return rec, false, err
			}
			for j := range *dst {
				texts = append(texts, &(*dst)[j])
			}
		}
		body, texts = &b, append(texts, &b.Type, &b.Title, &b.Subtitle, &b.Narrative)
	case wire.Summary:
		var b wire.SummaryBody
		err := o.tx.QueryRowContext(o.ctx, `SELECT project, session_id, request, investigated, learned,
	completed, next_steps, notes, at FROM summaries WHERE id = ?`, s.localID).Scan(
			&project, &session, &b.Request, &b.Investigated, &b.Learned, &b.Completed, &b.NextSteps, &b.Notes, &at)
		if err != nil {
			return rec, false, err
		}
		body, texts = &b, []*string{&b.Request, &b.Investigated, &b.Learned, &b.Completed, &b.NextSteps, &b.Notes}
	case wire.Prompt:
		var b wire.PromptBody
		err := o.tx.QueryRowContext(o.ctx, `SELECT project, session_id, text, at FROM prompts WHERE id = ?`, s.localID).Scan(
			&project, &session, &b.Text, &at)
		if err != nil {
			return rec, false, err
		}
		body, texts = &b, []*string{&b.Text}
	default:
		return rec, false, fmt.Errorf("sync id of kind %q: %w", s.kind, ErrInvalidArgument)
	}
	for _, t := range texts {
		if _, c := redact.Captured(*t); c.Total() > 0 {
			return rec, true, nil
		}
	}
	var err error
	if rec.Project, err = o.key(project); err != nil {
		return rec, false, err
	}
	if session != "" {
		if rec.Session, err = o.session(session); err != nil {
			return rec, false, err
		}
	}
	rec.At = millis(fromNanos(at))
	rec.Body, err = json.Marshal(body)
	return rec, false, err
}

// key is a local project's key (mapProjects filled the map), else its name.
func (o *outgoing) key(project string) (string, error) {
	if k, ok := o.keys[project]; ok {
		return k, nil
	}
	var k string
	err := o.tx.QueryRowContext(o.ctx, `SELECT key FROM sync_projects WHERE project = ?`, project).Scan(&k)
	if errors.Is(err, sql.ErrNoRows) {
		k, err = project, nil
	}
	o.keys[project] = k
	return k, err
}

// session is a local session's gid ("" for a session with none, which only a row written
// behind the store's back can be).
func (o *outgoing) session(id string) (string, error) {
	if g, ok := o.sessions[id]; ok {
		return g, nil
	}
	var g string
	err := o.tx.QueryRowContext(o.ctx, `SELECT gid FROM sync_ids WHERE kind = 'session' AND local_id = ?`, id).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	o.sessions[id] = g
	return g, err
}

// mapProjects gives every local project without a key one, from the cwd of its latest
// session that has one. Off the hook path: only a sync run reads .git/config.
func mapProjects(ctx context.Context, tx *sql.Tx, key func(cwd, name string) string) error {
	rows, err := tx.QueryContext(ctx, `SELECT p.project, coalesce((SELECT s.cwd FROM sessions s
	WHERE s.project = p.project AND s.cwd <> '' ORDER BY coalesce(s.started_at, 0) DESC LIMIT 1), '')
FROM (SELECT DISTINCT project FROM sessions WHERE project NOT IN (SELECT project FROM sync_projects)) p`)
	if err != nil {
		return err
	}
	type unmapped struct{ project, cwd string }
	var todo []unmapped
	err = scanAll(rows, func(r *sql.Rows) error {
		var u unmapped
		err := r.Scan(&u.project, &u.cwd)
		todo = append(todo, u)
		return err
	})
	if err != nil {
		return err
	}
	for _, u := range todo {
		k := u.project
		if key != nil {
			k = key(u.cwd, u.project)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sync_projects (project, key) VALUES (?, ?) ON CONFLICT DO NOTHING`, u.project, k); err != nil {
			return err
		}
	}
	return nil
}

// SyncMark records what became of pushed records and tombstones: stored ones are pushed,
// refused ones refused (counted by SyncState, never sent again). Only what was waiting
// changes.
func (db *DB) SyncMark(ctx context.Context, p wire.Pushed) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		for _, m := range []struct {
			gids  []string
			state string
		}{{p.Stored, syncPushed}, {p.Refused, syncRefused}} {
			if len(m.gids) == 0 {
				continue
			}
			b, err := json.Marshal(m.gids)
			if err != nil {
				return err
			}
			for _, table := range []string{"sync_ids", "sync_tombstones"} {
				if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET state = ?
WHERE state = 'waiting' AND gid IN (SELECT value FROM json_each(?))`, m.state, string(b)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return db.fail("sync mark", err)
}

// SyncState is sync's local state, for status, health and doctor.
type SyncState struct {
	Waiting int // this person's records and tombstones not yet pushed
	Held    int // records held back: the redactor finds a secret in them
	Refused int // records and tombstones the server refused
	Pulled  int // records pulled from a server, stored here
	Servers []SyncServer
}

// SyncServer is how far one server was pulled.
type SyncServer struct {
	Server   string
	Cursor   wire.Cursor
	Pulled   int            // records it gave that were stored
	Rejected map[string]int // records it gave that were refused, by reason (see SyncApplied)
}

// SyncState counts records by push state and reads each server's cursor.
func (db *DB) SyncState(ctx context.Context) (SyncState, error) {
	var st SyncState
	err := db.sql.QueryRowContext(ctx, `SELECT
	(SELECT count(*) FROM sync_ids WHERE state = 'waiting') + (SELECT count(*) FROM sync_tombstones WHERE state = 'waiting'),
	(SELECT count(*) FROM sync_ids WHERE state = 'held'),
	(SELECT count(*) FROM sync_ids WHERE state = 'refused') + (SELECT count(*) FROM sync_tombstones WHERE state = 'refused'),
	(SELECT count(*) FROM sync_ids WHERE state = 'pulled')`).Scan(&st.Waiting, &st.Held, &st.Refused, &st.Pulled)
	if err != nil {
		return st, db.fail("sync state", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT server, cursor, pulled FROM sync_cursors
UNION SELECT server, '', 0 FROM sync_rejects WHERE server NOT IN (SELECT server FROM sync_cursors)
ORDER BY server`)
	if err != nil {
		return st, db.fail("sync state", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var s SyncServer
		err := r.Scan(&s.Server, &s.Cursor, &s.Pulled)
		st.Servers = append(st.Servers, s)
		return err
	})
	if err != nil {
		return st, db.fail("sync state", err)
	}
	rows, err = db.sql.QueryContext(ctx, `SELECT server, reason, count FROM sync_rejects`)
	if err != nil {
		return st, db.fail("sync state", err)
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var server, reason string
		var n int
		if err := r.Scan(&server, &reason, &n); err != nil {
			return err
		}
		i := slices.IndexFunc(st.Servers, func(s SyncServer) bool { return s.Server == server })
		if i >= 0 {
			if st.Servers[i].Rejected == nil {
				st.Servers[i].Rejected = map[string]int{}
			}
			st.Servers[i].Rejected[reason] = n
		}
		return nil
	})
	return st, db.fail("sync state", err)
}

// SyncHeld lists up to limit of the records held back, oldest first, so that a person can
// see them (hook search, the viewer) and forget or fix them. A held session header is not
// listed: its only text is a summary's request, and that summary is held too.
func (db *DB) SyncHeld(ctx context.Context, limit int) ([]vocab.Ref, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT kind, local_id FROM sync_ids WHERE state = ? AND kind <> 'session'
ORDER BY rowid`+sqlLimit(max(limit, 0)), syncHeld)
	if err != nil {
		return nil, db.fail("sync held", err)
	}
	var out []vocab.Ref
	err = scanAll(rows, func(r *sql.Rows) error {
		var kind, local string
		if err := r.Scan(&kind, &local); err != nil {
			return err
		}
		id, err := strconv.ParseInt(local, 10, 64)
		out = append(out, vocab.Ref{Kind: kind, ID: id})
		return err
	})
	return out, db.fail("sync held", err)
}

// millis is t to the millisecond, as records travel.
func millis(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// gidTime is the time a UUIDv7 holds; zero for a text that is none.
func gidTime(gid string) time.Time {
	hex := strings.ReplaceAll(gid, "-", "")
	if len(hex) < 12 {
		return time.Time{}
	}
	var ms int64
	for _, c := range hex[:12] {
		v := strings.IndexRune("0123456789abcdef", c)
		if v < 0 {
			return time.Time{}
		}
		ms = ms<<4 | int64(v)
	}
	return time.UnixMilli(ms).UTC()
}

// ErrNoProject: no session of that project is stored here.
var ErrNoProject = errors.New("no project of that name in this memory")

// SyncProjectKey is a local project's key across machines (what `claude-mem share` names
// to the server): the key its sessions travel under, given by key from its latest
// session's directory when none was given yet.
func (db *DB) SyncProjectKey(ctx context.Context, project string, key func(cwd, name string) string) (string, error) {
	var k string
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := mapProjects(ctx, tx, key); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT key FROM sync_projects WHERE project = ?`, project).Scan(&k)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNoProject, project)
		}
		return err
	})
	if errors.Is(err, ErrNoProject) {
		return "", err
	}
	return k, db.fail("sync project key", err)
}
