package remote

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// CopyMin is the batch size from which Push streams with COPY into a staging table instead
// of one INSERT of arrays. Measured (BenchmarkStage, 2 loaded cores): arrays win 3-6x at
// 100 records and by some 20% at 1,000; from 10,000 the two are within the noise, and COPY
// streams rather than building eight arrays as parameters.
const CopyMin = 2000

// stageCols are the staging table's columns, in COPY's order.
var stageCols = []string{"gid", "kind", "machine", "project", "session", "at", "deleted", "body"}

// staged is a record checked and in the columns' forms.
type staged struct {
	gid     string // canonical text
	kind    string
	machine string
	project string
	session string // "" for none
	at      time.Time
	deleted bool
	body    string // "" for a tombstone
}

// Push stores recs on the server, in one transaction. It is idempotent by global id: a
// record this person already stored is Stored again and not duplicated. A global id that
// another person's row holds is Refused and that row is unchanged, as is a record that is
// not well formed (id, kind, session, body), which the server never sees. A tombstone
// (Deleted) clears the body of this person's row of that id and moves it to the end of
// the pull order; of another's row it is Refused.
func (c *Client) Push(ctx context.Context, recs []wire.Record) (wire.Pushed, error) {
	return c.push(ctx, recs, lockRecords)
}

// lockRecords takes the lock on records that every writer of it holds (ROW EXCLUSIVE, as a
// write takes it) before it takes a transaction id: a pull's bound is the oldest running
// transaction that holds it (boundQuery). A write that writes nothing takes it without an
// id; LOCK TABLE would need a privilege on the whole table, and a person holds only
// INSERT and UPDATE on some of its columns.
const lockRecords = `INSERT INTO claude_mem.records (gid) SELECT NULL WHERE false`

func (c *Client) push(ctx context.Context, recs []wire.Record, lock string) (wire.Pushed, error) {
	var out wire.Pushed
	rows := make([]staged, 0, len(recs))
	given := make(map[string][]string, len(recs)) // canonical gid → the caller's spellings
	idx := make(map[string]int, len(recs))        // canonical gid → its place in rows
	for _, r := range recs {
		s, ok := check(r)
		if !ok {
			out.Refused = append(out.Refused, r.GID)
			continue
		}
		if given[s.gid] == nil {
			idx[s.gid] = len(rows)
			rows = append(rows, s)
		} else if s.deleted {
			rows[idx[s.gid]] = s // an id twice in one push: forgetting it wins
		}
		given[s.gid] = append(given[s.gid], r.GID)
	}
	if len(rows) == 0 {
		return out, nil
	}
	tx, err := c.conn.Begin(ctx)
	if err != nil {
		return wire.Pushed{}, c.fail(err)
	}
	defer tx.Rollback(ctx)
	// The INSERT of arrays is the transaction's first statement and locks records before
	// it takes an id; staging for COPY writes first, so it locks them first.
	if len(rows) >= CopyMin {
		err = insertByCopy(ctx, tx, rows, lock)
	} else {
		err = insertByArrays(ctx, tx, rows)
	}
	if err != nil {
		return wire.Pushed{}, c.fail(err)
	}
	// Not nil: a nil slice goes as NULL, and "= ANY(NULL)" would hold nothing back.
	gids, tombs := []string{}, []string{}
	for _, r := range rows {
		gids = append(gids, r.gid)
		if r.deleted {
			tombs = append(tombs, r.gid)
		}
	}
	// RLS lets this UPDATE reach this person's rows only; another's stays as it is.
	if len(tombs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE claude_mem.records SET deleted = true, body = NULL
			WHERE gid = ANY($1::uuid[]) AND NOT deleted`, tombs); err != nil {
			return wire.Pushed{}, c.fail(err)
		}
	}
	// What this person holds now of what was pushed: a tombstone only if the row is one.
	q, err := tx.Query(ctx, `SELECT gid::text FROM claude_mem.records
		WHERE gid = ANY($1::uuid[]) AND owner = current_user AND (deleted OR NOT (gid = ANY($2::uuid[])))`, gids, tombs)
	if err != nil {
		return wire.Pushed{}, c.fail(err)
	}
	held, err := pgx.CollectRows(q, pgx.RowTo[string])
	if err != nil {
		return wire.Pushed{}, c.fail(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return wire.Pushed{}, c.fail(err)
	}
	have := make(map[string]bool, len(held))
	for _, g := range held {
		have[g] = true
	}
	for _, r := range rows {
		if have[r.gid] {
			out.Stored = append(out.Stored, given[r.gid]...)
		} else {
			out.Refused = append(out.Refused, given[r.gid]...)
		}
	}
	return out, nil
}

// check puts r in the columns' forms, false when it is not well formed.
func check(r wire.Record) (staged, bool) {
	g, err := uuid.Parse(r.GID)
	if err != nil || !slices.Contains(wire.Kinds, r.Kind) || r.Machine == "" || r.Project == "" || r.At.IsZero() {
		return staged{}, false
	}
	s := staged{gid: g.String(), kind: string(r.Kind), machine: r.Machine, project: r.Project,
		at: r.At, deleted: r.Deleted}
	if r.Session != "" {
		sg, err := uuid.Parse(r.Session)
		if err != nil {
			return staged{}, false
		}
		s.session = sg.String()
	}
	if !r.Deleted {
		if !json.Valid(r.Body) {
			return staged{}, false
		}
		s.body = string(r.Body)
	}
	return s, true
}

// Both inserts go in gid order: two pushes of overlapping records at once (two machines,
// or a push again after a kill) then wait on each other in one order and never deadlock.

func insertByArrays(ctx context.Context, tx pgx.Tx, rows []staged) error {
	n := len(rows)
	gid, kind, machine, project, session, body := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	at, deleted := make([]time.Time, n), make([]bool, n)
	for i, r := range rows {
		gid[i], kind[i], machine[i], project[i], session[i], at[i], deleted[i], body[i] =
			r.gid, r.kind, r.machine, r.project, r.session, r.at, r.deleted, r.body
	}
	_, err := tx.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, session, at, deleted, body)
		SELECT g::uuid, k, m, p, nullif(s, '')::uuid, a, d, nullif(b, '')::jsonb
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::boolean[], $8::text[])
			AS u(g, k, m, p, s, a, d, b)
		ORDER BY g ON CONFLICT (gid) DO NOTHING`, gid, kind, machine, project, session, at, deleted, body)
	return err
}

// afterStage runs in a push by COPY once the records are staged (the transaction has its
// id), before they go into records; a test pulls there.
var afterStage = func() {}

func insertByCopy(ctx context.Context, tx pgx.Tx, rows []staged, lock string) error {
	// A temporary table: this session's alone, emptied at commit, made once per connection.
	if _, err := tx.Exec(ctx, lock+`; CREATE TEMP TABLE IF NOT EXISTS push_stage (
		gid text, kind text, machine text, project text, session text, at timestamptz,
		deleted boolean, body text) ON COMMIT DELETE ROWS`); err != nil {
		return err
	}
	src := pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		r := rows[i]
		return []any{r.gid, r.kind, r.machine, r.project, r.session, r.at, r.deleted, r.body}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"push_stage"}, stageCols, src); err != nil {
		return err
	}
	afterStage()
	_, err := tx.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, session, at, deleted, body)
		SELECT gid::uuid, kind, machine, project, nullif(session, '')::uuid, at, deleted, nullif(body, '')::jsonb
		FROM push_stage ORDER BY gid ON CONFLICT (gid) DO NOTHING`)
	return err
}
