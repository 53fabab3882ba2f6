package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/sync/server"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var ctx = context.Background()

// world is one server database with the schema and four people: alice and bob in team
// core, carol in no team, dana an admin.
type world struct {
	s  *pgtest.Server
	db string
	su *pgx.Conn
}

func pw(person string) string { return "S3cret-" + person + "-7f3a" }

func newWorld(t *testing.T) *world {
	t.Helper()
	s := pgtest.Shared(t)
	w := &world{s: s, db: s.NewDB(t)}
	su, err := pgx.Connect(ctx, s.DSN(w.db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { su.Close(ctx) })
	w.su = su
	if _, err := server.Install(ctx, su); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"alice", "bob", "carol", "dana"} {
		s.CreatePerson(t, p, pw(p))
		s.Exec(t, w.db, "GRANT "+server.UserRole+" TO "+p)
	}
	s.Exec(t, w.db, "GRANT "+server.AdminRole+" TO dana")
	return w
}

func (w *world) client(t *testing.T, person string) *Client {
	t.Helper()
	c, err := Connect(ctx, w.s.SocketURL(person, pw(person), w.db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// team makes team core of alice and bob, as dana.
func (w *world) team(t *testing.T) {
	t.Helper()
	dana := w.client(t, "dana")
	if err := dana.CreateTeam(ctx, "core"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"alice", "bob"} {
		if err := dana.AddMember(ctx, "core", p); err != nil {
			t.Fatal(err)
		}
	}
}

var base = time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)

// obs is an observation of project made on machine, with a fresh UUIDv7.
func obs(t testing.TB, project, machine, title string) wire.Record {
	t.Helper()
	g, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(wire.ObservationBody{Type: "discovery", Title: title, Narrative: "n " + title})
	return wire.Record{GID: g.String(), Kind: wire.Observation, Project: project, Machine: machine,
		At: base.Add(time.Duration(len(title)) * time.Millisecond), Body: body}
}

// pullAll pulls from cur until a short page, limit at a time.
func pullAll(t *testing.T, c *Client, cur wire.Cursor, limit int) ([]wire.Record, wire.Cursor) {
	t.Helper()
	var all []wire.Record
	for range 10000 {
		p, err := c.Pull(ctx, cur, limit)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Records...)
		cur = p.Next
		if !p.More {
			return all, cur
		}
	}
	t.Fatal("pull never ended")
	return nil, ""
}

func gids(recs []wire.Record) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		m[r.GID]++
	}
	return m
}

func count(t *testing.T, w *world) int {
	t.Helper()
	var n int
	if err := w.su.QueryRow(ctx, "SELECT count(*) FROM claude_mem.records").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPushPullRoundTrip(t *testing.T) {
	w := newWorld(t)
	alice := w.client(t, "alice")
	const project = "github.com/acme/payments-api"
	sg, _ := uuid.NewV7()
	sbody, _ := json.Marshal(wire.SessionBody{Started: base, Request: "fix the webhook"})
	recs := []wire.Record{{GID: sg.String(), Kind: wire.Session, Project: project, Machine: "laptop", At: base, Body: sbody}}
	for i := range 7 {
		r := obs(t, project, "laptop", fmt.Sprintf("obs %d", i))
		r.Session = sg.String()
		r.Author = "mallory" // ignored: the server sets the owner
		recs = append(recs, r)
	}
	pg, _ := uuid.NewV7()
	recs = append(recs, wire.Record{GID: pg.String(), Kind: wire.Prompt, Project: project, Session: sg.String(),
		Machine: "laptop", At: base, Body: json.RawMessage(`{"text":"why is the ledger append-only?"}`)})
	got, err := alice.Push(ctx, recs)
	if err != nil || len(got.Stored) != len(recs) || len(got.Refused) != 0 {
		t.Fatalf("push: %d stored, refused %v, %v", len(got.Stored), got.Refused, err)
	}
	pulled, _ := pullAll(t, alice, "", 3)
	if len(pulled) != len(recs) {
		t.Fatalf("pulled %d, pushed %d", len(pulled), len(recs))
	}
	byGID := map[string]wire.Record{}
	for _, r := range pulled {
		byGID[r.GID] = r
	}
	for _, want := range recs {
		r, ok := byGID[want.GID]
		if !ok {
			t.Fatalf("%s not pulled", want.GID)
		}
		var a, b any
		json.Unmarshal(r.Body, &a)
		json.Unmarshal(want.Body, &b)
		if r.Kind != want.Kind || r.Project != want.Project || r.Session != want.Session || r.Machine != want.Machine ||
			!r.At.Equal(want.At) || r.Author != "alice" || r.Deleted || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("pulled %+v\nwant %+v (author alice)", r, want)
		}
	}
	// Control: the others read nothing of a project nobody shared.
	for _, p := range []string{"bob", "carol"} {
		if recs, _ := pullAll(t, w.client(t, p), "", 100); len(recs) != 0 {
			t.Fatalf("%s pulled %d of Alice's private records", p, len(recs))
		}
	}
}

// A push again, small or large (COPY), stores nothing twice; the control is that a new
// record does change the count.
func TestIdempotentPush(t *testing.T) {
	w := newWorld(t)
	alice := w.client(t, "alice")
	for _, n := range []int{5, CopyMin + 10} {
		before := count(t, w)
		recs := make([]wire.Record, n)
		for i := range recs {
			recs[i] = obs(t, "p", "laptop", fmt.Sprintf("o%d", i))
		}
		for round := range 3 {
			got, err := alice.Push(ctx, recs)
			if err != nil || len(got.Stored) != n || len(got.Refused) != 0 {
				t.Fatalf("n=%d round %d: %d stored, %d refused, %v", n, round, len(got.Stored), len(got.Refused), err)
			}
			if c := count(t, w); c != before+n {
				t.Fatalf("n=%d round %d: %d rows, want %d", n, round, c, before+n)
			}
		}
		// The same records twice in one push, and mixed with a new one.
		extra := obs(t, "p", "laptop", "extra")
		got, err := alice.Push(ctx, append(append(append([]wire.Record{}, recs[:3]...), recs[:3]...), extra))
		if err != nil || len(got.Stored) != 7 {
			t.Fatalf("n=%d: repeat in one push: %+v, %v", n, got, err)
		}
		if c := count(t, w); c != before+n+1 {
			t.Fatalf("n=%d: %d rows after one new record, want %d (control)", n, c, before+n+1)
		}
	}
	// A record and its tombstone in one push: the tombstone wins, whichever comes first.
	for _, tombFirst := range []bool{false, true} {
		r := obs(t, "p", "laptop", "forgotten at once")
		tomb := r
		tomb.Deleted, tomb.Body = true, nil
		batch := []wire.Record{r, tomb}
		if tombFirst {
			batch = []wire.Record{tomb, r}
		}
		if got, err := alice.Push(ctx, batch); err != nil || len(got.Stored) != 2 {
			t.Fatalf("record and tombstone: %+v, %v", got, err)
		}
		var deleted bool
		if err := w.su.QueryRow(ctx, "SELECT deleted FROM claude_mem.records WHERE gid = $1", r.GID).Scan(&deleted); err != nil || !deleted {
			t.Fatalf("tombstone first %v: deleted %v, %v", tombFirst, deleted, err)
		}
	}
	pulled, _ := pullAll(t, alice, "", 500)
	dups := 0
	for _, k := range gids(pulled) {
		dups += k - 1
	}
	if dups != 0 || len(pulled) != count(t, w) {
		t.Fatalf("pulled %d with %d duplicates; server holds %d", len(pulled), dups, count(t, w))
	}
	t.Logf("pulled %d records, 0 duplicates", len(pulled))
}

