package remote

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// ErrCursor says a cursor is not one this client made.
var ErrCursor = errors.New("not a sync cursor of this claude-mem")

// pos is a place in the pull order: the writing transaction, then the sequence.
type pos struct {
	Tx  uint64 `json:"t"`
	Seq int64  `json:"s"`
}

func (p pos) less(q pos) bool { return p.Tx < q.Tx || (p.Tx == q.Tx && p.Seq < q.Seq) }

// backfill is a project newly shared with this person's team, read from its start up to
// where the main pull stood when the share was first seen (the main pull reads the rest).
type backfill struct {
	Share   int64  `json:"id"`
	Owner   string `json:"o"`
	Project string `json:"p"`
	From    pos    `json:"f"`
	Until   pos    `json:"u"`
}

// cursor is what wire.Cursor holds, opaque to its keeper.
type cursor struct {
	Server string     `json:"srv"` // the server's identity (schema_version.server)
	At     pos        `json:"at"`
	Seen   []int64    `json:"seen,omitempty"` // the others' shares visible at the last pull
	Back   []backfill `json:"back,omitempty"`
}

const cursorPrefix = "c1."

func parseCursor(c wire.Cursor) (cursor, error) {
	var cur cursor
	if c == "" {
		return cur, nil
	}
	s, ok := strings.CutPrefix(string(c), cursorPrefix)
	if !ok {
		return cur, ErrCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cur, ErrCursor
	}
	if err := json.Unmarshal(b, &cur); err != nil {
		return cur, ErrCursor
	}
	return cur, nil
}

func (c cursor) String() wire.Cursor {
	b, _ := json.Marshal(c)
	return wire.Cursor(cursorPrefix + base64.RawURLEncoding.EncodeToString(b))
}

// boundQuery is where a pull stops, as text: the oldest transaction running at the pull's
// snapshot that may write records, else the snapshot's xmax. Every row below it is committed
// or never will be, so none can appear later behind the cursor; without it, a push that took
// its id first and commits last is skipped. The snapshot's xmin would be a bound too, but it
// is the whole cluster's: any transaction holding an id (autovacuum's ANALYZE after a bulk
// push, another app's session idle in a transaction in another database) would hold every
// pull back. So it asks the lock manager (pg_locks, readable by every role) which of the
// snapshot's running transactions hold a lock on records that lets them write.
//
// That is exact because every writer of records locks it before it takes an id (lockRecords,
// server.Install): a writer with no id yet at the snapshot will get one at or above its
// xmax, and one with an id still holds the lock, or has ended. One that has ended by the
// time pg_locks is read (its id's lock gone, or shown in virtual transaction "N/0" while it
// is let go) may have written: it bounds the pull too, which only cuts this page short. A
// client of someone's own making that writes without locking first can hide only its own
// rows (RLS makes every row its writer's) from pulls that passed them, never another's; one
// that holds a write open holds every pull back, as a stalled push of ours does until
// idle_in_transaction_session_timeout ends it.
//
// pg_locks is read once (MATERIALIZED): two reads of it would be two moments. A transaction
// id there is 32 bits; the snapshot's are xid8, whose low 32 bits it is.
const boundQuery = `WITH l AS MATERIALIZED (
	SELECT locktype, database, relation, transactionid::text::bigint AS xid, virtualtransaction AS vx, mode
	FROM pg_locks WHERE granted),
writers AS (
	SELECT vx FROM l WHERE locktype = 'relation' AND relation = 'claude_mem.records'::regclass
	  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	  AND mode IN ('RowExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')),
others AS (
	SELECT xid FROM l WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock' AND vx NOT LIKE '%/0'
	  AND vx NOT IN (SELECT vx FROM writers))
SELECT coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot()))::text
FROM pg_snapshot_xip(pg_current_snapshot()) AS x
WHERE x::text::bigint % 4294967296 NOT IN (SELECT xid FROM others)`

