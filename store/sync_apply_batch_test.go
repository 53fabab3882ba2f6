package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

const pulledKey = "github.com/acme/payments-api"

func gid() string { return uuid.Must(uuid.NewV7()).String() }

// pulledObs is an observation of alice's other machine in session, with a body of the size
// a real one has.
func pulledObs(session string, i int) wire.Record {
	body, _ := json.Marshal(wire.ObservationBody{
		Type:      "discovery",
		Title:     fmt.Sprintf("The payments webhook verifies the HMAC before parsing (%d)", i),
		Narrative: "The handler reads the raw body, computes the HMAC-SHA256 with the shared secret from the vault, and compares it in constant time before any JSON is parsed; a mismatch answers 401 and logs the delivery id.",
		Facts:     []string{"webhook.go verifies first", "the secret rotates monthly"},
		Concepts:  []string{"how-it-works", "security"},
		FilesRead: []string{"internal/webhook/webhook.go"},
	})
	return wire.Record{GID: gid(), Kind: wire.Observation, Author: "alice", Machine: "laptop", Project: pulledKey,
		Session: session, At: t0.Add(time.Duration(i) * time.Millisecond), Body: body}
}

// pulledSession is a session record of alice's other machine, and n observations in it.
func pulledSession(n int) []wire.Record {
	s := gid()
	body, _ := json.Marshal(wire.SessionBody{Started: t0, Request: "verify the webhook"})
	recs := []wire.Record{{GID: s, Kind: wire.Session, Author: "alice", Machine: "laptop", Project: pulledKey, At: t0, Body: body}}
	for i := range n {
		recs = append(recs, pulledObs(s, i))
	}
	return recs
}