// Bounds a test pulls with in place of boundQuery, as controls.
const (
	xmaxBound = `SELECT pg_snapshot_xmax(pg_current_snapshot())::text` // none: all the snapshot sees
	xminBound = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text` // the whole cluster's oldest
)

// lateWriter is a push still running (a raw connection of Alice's, its transaction open,
// rolled back when the test ends unless committed) that took its id before a push of hers
// that has committed: it returns the open transaction, its record and the committed one.
func lateWriter(t *testing.T, w *world, alice *Client) (pgx.Tx, wire.Record, wire.Record) {
	t.Helper()
	tx := pgtest.Begin(t, w.s.SocketURL("alice", pw("alice"), w.db))
	late := obs(t, "p", "laptop", "late")
	if _, err := tx.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		VALUES ($1, 'observation', 'laptop', 'p', now(), $2)`, late.GID, string(late.Body)); err != nil {
		t.Fatal(err)
	}
	early := obs(t, "p", "desktop", "early")
	if _, err := alice.Push(ctx, []wire.Record{early}); err != nil {
		t.Fatal(err)
	}
	return tx, late, early
}

// A transaction that took its id first and commits after a later one is read, never
// skipped; the page it holds back says there is more. The control pulls without a bound: it
// loses that row.
func TestLateCommitNeverSkipped(t *testing.T) {
	for _, bound := range []string{boundQuery, xmaxBound} {
		t.Run(fmt.Sprintf("bound %.20s", bound), func(t *testing.T) {
			w := newWorld(t)
			alice := w.client(t, "alice")
			tx, late, early := lateWriter(t, w, alice)
			p1, err := alice.pull(ctx, "", 100, bound)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			p2, err := alice.pull(ctx, p1.Next, 100, bound)
			if err != nil {
				t.Fatal(err)
			}
			seen := gids(append(p1.Records, p2.Records...))
			if bound == boundQuery {
				if len(p1.Records) != 0 || !p1.More || seen[late.GID] != 1 || seen[early.GID] != 1 || p2.More {
					t.Fatalf("with the bound: first pull %d records (more %v), then late %d early %d (more %v)",
						len(p1.Records), p1.More, seen[late.GID], seen[early.GID], p2.More)
				}
			} else if seen[early.GID] != 1 || seen[late.GID] != 0 {
				t.Fatalf("control without the bound: late %d early %d; it should have lost late", seen[late.GID], seen[early.GID])
			}
		})
	}
}

// A pull goes in the order of transaction ids as numbers, not as their text: across 99 to
// 100 (as across 999,999 to 1,000,000 on a server) a page of one finds each record once.
func TestPullOrderIsNumeric(t *testing.T) {
	w := newWorld(t)
	alice := w.client(t, "alice")
	recs := []wire.Record{obs(t, "p", "laptop", "at 99"), obs(t, "p", "laptop", "at 100"), obs(t, "p", "laptop", "at 101")}
	if _, err := alice.Push(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for i, tx := range []int{99, 100, 101} {
		w.s.Exec(t, w.db, `ALTER TABLE claude_mem.records DISABLE TRIGGER records_tombstone;
			UPDATE claude_mem.records SET txid = `+fmt.Sprint(tx)+`::text::xid8 WHERE gid = '`+recs[i].GID+`';
			ALTER TABLE claude_mem.records ENABLE TRIGGER records_tombstone`)
	}
	got, _ := pullAll(t, alice, "", 1)
	if len(got) != 3 || got[0].GID != recs[0].GID || got[1].GID != recs[1].GID || got[2].GID != recs[2].GID {
		t.Fatalf("pulled %d records, want the 3 in the order of their ids", len(got))
	}
}

// The bound's reading of pg_locks, case by case, on locks made up for one transaction of
// the snapshot: it bounds the pull unless it is seen running (its id's lock held in a
// virtual transaction that has not ended, "N/0" once it has) without a lock on records
// that lets it write, in this database.
func TestBoundReadsLocks(t *testing.T) {
	w := newWorld(t)
	tx := pgtest.Begin(t, w.s.DSN(w.db))
	var x uint64
	if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&x); err != nil {
		t.Fatal(err)
	}
	w.s.Exec(t, w.db, "SELECT pg_current_xact_id()") // a later one ends: x is in every snapshot's xip
	var records, here, elsewhere uint32
	if err := w.su.QueryRow(ctx, `SELECT 'claude_mem.records'::regclass::oid, (SELECT oid FROM pg_database WHERE datname = current_database()),
		(SELECT oid FROM pg_database WHERE datname = 'postgres')`).Scan(&records, &here, &elsewhere); err != nil {
		t.Fatal(err)
	}
	xid := fmt.Sprint(x % (1 << 32))
	id := func(vx string) string {
		return fmt.Sprintf("('transactionid', NULL::oid, NULL::oid, '%s'::xid, '%s', 'ExclusiveLock', true)", xid, vx)
	}
	rel := func(db uint32, vx, mode string) string {
		return fmt.Sprintf("('relation', %d::oid, %d::oid, NULL::xid, '%s', '%s', true)", db, records, vx, mode)
	}
	for _, c := range []struct {
		name   string
		locks  []string
		bounds bool
	}{
		{"writing", []string{id("5/7"), rel(here, "5/7", "RowExclusiveLock")}, true},
		{"writing, its id's lock not taken yet", []string{rel(here, "5/7", "RowExclusiveLock")}, true},
		{"ended, its id's lock not yet released", []string{id("5/0")}, true},
		{"ended", nil, true},
		{"holding an id only", []string{id("5/7")}, false},
		{"analyzing records", []string{id("5/7"), rel(here, "5/7", "ShareUpdateExclusiveLock")}, false},
		{"reading records", []string{id("5/7"), rel(here, "5/7", "AccessShareLock")}, false},
		{"writing a table of that oid in another database", []string{id("5/7"), rel(elsewhere, "5/7", "RowExclusiveLock")}, false},
		{"another transaction writing", []string{id("5/7"), rel(here, "6/3", "RowExclusiveLock")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := append([]string{"('virtualxid', NULL::oid, NULL::oid, NULL::xid, '0/0', 'ExclusiveLock', false)"}, c.locks...)
			q := strings.Replace(boundQuery, "FROM pg_locks WHERE granted", "FROM (VALUES "+strings.Join(rows, ", ")+
				") AS pg_locks(locktype, database, relation, transactionid, virtualtransaction, mode, granted) WHERE granted", 1)
			q = strings.Replace(q, "AS x\nWHERE", fmt.Sprintf("AS x\nWHERE x = '%d'::xid8 AND", x), 1)
			if strings.Count(q, "VALUES") != 1 || !strings.Contains(q, "WHERE x = ") {
				t.Fatal("boundQuery changed: the test's edits of it no longer apply")
			}
			rr, err := w.su.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Rollback(ctx)
			var bound, xmax uint64
			if err := rr.QueryRow(ctx, "SELECT ("+q+")::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint").Scan(&bound, &xmax); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]uint64{true: x, false: xmax}[c.bounds]; bound != want || x >= xmax {
				t.Fatalf("bound %d, want %d (the transaction %d, the snapshot's xmax %d)", bound, want, x, xmax)
			}
		})
	}
}