// In recordCols txid::text keeps the name txid, and ORDER BY txid would sort by that text
// ("1000" before "999": a page past every power of ten would skip rows), so the pulls order
// by records.txid, as their index does.
const recordCols = `gid::text, kind, owner, machine, project, coalesce(session::text, ''), at, deleted,
	coalesce(body::text, ''), txid::text, seq`

// pullQuery is the main pull: what RLS lets this person read, after the cursor and below
// the bound, in order.
const pullQuery = `SELECT ` + recordCols + ` FROM claude_mem.records
	WHERE (txid, seq) > ($1::text::xid8, $2) AND txid < $3::text::xid8
	ORDER BY records.txid, records.seq LIMIT $4`

// backfillQuery is one shared project of one owner from the backfill's place to its end.
const backfillQuery = `SELECT ` + recordCols + ` FROM claude_mem.records
	WHERE owner = $1 AND project = $2
	  AND (txid, seq) > ($3::text::xid8, $4) AND (txid, seq) <= ($5::text::xid8, $6)
	ORDER BY records.txid, records.seq LIMIT $7`

// Pull reads up to limit records after cur: this person's own, and those of projects shared
// with a team they are in, in the order to apply them, with the cursor to store with them.
// A project newly shared with them (or them newly in its team) is read from its start, and
// so is everything when cur is another server's. More is set on a full page, and on a short
// one that a push still running cut short while records this person may read lie beyond
// it: those come once that push ends, by a pull then.
func (c *Client) Pull(ctx context.Context, cur wire.Cursor, limit int) (wire.Page, error) {
	return c.pull(ctx, cur, limit, boundQuery)
}