// A page is stored as its records one page each would be: the same rows, local ids, origins,
// index and counts, across the batches of its inserts (more than two of batchRows) and with
// what a record before it in the page changes for it (a gid twice, a record and then its
// tombstone, a tombstone and then the record, a session made by an earlier record, another
// author's record in that session, a record whose session is an earlier record's gid). The
// control is the count of what it did: it would not match if the page had stored a record
// twice or not at all.
func TestSyncApplyPageAsRecordByRecord(t *testing.T) {
	recs := pulledSession(2*batchRows + 203)
	s := recs[0].GID
	other := gid() // a session no record of which comes: its header is made here
	sum, _ := json.Marshal(wire.SummaryBody{Request: "verify the webhook", Learned: "HMAC first"})
	prompt, _ := json.Marshal(wire.PromptBody{Text: "why is the webhook verified first?"})
	foreign := pulledObs(s, 9001)
	foreign.Author = "bob"
	inRecord := pulledObs(recs[3].GID, 9003) // its session is an observation's gid
	forgotten := recs[7]
	recs = append(recs,
		wire.Record{GID: gid(), Kind: wire.Summary, Author: "alice", Machine: "laptop", Project: pulledKey, Session: s, At: t0, Body: sum},
		wire.Record{GID: gid(), Kind: wire.Prompt, Author: "alice", Machine: "laptop", Project: pulledKey, Session: s, At: t0, Body: prompt},
		pulledObs(other, 9002),
		inRecord, // before any tombstone: recs[3] is still queued
		recs[5],  // again
		wire.Record{GID: forgotten.GID, Kind: wire.Observation, Author: "alice", Machine: "laptop", Project: pulledKey, At: t0, Deleted: true},
		forgotten, // after its tombstone
		wire.Record{GID: gid(), Kind: wire.Observation, Author: "alice", Machine: "laptop", Project: pulledKey, At: t0, Deleted: true},
		foreign,
	)
	recs = append(recs, pulledSession(3)...)
	ctx := context.Background()
	whole, _ := openTest(t)
	got, err := whole.SyncApply(ctx, "pg", hereB(), wire.Page{Records: recs, Next: "end"})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := openTest(t)
	var want SyncApplied
	for i, r := range recs {
		next := wire.Cursor(strconv.Itoa(i))
		if i == len(recs)-1 {
			next = "end"
		}
		res, err := one.SyncApply(ctx, "pg", hereB(), wire.Page{Records: []wire.Record{r}, Next: next})
		if err != nil {
			t.Fatal(err)
		}
		want.Stored += res.Stored
		want.Skipped += res.Skipped
		want.Deleted += res.Deleted
		for k, n := range res.Refused {
			if want.Refused == nil {
				want.Refused = map[string]int{}
			}
			want.Refused[k] += n
		}
	}
	stored := len(recs) - 2 - 2 - 2 // the two tombstones, the two gids again, bob's, inRecord
	if got.Stored != stored || got.Skipped != 3 || got.Deleted != 1 || got.Refused[RejectForeign] != 1 || got.Refused[RejectSession] != 1 ||
		got.Stored != want.Stored || got.Skipped != want.Skipped || got.Deleted != want.Deleted || !mapsEqual(got.Refused, want.Refused) {
		t.Fatalf("the page did %+v, its records one by one %+v; want %d stored, 3 skipped, 1 deleted, 1 foreign, 1 bad session",
			got, want, stored)
	}
	if a, b := digest(t, whole), digest(t, one); a != b {
		t.Fatalf("the page stored\n%.2000s\nits records one by one\n%.2000s", a, b)
	}
	if _, err := whole.sql.Exec(`INSERT INTO search_fts(search_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("the search index does not match the rows: %v", err)
	}
}

// local is db as sync.Run sees it (memory.SyncStore's part for a pull).
type local struct {
	db   *DB
	here SyncHere
}

func (l local) Outgoing(ctx context.Context, limit int) ([]wire.Record, error) {
	return l.db.SyncOutgoing(ctx, l.here, limit)
}
func (l local) Mark(ctx context.Context, p wire.Pushed) error { return l.db.SyncMark(ctx, p) }
func (l local) Cursor(ctx context.Context, server string) (wire.Cursor, error) {
	st, err := l.db.SyncState(ctx)
	for _, s := range st.Servers {
		if s.Server == server {
			return s.Cursor, err
		}
	}
	return "", err
}
func (l local) Apply(ctx context.Context, server, self string, page wire.Page) error {
	here := l.here
	here.Self = self
	_, err := l.db.SyncApply(ctx, server, here, page)
	return err
}

// pages is a server that has recs and serves them in order; its cursor is their count.
type pages []wire.Record

func (p pages) Person() string                                           { return "alice" }
func (p pages) Push(context.Context, []wire.Record) (wire.Pushed, error) { return wire.Pushed{}, nil }
func (p pages) Pull(_ context.Context, c wire.Cursor, limit int) (wire.Page, error) {
	from := 0
	if c != "" {
		var err error
		if from, err = strconv.Atoi(string(c)); err != nil {
			return wire.Page{}, err
		}
	}
	to := min(from+limit, len(p))
	return wire.Page{Records: p[from:to], Next: wire.Cursor(strconv.Itoa(to)), More: to < len(p)}, nil
}

// BenchmarkSyncPull100k: the local side of a pull of 100,000 observations (and their
// session) that another machine of the same person made, in sync.Run's batches: the cursor
// read, validation, clipping, local ids and the search index, page by page. The issue's
// bound for the whole pull, server included, is 60 s. Run it with -benchtime=1x.
func BenchmarkSyncPull100k(b *testing.B) {
	ctx := context.Background()
	const n = 100_000
	recs := pages(pulledSession(n))
	for range b.N {
		b.StopTimer()
		db, _ := openTest(b)
		b.StartTimer()
		res, err := sync.Run(ctx, local{db, SyncHere{Machine: "desktop", Loc: time.UTC}}, recs, sync.Pull, sync.Options{Server: "bench"})
		if err != nil || !res.Finished || res.Pulled != len(recs) {
			b.Fatalf("%+v, %v", res, err)
		}
		b.StopTimer()
		if got := count(b, db, `SELECT count(*) FROM observations`); got != n {
			b.Fatalf("%d observations stored, want %d", got, n)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
}
