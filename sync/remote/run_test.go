package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/remote"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// puller is a Local that only pulls: what it stored, by gid, and its cursor.
type puller struct {
	cur  wire.Cursor
	have map[string]int
}

func (p *puller) Outgoing(context.Context, int) ([]wire.Record, error) { return nil, nil }
func (p *puller) Mark(context.Context, wire.Pushed) error              { return nil }
func (p *puller) Cursor(context.Context, string) (wire.Cursor, error)  { return p.cur, nil }
func (p *puller) Apply(_ context.Context, _, _ string, pg wire.Page) error {
	for _, r := range pg.Records {
		p.have[r.GID]++
	}
	p.cur = pg.Next
	return nil
}

func records(t *testing.T, n int, title string) []wire.Record {
	t.Helper()
	out := make([]wire.Record, n)
	for i := range out {
		body, _ := json.Marshal(wire.ObservationBody{Type: "discovery", Title: fmt.Sprintf("%s %d", title, i)})
		out[i] = wire.Record{GID: uuid.Must(uuid.NewV7()).String(), Kind: wire.Observation, Project: "p",
			Machine: "laptop", At: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC), Body: body}
	}
	return out
}

// A pull run that a push still running holds back reads everything below it, then ends
// unfinished without spinning (again while the push runs); once the push commits, the next
// run reads the rest and is finished. A transaction holding an id in another database all
// along holds nothing back: it is the snapshot's xmin, which bounded pulls before.
func TestRunHeldBackByARunningPush(t *testing.T) {
	ctx := context.Background()
	url := remote.NewTestWorld(t)
	idle, err := pgx.Connect(ctx, url("bob")+"&dbname=postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close(ctx)
	var db string
	if err := idle.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil || db != "postgres" {
		t.Fatalf("the idle session is in %q (%v), want another database", db, err)
	}
	idleTx, err := idle.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idleTx.Rollback(ctx)
	if _, err := idleTx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	alice, err := remote.Connect(ctx, url("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close(ctx)
	before, after := records(t, 25, "before"), records(t, 25, "after")
	if _, err := alice.Push(ctx, before); err != nil {
		t.Fatal(err)
	}
	tx := pgtest.Begin(t, url("alice"))
	late := records(t, 1, "late")[0]
	if _, err := tx.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		VALUES ($1, 'observation', 'laptop', 'p', now(), $2)`, late.GID, string(late.Body)); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Push(ctx, after); err != nil {
		t.Fatal(err)
	}
	l := &puller{have: map[string]int{}}
	o := sync.Options{Server: "s", Batch: 10}
	for round := range 2 {
		res, err := sync.Run(ctx, l, alice, sync.Pull, o)
		if err != nil || res.Finished || len(l.have) != len(before) {
			t.Fatalf("run %d while a push runs: %+v, %v; have %d, want the %d before it, unfinished", round, res, err, len(l.have), len(before))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := sync.Run(ctx, l, alice, sync.Pull, o)
	if err != nil || !res.Finished || res.Pulled != len(after)+1 {
		t.Fatalf("run after the push: %+v, %v; want %d pulled, finished", res, err, len(after)+1)
	}
	for _, r := range append(append(before, after...), late) {
		if l.have[r.GID] != 1 {
			t.Fatalf("%s stored %d times", r.GID, l.have[r.GID])
		}
	}
}