func (c *Client) pull(ctx context.Context, raw wire.Cursor, limit int, bounds string) (wire.Page, error) {
	cur, err := parseCursor(raw)
	if err != nil {
		return wire.Page{}, err
	}
	if limit <= 0 {
		return wire.Page{}, fmt.Errorf("pull limit %d: must be positive", limit)
	}
	// One snapshot for the shares, the backfills and the main pull: they agree on who sees
	// what, and the bound is that snapshot's.
	tx, err := c.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return wire.Page{}, c.fail(err)
	}
	defer tx.Rollback(ctx)
	// The first statement takes the snapshot, and reads pg_locks right after it: a
	// transaction that ends in between bounds the pull (boundQuery).
	var boundText, xmaxText, id string
	var ahead bool
	if err := tx.QueryRow(ctx, `SELECT (`+bounds+`), pg_snapshot_xmax(pg_current_snapshot())::text,
		(SELECT server::text FROM claude_mem.schema_version),
		EXISTS (SELECT 1 FROM claude_mem.records WHERE txid >= pg_snapshot_xmax(pg_current_snapshot()))`).Scan(&boundText, &xmaxText, &id, &ahead); err != nil {
		return wire.Page{}, c.fail(err)
	}
	// A row written by a transaction this server has not begun yet came from another
	// cluster (a logical restore): the order is broken until sync init renumbers.
	if ahead {
		return wire.Page{}, &Error{Kind: ErrRestored, URL: c.shown}
	}
	// A cursor of another server says nothing of this one: start over (a pull stores by
	// global id, so what comes again is not stored twice).
	if cur.Server != id {
		cur = cursor{Server: id}
	}
	bound, err := strconv.ParseUint(boundText, 10, 64)
	if err != nil {
		return wire.Page{}, fmt.Errorf("server pull bound %q: %w", boundText, err)
	}
	if err := c.seeShares(ctx, tx, &cur); err != nil {
		return wire.Page{}, err
	}
	var page wire.Page
	for len(cur.Back) > 0 && len(page.Records) < limit {
		b := &cur.Back[0]
		want := limit - len(page.Records)
		recs, last, err := c.read(ctx, tx, backfillQuery, b.Owner, b.Project, u64(b.From.Tx), b.From.Seq, u64(b.Until.Tx), b.Until.Seq, want)
		if err != nil {
			return wire.Page{}, err
		}
		page.Records = append(page.Records, recs...)
		if len(recs) < want {
			cur.Back = cur.Back[1:]
		} else {
			b.From = last
		}
	}
	held := false
	if want := limit - len(page.Records); want > 0 {
		recs, last, err := c.read(ctx, tx, pullQuery, u64(cur.At.Tx), cur.At.Seq, boundText, want)
		if err != nil {
			return wire.Page{}, err
		}
		page.Records = append(page.Records, recs...)
		if len(recs) > 0 {
			cur.At = last
		}
		if len(recs) < want {
			// A short page read everything below the bound: the next pull may start there.
			if cur.At.less(pos{Tx: bound}) {
				cur.At = pos{Tx: bound}
			}
			// Rows it may read beyond a bound below xmax (none lie at or above it: ahead)
			// are held back by a running push, and the page must not say it is the end.
			if boundText != xmaxText {
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM claude_mem.records WHERE txid >= $1::text::xid8)`,
					boundText).Scan(&held); err != nil {
					return wire.Page{}, c.fail(err)
				}
			}
		}
	}
	page.More = len(page.Records) == limit || held
	page.Next = cur.String()
	return page, tx.Commit(ctx)
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// seeShares notes the others' shares this person can see now: a new one starts a backfill
// of its project unless the main pull has not begun (it reads everything anyway) or a share
// already seen opens the same owner's project. A backfill whose share is gone is dropped.
func (c *Client) seeShares(ctx context.Context, tx pgx.Tx, cur *cursor) error {
	rows, err := tx.Query(ctx, `SELECT id, owner, project FROM claude_mem.shares
		WHERE owner <> current_user ORDER BY id`)
	if err != nil {
		return c.fail(err)
	}
	type share struct {
		id             int64
		owner, project string
	}
	var now []share
	for rows.Next() {
		var s share
		if err := rows.Scan(&s.id, &s.owner, &s.project); err != nil {
			rows.Close()
			return c.fail(err)
		}
		now = append(now, s)
	}
	if err := rows.Err(); err != nil {
		return c.fail(err)
	}
	seen := make(map[int64]bool, len(cur.Seen))
	for _, id := range cur.Seen {
		seen[id] = true
	}
	open := make(map[[2]string]bool) // owner, project already read continuously
	visible := make(map[int64]bool, len(now))
	for _, s := range now {
		visible[s.id] = true
		if seen[s.id] {
			open[[2]string{s.owner, s.project}] = true
		}
	}
	kept := cur.Back[:0]
	for _, b := range cur.Back {
		if visible[b.Share] {
			kept = append(kept, b)
			open[[2]string{b.Owner, b.Project}] = true
		}
	}
	cur.Back = kept
	cur.Seen = cur.Seen[:0]
	for _, s := range now {
		cur.Seen = append(cur.Seen, s.id)
		key := [2]string{s.owner, s.project}
		if seen[s.id] || open[key] || cur.At == (pos{}) {
			continue
		}
		cur.Back = append(cur.Back, backfill{Share: s.id, Owner: s.owner, Project: s.project, Until: cur.At})
		open[key] = true
	}
	return nil
}

// read runs a pull query and returns its records and the place of the last.
func (c *Client) read(ctx context.Context, tx pgx.Tx, query string, args ...any) ([]wire.Record, pos, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, pos{}, c.fail(err)
	}
	defer rows.Close()
	var out []wire.Record
	var last pos
	for rows.Next() {
		var r wire.Record
		var kind, body, txid string
		var at time.Time
		if err := rows.Scan(&r.GID, &kind, &r.Author, &r.Machine, &r.Project, &r.Session, &at,
			&r.Deleted, &body, &txid, &last.Seq); err != nil {
			return nil, pos{}, c.fail(err)
		}
		if last.Tx, err = strconv.ParseUint(txid, 10, 64); err != nil {
			return nil, pos{}, fmt.Errorf("server txid %q: %w", txid, err)
		}
		r.Kind, r.At = wire.Kind(kind), at.UTC()
		if body != "" {
			r.Body = json.RawMessage(body)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, pos{}, c.fail(err)
	}
	return out, last, nil
}