// A transaction holding an id that writes no records (in another database of the cluster,
// on another table, ANALYZE of records as autovacuum runs it after a bulk push, a read of
// records) holds no pull back: every committed record is read, and the last page says it
// is the end. The control is the snapshot's xmin as the bound, which reads none of them.
func TestUnrelatedTransactionHoldsNoPullBack(t *testing.T) {
	holders := []struct {
		name string
		db   func(w *world) string // where it runs, as the superuser
		sql  string
	}{
		{"another database", func(w *world) string { return w.s.NewDB(t) }, "SELECT pg_current_xact_id()"},
		{"another table", func(w *world) string { return w.db }, "INSERT INTO public.other VALUES (1)"},
		{"analyze of records", func(w *world) string { return w.db }, "ANALYZE claude_mem.records; SELECT pg_current_xact_id()"},
		{"read of records", func(w *world) string { return w.db }, "SELECT pg_current_xact_id(); SELECT count(*) FROM claude_mem.records"},
	}
	for _, h := range holders {
		t.Run(h.name, func(t *testing.T) {
			w := newWorld(t)
			alice := w.client(t, "alice")
			w.s.Exec(t, w.db, "CREATE TABLE public.other (x int)")
			db := h.db(w)
			tx := pgtest.Begin(t, w.s.DSN(db))
			if _, err := tx.Exec(ctx, h.sql); err != nil {
				t.Fatal(err)
			}
			var xid string
			if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id_if_assigned()::text").Scan(&xid); err != nil || xid == "" {
				t.Fatalf("the holder has no transaction id (%q, %v)", xid, err)
			}
			var recs []wire.Record
			for i := range 30 {
				recs = append(recs, obs(t, "p", "laptop", fmt.Sprintf("r%d", i)))
			}
			for i := 0; i < len(recs); i += 10 {
				if _, err := alice.Push(ctx, recs[i:i+10]); err != nil {
					t.Fatal(err)
				}
			}
			control, err := alice.pull(ctx, "", 7, xminBound)
			if err != nil {
				t.Fatal(err)
			}
			// It cuts the page at none; that there is more beyond it is all a run learns.
			if len(control.Records) != 0 || !control.More {
				t.Fatalf("control: the xmin bound read %d records (more %v); it should have stopped at none, held",
					len(control.Records), control.More)
			}
			got, _ := pullAll(t, alice, "", 7)
			if g := gids(got); len(got) != len(recs) || len(g) != len(recs) {
				t.Fatalf("pulled %d (%d distinct) of %d while %s held an id", len(got), len(g), len(recs), h.name)
			}
		})
	}
}

// A transaction of the pull's snapshot that has ended when pg_locks is read may have written
// records: it bounds the pull, and its rows come by the next. Here the writer commits while
// the pull waits (an advisory lock put in place of the moment between the snapshot and
// pg_locks). The control only counts transactions seen holding the lock: it loses the row.
func TestWriterEndedBeforeLocksRead(t *testing.T) {
	wait := strings.Replace(boundQuery, "FROM pg_locks WHERE granted",
		"FROM (SELECT pg_advisory_xact_lock_shared(7)::text AS v) AS w, LATERAL (SELECT * FROM pg_locks WHERE w.v = '' OFFSET 0) AS pl WHERE granted", 1)
	seenOnly := strings.Replace(wait, "NOT IN (SELECT xid FROM others)",
		"IN (SELECT xid FROM l WHERE locktype = 'transactionid' AND vx IN (SELECT vx FROM writers))", 1)
	if wait == boundQuery || seenOnly == wait {
		t.Fatal("boundQuery changed: the test's edits of it no longer apply")
	}
	for _, bound := range []string{wait, seenOnly} {
		t.Run(fmt.Sprintf("conservative %v", bound == wait), func(t *testing.T) {
			w := newWorld(t)
			alice := w.client(t, "alice")
			tx, late, early := lateWriter(t, w, alice)
			gate, err := pgx.Connect(ctx, w.s.DSN(w.db))
			if err != nil {
				t.Fatal(err)
			}
			defer gate.Close(ctx)
			if _, err := gate.Exec(ctx, "SELECT pg_advisory_lock(7)"); err != nil {
				t.Fatal(err)
			}
			type result struct {
				p   wire.Page
				err error
			}
			done := make(chan result, 1)
			go func() { p, err := alice.pull(ctx, "", 100, bound); done <- result{p, err} }()
			waitFor(t, func() bool {
				var n int
				return gate.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE usename = 'alice' AND wait_event_type = 'Lock' AND wait_event = 'advisory'`).Scan(&n) == nil && n == 1
			})
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := gate.Exec(ctx, "SELECT pg_advisory_unlock(7)"); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			rest, _ := pullAll(t, alice, r.p.Next, 100)
			seen := gids(append(r.p.Records, rest...))
			if bound == wait {
				if len(r.p.Records) != 0 || !r.p.More || seen[late.GID] != 1 || seen[early.GID] != 1 {
					t.Fatalf("first pull %d records (more %v), then late %d early %d", len(r.p.Records), r.p.More, seen[late.GID], seen[early.GID])
				}
			} else if seen[early.GID] != 1 || seen[late.GID] != 0 {
				t.Fatalf("control: late %d early %d; it should have lost late", seen[late.GID], seen[early.GID])
			}
		})
	}
}

// A push by COPY stages its records (and so takes its transaction id) before it writes
// records: it locks them first, or a pull in between would not know it for a writer. Here
// a pull and a later push run while it is staged. The control stages without the lock: the
// pull passes it by and its records are lost to that puller.
func TestPushByCopyLocksFirst(t *testing.T) {
	for _, lock := range []string{lockRecords, "SELECT 1"} {
		t.Run(fmt.Sprintf("lock %v", lock == lockRecords), func(t *testing.T) {
			w := newWorld(t)
			alice, other, puller := w.client(t, "alice"), w.client(t, "alice"), w.client(t, "alice")
			recs := make([]wire.Record, CopyMin)
			for i := range recs {
				recs[i] = obs(t, "p", "laptop", fmt.Sprintf("c%d", i))
			}
			early := obs(t, "p", "desktop", "early")
			var p1 wire.Page
			var hookErr error
			staged := 0
			afterStage = func() {
				staged++
				if _, hookErr = other.Push(ctx, []wire.Record{early}); hookErr == nil {
					p1, hookErr = puller.Pull(ctx, "", 10*CopyMin)
				}
			}
			t.Cleanup(func() { afterStage = func() {} })
			if got, err := alice.push(ctx, recs, lock); err != nil || len(got.Stored) != len(recs) {
				t.Fatalf("push: %d stored, %v", len(got.Stored), err)
			}
			if staged != 1 || hookErr != nil {
				t.Fatalf("staged %d times, %v", staged, hookErr)
			}
			rest, _ := pullAll(t, puller, p1.Next, 10*CopyMin)
			seen := gids(append(p1.Records, rest...))
			copied := 0
			for _, r := range recs {
				copied += seen[r.GID]
			}
			if lock == lockRecords {
				if len(p1.Records) != 0 || !p1.More || copied != len(recs) || seen[early.GID] != 1 {
					t.Fatalf("pull while staged: %d records (more %v); then %d of %d copied, early %d",
						len(p1.Records), p1.More, copied, len(recs), seen[early.GID])
				}
			} else if copied != 0 || seen[early.GID] != 1 {
				t.Fatalf("control: %d of %d copied, early %d; it should have lost the copied", copied, len(recs), seen[early.GID])
			}
		})
	}
}

// Each connection failure has its typed error, and no error text holds the password.
func TestConnectErrors(t *testing.T) {
	w := newWorld(t)
	s := w.s
	secret := pw("bob")
	ca := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {s.CAFile}}
	other, otherErr := s.OtherHost()
	// A service file whose sslmode would take a remote host to plaintext.
	svcFile := filepath.Join(t.TempDir(), "pg_service.conf")
	if err := os.WriteFile(svcFile, []byte("[plain]\nsslmode=disable\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		url  string
		env  map[string]string
		want error // nil: connects
		tls  bool  // when it connects: over TLS
	}
	cases := []tc{
		{"socket, right password", s.SocketURL("bob", secret, w.db), nil, nil, false},
		{"socket, wrong password", s.SocketURL("bob", secret+"x", w.db), nil, ErrAuth, false},
		{"PGPASSWORD right", s.SocketURL("bob", "", w.db), map[string]string{"PGPASSWORD": secret}, nil, false},
		{"PGPASSWORD wrong", s.SocketURL("bob", "", w.db), map[string]string{"PGPASSWORD": secret + "x"}, ErrAuth, false},
		{"TLS, our CA", s.TCPURL("127.0.0.1", "bob", secret, w.db, ca), nil, nil, true},
		{"TLS, localhost, our CA", s.TCPURL("localhost", "bob", secret, w.db, ca), nil, nil, true},
		{"TLS, untrusted cert", s.TCPURL("127.0.0.1", "bob", secret, w.db,
			url.Values{"sslmode": {"verify-full"}, "sslrootcert": {pgtest.StrangerCA(t)}}), nil, ErrTLS, false},
		{"loopback plaintext said outright", s.TCPURL("127.0.0.1", "bob", secret, w.db, url.Values{"sslmode": {"disable"}}), nil, nil, false},
		{"remote, sslmode=prefer", "postgres://bob:" + secret + "@db.example.com/x?sslmode=prefer", nil, ErrPlaintext, false},
		{"remote, sslmode=allow", "postgres://bob:" + secret + "@203.0.113.9/x?sslmode=allow", nil, ErrPlaintext, false},
		{"wrong port", "postgres://bob:" + secret + "@127.0.0.1:1/x?connect_timeout=5", nil, ErrUnreachable, false},
		{"typo host", "postgres://bob:" + secret + "@db.exmaple.invalid/x?connect_timeout=5", nil, ErrUnreachable, false},
		{"wrong password in the query", s.TCPURL("127.0.0.1", "bob", "", w.db,
			url.Values{"sslmode": {"verify-full"}, "sslrootcert": {s.CAFile}, "password": {secret + "q"}}), nil, ErrAuth, false},
		{"unknown sslmode", "postgres://bob:" + secret + "@127.0.0.1/x?sslmode=bogus&sslpassword=" + secret + "k", nil, ErrBadURL, false},
		{"not a postgres URL", "postgress://bob:" + secret + "@127.0.0.1/x", nil, ErrBadURL, false},
	}
	if otherErr == nil {
		cases = append(cases,
			// No sslmode to a host that is not loopback: verify-full, against the system's
			// roots, which do not know the test's CA.
			tc{"remote, no sslmode", s.TCPURL(other, "bob", secret, w.db, nil), nil, ErrTLS, false},
			tc{"remote, no sslmode, PGSSLMODE=disable", s.TCPURL(other, "bob", secret, w.db, nil), map[string]string{"PGSSLMODE": "disable"}, ErrTLS, false},
			tc{"remote, prefer, server would speak plaintext", s.TCPURL(other, "bob", secret, w.db, url.Values{"sslmode": {"prefer"}}), nil, ErrPlaintext, false},
			// A service file's sslmode=disable does not take it to plaintext: verify-full
			// still holds (and the system's roots do not know the test's CA).
			tc{"remote, a service file's sslmode=disable", s.TCPURL(other, "bob", secret, w.db, url.Values{"service": {"plain"}}),
				map[string]string{"PGSERVICEFILE": svcFile}, ErrTLS, false},
			tc{"remote, PGSERVICE's sslmode=disable", s.TCPURL(other, "bob", secret, w.db, nil),
				map[string]string{"PGSERVICEFILE": svcFile, "PGSERVICE": "plain"}, ErrTLS, false},
			tc{"remote, our CA", s.TCPURL(other, "bob", secret, w.db, url.Values{"sslrootcert": {s.CAFile}}), nil, nil, true},
			tc{"remote, plaintext said outright", s.TCPURL(other, "bob", secret, w.db, url.Values{"sslmode": {"disable"}}), nil, nil, false},
		)
	} else {
		t.Logf("no address but loopback: the remote-host cases run only on their refusals (%v)", otherErr)
	}
	refused, connected := 0, 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PGPASSFILE", "/nonexistent")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cl, err := Connect(ctx, c.url)
			if c.want == nil {
				if err != nil {
					t.Fatalf("want a connection: %v", err)
				}
				defer cl.Close(ctx)
				var ssl bool
				if err := cl.conn.QueryRow(ctx, `SELECT coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)`).Scan(&ssl); err != nil || ssl != c.tls {
					t.Fatalf("TLS %v, want %v (%v)", ssl, c.tls, err)
				}
				if strings.Contains(cl.URL(), secret) {
					t.Fatalf("URL() shows the password: %s", cl.URL())
				}
				connected++
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			for _, k := range []error{ErrAuth, ErrTLS, ErrPlaintext, ErrUnreachable, ErrBadURL, ErrSchemaOlder, ErrSchemaNewer} {
				if k != c.want && errors.Is(err, k) {
					t.Fatalf("err %v is also %v", err, k)
				}
			}
			for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				// secret is a prefix of each wrong password: this finds them too.
				if strings.Contains(text, secret) {
					t.Fatalf("the error shows the password: %s", text)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
			t.Logf("%s", err)
			refused++
		})
	}

	// A role that is not a person of claude-mem (no claude_mem_user).
	s.CreatePerson(t, "eve", pw("eve"))
	_, err := Connect(ctx, s.SocketURL("eve", pw("eve"), w.db))
	if !errors.Is(err, ErrDenied) || strings.Contains(err.Error(), pw("eve")) {
		t.Fatalf("not a person: %v, want ErrDenied", err)
	}
	refused++

	// Schema older and newer than this build.
	bare := s.NewDB(t)
	_, err = Connect(ctx, s.SocketURL("bob", secret, bare))
	if !errors.Is(err, ErrSchemaOlder) || strings.Contains(err.Error(), secret) {
		t.Fatalf("no schema: %v, want ErrSchemaOlder", err)
	}
	refused++
	s.Exec(t, w.db, "UPDATE claude_mem.schema_version SET version = version + 1")
	_, err = Connect(ctx, s.SocketURL("bob", secret, w.db))
	if !errors.Is(err, ErrSchemaNewer) || strings.Contains(err.Error(), secret) {
		t.Fatalf("newer schema: %v, want ErrSchemaNewer", err)
	}
	refused++
	t.Logf("connections: %d refused with their typed error, %d allowed controls connected", refused, connected)
}

// Bob's client, modified or not, reaches only what the server lets him (ISSUE35), each
// attack beside its allowed control.
func TestAttacksThroughClient(t *testing.T) {
	w := newWorld(t)
	w.team(t)
	alice, bob, carol := w.client(t, "alice"), w.client(t, "bob"), w.client(t, "carol")
	const shared, private = "github.com/acme/payments-api", "github.com/alice/diary"
	if err := alice.Share(ctx, shared, "core"); err != nil {
		t.Fatal(err)
	}
	aShared, aPrivate := obs(t, shared, "laptop", "webhook verified by HMAC"), obs(t, private, "laptop", "diary")
	aPrompt := aShared
	aPrompt.GID, aPrompt.Kind, aPrompt.Body = uuid.Must(uuid.NewV7()).String(), wire.Prompt, json.RawMessage(`{"text":"secret plans"}`)
	if got, err := alice.Push(ctx, []wire.Record{aShared, aPrivate, aPrompt}); err != nil || len(got.Stored) != 3 {
		t.Fatalf("alice push: %+v, %v", got, err)
	}
	tried, refused, controls := 0, 0, 0
	body := func(gid string) (string, bool) {
		var b *string
		var del bool
		if err := w.su.QueryRow(ctx, "SELECT body::text, deleted FROM claude_mem.records WHERE gid = $1", gid).Scan(&b, &del); err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return "", del
		}
		return *b, del
	}
	want, _ := body(aShared.GID)

	// Bob pushes a record with Alice's global id, and a tombstone of it.
	forged := aShared
	forged.Body = json.RawMessage(`{"type":"x","title":"pwned"}`)
	tomb := aShared
	tomb.Deleted, tomb.Body = true, nil
	for _, r := range []wire.Record{forged, tomb, aPrivate} {
		tried++
		got, err := bob.Push(ctx, []wire.Record{r})
		if err != nil || len(got.Refused) != 1 || len(got.Stored) != 0 {
			t.Fatalf("bob pushing alice's %s (deleted %v): %+v, %v", r.GID, r.Deleted, got, err)
		}
		if b, del := body(aShared.GID); b != want || del {
			t.Fatalf("alice's row changed: %s deleted %v", b, del)
		}
		refused++
	}
	// Control: Bob's own record beside it is stored.
	mine := obs(t, shared, "bobs-box", "bob's")
	if got, err := bob.Push(ctx, []wire.Record{mine, forged}); err != nil || len(got.Stored) != 1 || got.Stored[0] != mine.GID || len(got.Refused) != 1 {
		t.Fatalf("bob's own and a forged: %+v, %v", got, err)
	}
	controls++

	// Bob pulls the shared project, not Alice's private one, nor her prompt.
	recs, cur := pullAll(t, bob, "", 10)
	seen := gids(recs)
	tried += 2
	if seen[aPrivate.GID] == 0 && seen[aPrompt.GID] == 0 {
		refused += 2
	} else {
		t.Fatalf("bob pulled alice's private %d, prompt %d", seen[aPrivate.GID], seen[aPrompt.GID])
	}
	if seen[aShared.GID] != 1 || recs[0].Author == "" {
		t.Fatalf("control: bob did not pull the shared observation once (%d)", seen[aShared.GID])
	}
	for _, r := range recs {
		if r.GID == aShared.GID && r.Author != "alice" {
			t.Fatalf("author %q, want alice", r.Author)
		}
	}
	controls++
	tried++
	if recs, _ := pullAll(t, carol, "", 10); len(recs) == 0 {
		refused++
	} else {
		t.Fatalf("carol, in no team, pulled %d", len(recs))
	}
	// Control: Alice reads all her own rows, the prompt too.
	if recs, _ := pullAll(t, alice, "", 10); gids(recs)[aPrompt.GID] != 1 || gids(recs)[aPrivate.GID] != 1 {
		t.Fatalf("control: alice's own pull: %d records", len(recs))
	}
	controls++

	// Alice's tombstone is hers to push, and reaches Bob.
	if got, err := alice.Push(ctx, []wire.Record{tomb}); err != nil || len(got.Stored) != 1 {
		t.Fatalf("alice's tombstone: %+v, %v", got, err)
	}
	if b, del := body(aShared.GID); b != "" || !del {
		t.Fatalf("after alice's tombstone: %q deleted %v", b, del)
	}
	recs, cur = pullAll(t, bob, cur, 10)
	if len(recs) != 1 || recs[0].GID != aShared.GID || !recs[0].Deleted || recs[0].Body != nil {
		t.Fatalf("bob's pull after the tombstone: %+v", recs)
	}
	controls++

	// After unshare, Alice's new records reach Bob no more.
	if err := alice.Unshare(ctx, shared, "core"); err != nil {
		t.Fatal(err)
	}
	after := obs(t, shared, "laptop", "after unshare")
	if _, err := alice.Push(ctx, []wire.Record{after}); err != nil {
		t.Fatal(err)
	}
	tried++
	if recs, _ := pullAll(t, bob, cur, 10); len(recs) == 0 {
		refused++
	} else {
		t.Fatalf("bob pulled %d after unshare", len(recs))
	}

	// Team operations: only the admin adds people; a share needs the team.
	for _, attempt := range []struct {
		what string
		err  error
	}{
		{"bob creates a team", bob.CreateTeam(ctx, "bobs")},
		{"bob adds carol to his team", bob.AddMember(ctx, "core", "carol")},
		{"carol adds herself to core", carol.AddMember(ctx, "core", "carol")},
		{"bob removes alice", bob.RemoveMember(ctx, "core", "alice")},
		{"carol shares with core, not hers", carol.Share(ctx, "github.com/carol/x", "core")},
	} {
		tried++
		if !errors.Is(attempt.err, ErrDenied) {
			t.Fatalf("%s: %v, want ErrDenied", attempt.what, attempt.err)
		}
		refused++
	}
	teams, err := carol.ListTeams(ctx)
	if err != nil || len(teams) != 0 {
		t.Fatalf("carol's teams: %+v, %v", teams, err)
	}
	teams, err = bob.ListTeams(ctx)
	if err != nil || len(teams) != 1 || fmt.Sprint(teams[0].Members) != "[alice bob]" {
		t.Fatalf("bob's teams: %+v, %v", teams, err)
	}
	controls++
	t.Logf("attacks through the client: %d attempts, %d refused; %d allowed controls passed", tried, refused, controls)
}

// A project shared after a person pulled past its records is read from its start; so is
// one whose team the person joins later. The control: a cursor that claims the share seen
// brings none of them.
func TestNewShareReadFromStart(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.client(t, "alice"), w.client(t, "bob")
	dana := w.client(t, "dana")
	if err := dana.CreateTeam(ctx, "core"); err != nil {
		t.Fatal(err)
	}
	if err := dana.AddMember(ctx, "core", "alice"); err != nil {
		t.Fatal(err)
	}
	old := make([]wire.Record, 7)
	for i := range old {
		old[i] = obs(t, "p", "laptop", fmt.Sprintf("old %d", i))
	}
	if _, err := alice.Push(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := alice.Share(ctx, "p", "core"); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Push(ctx, []wire.Record{obs(t, "q", "box", "bob's")}); err != nil {
		t.Fatal(err)
	}
	recs, cur := pullAll(t, bob, "", 2)
	if len(recs) != 1 {
		t.Fatalf("bob before joining pulled %d, want his 1", len(recs))
	}
	// Bob's cursor is past Alice's old records; now he joins core.
	if err := dana.AddMember(ctx, "core", "bob"); err != nil {
		t.Fatal(err)
	}
	c, err := parseCursor(cur)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := w.su.QueryRow(ctx, "SELECT id FROM claude_mem.shares").Scan(&id); err != nil {
		t.Fatal(err)
	}
	claimed := c
	claimed.Seen = []int64{id}
	if recs, _ := pullAll(t, bob, claimed.String(), 3); len(recs) != 0 {
		t.Fatalf("control: a cursor claiming the share seen pulled %d", len(recs))
	}
	recs, cur = pullAll(t, bob, cur, 3)
	if g := gids(recs); len(recs) != len(old) || len(g) != len(old) {
		t.Fatalf("bob after joining pulled %d (%d distinct), want alice's %d", len(recs), len(g), len(old))
	}
	// Nothing again on the next pull; then a second share of another project of hers.
	if recs, _ := pullAll(t, bob, cur, 3); len(recs) != 0 {
		t.Fatalf("pulled %d again", len(recs))
	}
	more := []wire.Record{obs(t, "p2", "laptop", "p2 a"), obs(t, "p2", "laptop", "p2 b")}
	if _, err := alice.Push(ctx, more); err != nil {
		t.Fatal(err)
	}
	if recs, _ := pullAll(t, bob, cur, 3); len(recs) != 0 {
		t.Fatalf("bob pulled %d of an unshared project", len(recs))
	}
	n := 0
	if err := alice.Share(ctx, "p2", "core"); err != nil {
		t.Fatal(err)
	}
	recs, _ = pullAll(t, bob, cur, 1)
	for _, r := range recs {
		if r.Project == "p2" {
			n++
		}
	}
	if n != 2 || len(recs) != 2 {
		t.Fatalf("after the second share bob pulled %d, %d of p2", len(recs), n)
	}
}

// A push whose session the server ends midway (here: terminated while it waits on a row
// lock) stores nothing; the next run's push of the same records stores each once.
func TestPushCutMidway(t *testing.T) {
	w := newWorld(t)
	alice := w.client(t, "alice")
	recs := make([]wire.Record, 50)
	for i := range recs {
		recs[i] = obs(t, "p", "laptop", fmt.Sprintf("cut %d", i))
	}
	// The superuser holds an uncommitted row of one of the gids: Alice's insert waits on it.
	tx, err := w.su.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		VALUES ($1, 'observation', 'x', 'p', now(), '{}')`, recs[25].GID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := alice.Push(ctx, recs); done <- err }()
	watch, err := pgx.Connect(ctx, w.s.DSN(w.db))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	var pid int
	waitFor(t, func() bool {
		return watch.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE usename = 'alice' AND wait_event_type = 'Lock'`).Scan(&pid) == nil
	})
	if _, err := watch.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), pw("alice")) {
		t.Fatalf("cut push: %v, want ErrUnreachable", err)
	}
	tx.Rollback(ctx)
	if n := count(t, w); n != 0 {
		t.Fatalf("the cut push left %d rows", n)
	}
	again := w.client(t, "alice")
	got, err := again.Push(ctx, recs)
	if err != nil || len(got.Stored) != len(recs) {
		t.Fatalf("push again: %d stored, %v", len(got.Stored), err)
	}
	if n := count(t, w); n != len(recs) {
		t.Fatalf("%d rows, want %d", n, len(recs))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, pgtest.StartWait, "the server's state", cond)
}

// Eight machines (four of Alice's, four of Bob's, one shared project) push 2,000 records
// each in batches of random sizes, some pushed twice, pulling between pushes, all at once.
// At the end every machine has pulled every record exactly once.
func TestConvergence(t *testing.T) {
	w := newWorld(t)
	w.team(t)
	const machines, each = 8, 2000
	for _, p := range []string{"alice", "bob"} {
		if err := w.client(t, p).Share(ctx, "p", "core"); err != nil {
			t.Fatal(err)
		}
	}
	type machine struct {
		c    *Client
		got  map[string]int
		cur  wire.Cursor
		recs []wire.Record
	}
	ms := make([]*machine, machines)
	for i := range ms {
		m := &machine{c: w.client(t, []string{"alice", "bob"}[i%2]), got: map[string]int{}}
		for j := range each {
			m.recs = append(m.recs, obs(t, "p", fmt.Sprintf("m%d", i), fmt.Sprintf("m%d r%d", i, j)))
		}
		ms[i] = m
	}
	pull := func(m *machine) (more bool, err error) {
		p, err := m.c.Pull(ctx, m.cur, 500)
		if err != nil {
			return false, err
		}
		for _, r := range p.Records {
			m.got[r.GID]++
		}
		m.cur = p.Next
		return p.More, nil
	}
	errs := make(chan error, machines)
	for i, m := range ms {
		go func() {
			rnd := rand.New(rand.NewPCG(uint64(i), 7))
			for at := 0; at < len(m.recs); {
				n := 1 + rnd.IntN(300)
				if rnd.IntN(10) == 0 {
					n = len(m.recs) - at // sometimes the rest at once (COPY when large)
				}
				batch := m.recs[at:min(at+n, len(m.recs))]
				times := 1 + rnd.IntN(2) // a push again, as after a kill before it was noted
				for range times {
					got, err := m.c.Push(ctx, batch)
					if err != nil {
						errs <- err
						return
					}
					if len(got.Stored) != len(batch) {
						errs <- fmt.Errorf("m%d: %d of %d stored", i, len(got.Stored), len(batch))
						return
					}
				}
				at += len(batch)
				if _, err := pull(m); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range machines {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	total := machines * each
	for i, m := range ms {
		for more := true; more; {
			var err error
			if more, err = pull(m); err != nil {
				t.Fatal(err)
			}
		}
		dups := 0
		for _, k := range m.got {
			dups += k - 1
		}
		if len(m.got) != total || dups != 0 {
			t.Fatalf("m%d pulled %d distinct of %d, %d duplicates", i, len(m.got), total, dups)
		}
	}
	if n := count(t, w); n != total {
		t.Fatalf("server holds %d, want %d", n, total)
	}
	t.Logf("%d machines converged on %d records, 0 duplicates", machines, total)
}

// A cursor of another server (a new database at the same URL) starts the pull over; the
// control is the same cursor on its own server, which pulls nothing more.
func TestCursorOfAnotherServer(t *testing.T) {
	a, b := newWorld(t), newWorld(t)
	ca, cb := a.client(t, "alice"), b.client(t, "alice")
	// b's records first: their transactions are older than a's (ids are the cluster's), so
	// a's cursor is past them and only the server's identity tells them apart.
	for _, c := range []*Client{cb, ca} {
		if _, err := c.Push(ctx, []wire.Record{obs(t, "p", "laptop", "one"), obs(t, "p", "laptop", "two")}); err != nil {
			t.Fatal(err)
		}
	}
	_, cur := pullAll(t, ca, "", 10)
	if recs, _ := pullAll(t, ca, cur, 10); len(recs) != 0 {
		t.Fatalf("control: the cursor on its own server pulled %d again", len(recs))
	}
	if recs, _ := pullAll(t, cb, cur, 10); len(recs) != 2 {
		t.Fatalf("another server's cursor pulled %d of its 2", len(recs))
	}
	if _, err := ca.Pull(ctx, "c1.garbage", 10); !errors.Is(err, ErrCursor) {
		t.Fatalf("a garbled cursor: %v, want ErrCursor", err)
	}
}

// After team remove, the server returns nothing new of the team's projects to the one who
// left; the control is a member who stays and does get the new record.
func TestLeaveTeam(t *testing.T) {
	w := newWorld(t)
	w.team(t)
	alice, bob, dana := w.client(t, "alice"), w.client(t, "bob"), w.client(t, "dana")
	if err := dana.AddMember(ctx, "core", "carol"); err != nil {
		t.Fatal(err)
	}
	carol := w.client(t, "carol")
	if err := alice.Share(ctx, "p", "core"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Push(ctx, []wire.Record{obs(t, "p", "laptop", "before")}); err != nil {
		t.Fatal(err)
	}
	recs, bobCur := pullAll(t, bob, "", 10)
	if len(recs) != 1 {
		t.Fatalf("bob pulled %d before leaving, want 1", len(recs))
	}
	_, carolCur := pullAll(t, carol, "", 10)
	if err := dana.RemoveMember(ctx, "core", "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Push(ctx, []wire.Record{obs(t, "p", "laptop", "after")}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := pullAll(t, bob, bobCur, 10); len(recs) != 0 {
		t.Fatalf("bob pulled %d after leaving", len(recs))
	}
	if recs, _ := pullAll(t, bob, "", 10); len(recs) != 0 {
		t.Fatalf("bob pulled %d from the start after leaving", len(recs))
	}
	if recs, _ := pullAll(t, carol, carolCur, 10); len(recs) != 1 {
		t.Fatalf("control: carol, still in core, pulled %d, want 1", len(recs))
	}
	if err := dana.AddMember(ctx, "core", "nobody-here"); !errors.Is(err, ErrNoPerson) {
		t.Fatalf("adding a role that does not exist: %v, want ErrNoPerson", err)
	}
	if err := dana.AddMember(ctx, "nope", "bob"); !errors.Is(err, ErrNoTeam) {
		t.Fatalf("adding to a team that does not exist: %v, want ErrNoTeam", err)
	}
	if err := dana.CreateTeam(ctx, "core"); !errors.Is(err, ErrTeamExists) {
		t.Fatalf("creating core again: %v, want ErrTeamExists", err)
	}
}

// Two machines of one person push the same records at once in opposite orders (each a
// push again of the other's): neither deadlocks, both store all.
func TestOverlappingPushesDoNotDeadlock(t *testing.T) {
	w := newWorld(t)
	a, b := w.client(t, "alice"), w.client(t, "alice")
	for round := range 10 {
		recs := make([]wire.Record, 300)
		for i := range recs {
			recs[i] = obs(t, "p", "laptop", fmt.Sprintf("r%d %d", round, i))
		}
		rev := slices.Clone(recs)
		slices.Reverse(rev)
		errs := make(chan error, 2)
		for _, job := range []struct {
			c    *Client
			recs []wire.Record
		}{{a, recs}, {b, rev}} {
			go func() {
				got, err := job.c.Push(ctx, job.recs)
				if err == nil && len(got.Stored) != len(job.recs) {
					err = fmt.Errorf("%d of %d stored", len(got.Stored), len(job.recs))
				}
				errs <- err
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
	if n := count(t, w); n != 3000 {
		t.Fatalf("%d rows, want 3000", n)
	}
}

// A hosted server's admin is no superuser (CREATEROLE, owner of the database): Install as
// that role works, so do sharing and the teammate's pull (in_team runs as that owner, bound
// by forced RLS itself), and the installer reads nobody's records.
func TestInstallByNonSuperuser(t *testing.T) {
	s := pgtest.Shared(t)
	s.CreatePerson(t, "ops", pw("ops"))
	s.Exec(t, "postgres", "ALTER ROLE ops CREATEROLE")
	s.Exec(t, "postgres", "CREATE DATABASE hosted OWNER ops")
	opsConn, err := pgx.Connect(ctx, s.SocketURL("ops", pw("ops"), "hosted"))
	if err != nil {
		t.Fatal(err)
	}
	defer opsConn.Close(ctx)
	if _, err := server.Install(ctx, opsConn); err != nil {
		t.Fatalf("install as a non-superuser: %v", err)
	}
	for _, p := range []string{"alice", "bob"} {
		s.CreatePerson(t, p, pw(p))
		if _, err := opsConn.Exec(ctx, "GRANT "+server.UserRole+" TO "+p); err != nil {
			t.Fatal(err)
		}
	}
	ops, err := Connect(ctx, s.SocketURL("ops", pw("ops"), "hosted"))
	if err != nil {
		t.Fatal(err)
	}
	defer ops.Close(ctx)
	if err := ops.CreateTeam(ctx, "core"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"alice", "bob"} {
		if err := ops.AddMember(ctx, "core", p); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(p string) *Client {
		c, err := Connect(ctx, s.SocketURL(p, pw(p), "hosted"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	alice, bob := connect("alice"), connect("bob")
	if err := alice.Share(ctx, "p", "core"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Push(ctx, []wire.Record{obs(t, "p", "laptop", "shared"), obs(t, "q", "laptop", "private")}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := pullAll(t, bob, "", 10); len(recs) != 1 || recs[0].Project != "p" {
		t.Fatalf("bob pulled %d, want the one shared", len(recs))
	}
	var n int
	if err := opsConn.QueryRow(ctx, "SELECT count(*) FROM claude_mem.records").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the installer reads %d records (%v), want 0: forced RLS binds the owner", n, err)
	}
	if teams, err := ops.ListTeams(ctx); err != nil || len(teams) != 1 || len(teams[0].Members) != 2 {
		t.Fatalf("the admin's teams: %+v, %v", teams, err)
	}
}

// A logical restore into another cluster leaves records with transaction ids ahead of the
// server's: pulls say so (ErrRestored) instead of silently reading nothing, and sync init
// renumbers them, after which every cursor starts over and reads them all. The control is
// the same pull before the restore.
func TestRestoredFromAnotherCluster(t *testing.T) {
	w := newWorld(t)
	alice := w.client(t, "alice")
	recs := []wire.Record{obs(t, "p", "laptop", "one"), obs(t, "p", "laptop", "two"), obs(t, "p", "laptop", "three")}
	if _, err := alice.Push(ctx, recs); err != nil {
		t.Fatal(err)
	}
	_, cur := pullAll(t, alice, "", 10)
	if p, err := alice.Pull(ctx, cur, 10); err != nil || len(p.Records) != 0 {
		t.Fatalf("control: pull before the restore: %d, %v", len(p.Records), err)
	}
	// What pg_dump of a busier cluster restored here looks like: ids far ahead.
	w.s.Exec(t, w.db, `ALTER TABLE claude_mem.records DISABLE TRIGGER records_tombstone;
		UPDATE claude_mem.records SET txid = (pg_current_xact_id()::text::bigint + 1000000000)::text::xid8;
		ALTER TABLE claude_mem.records ENABLE TRIGGER records_tombstone`)
	if _, err := alice.Pull(ctx, cur, 10); !errors.Is(err, ErrRestored) {
		t.Fatalf("pull after the restore: %v, want ErrRestored", err)
	}
	done, err := server.Install(ctx, w.su)
	if err != nil || done.Renumbered != 3 {
		t.Fatalf("sync init after the restore: %+v, %v; want 3 renumbered", done, err)
	}
	if recs, _ := pullAll(t, alice, cur, 10); len(recs) != 3 {
		t.Fatalf("after sync init the old cursor pulled %d, want all 3 again", len(recs))
	}
	if done, err := server.Install(ctx, w.su); err != nil || done.Renumbered != 0 {
		t.Fatalf("sync init again: %+v, %v; want nothing renumbered", done, err)
	}
}
