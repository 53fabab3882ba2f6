package sync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

// machine is a fake Local: records it made (pushed or not) and records it pulled.
type machine struct {
	name    string
	mine    []wire.Record
	pushed  map[string]bool
	have    map[string]bool
	cursor  wire.Cursor
	applied int
}

func newMachine(name string, n int) *machine {
	m := &machine{name: name, pushed: map[string]bool{}, have: map[string]bool{}}
	for i := range n {
		gid := fmt.Sprintf("%s-%04d", name, i)
		m.mine = append(m.mine, wire.Record{GID: gid, Kind: wire.Observation, Machine: name})
		m.have[gid] = true
	}
	return m
}

func (m *machine) Outgoing(_ context.Context, limit int) ([]wire.Record, error) {
	var out []wire.Record
	for _, r := range m.mine {
		if !m.pushed[r.GID] && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *machine) Mark(_ context.Context, p wire.Pushed) error {
	for _, g := range append(p.Stored, p.Refused...) {
		m.pushed[g] = true
	}
	return nil
}

func (m *machine) Cursor(context.Context, string) (wire.Cursor, error) { return m.cursor, nil }

func (m *machine) Apply(_ context.Context, _, _ string, p wire.Page) error {
	for _, r := range p.Records {
		m.have[r.GID] = true
	}
	m.cursor = p.Next
	m.applied++
	return nil
}

// server is a fake Remote: an append-only log, idempotent by gid; fail, when set, is asked
// before each call and its error returned (a fault between two steps).
type server struct {
	log  []wire.Record
	ids  map[string]int // gid → how many times stored (must stay 1)
	fail func(op string) error
	held int // the newest records a push still running holds back from pulls
}

func newServer() *server { return &server{ids: map[string]int{}} }

func (s *server) Person() string { return "alice" }

func (s *server) Push(_ context.Context, recs []wire.Record) (wire.Pushed, error) {
	if s.fail != nil {
		if err := s.fail("push"); err != nil {
			return wire.Pushed{}, err
		}
	}
	var p wire.Pushed
	for _, r := range recs {
		if s.ids[r.GID] == 0 {
			s.log = append(s.log, r)
		}
		s.ids[r.GID] = 1
		p.Stored = append(p.Stored, r.GID)
	}
	return p, nil
}

func (s *server) Pull(_ context.Context, c wire.Cursor, limit int) (wire.Page, error) {
	if s.fail != nil {
		if err := s.fail("pull"); err != nil {
			return wire.Page{}, err
		}
	}
	from := 0
	if c != "" {
		fmt.Sscan(string(c), &from)
	}
	to := max(from, min(from+limit, len(s.log)-s.held))
	return wire.Page{Records: slices.Clone(s.log[from:to]), Next: wire.Cursor(fmt.Sprint(to)), More: to < len(s.log)}, nil
}

func TestRun_PushesThenPullsInBatches(t *testing.T) {
	srv := newServer()
	a, b := newMachine("a", 25), newMachine("b", 7)
	ctx := context.Background()
	var seen []Progress
	o := Options{Server: "s", Batch: 10, Progress: func(p Progress) { seen = append(seen, p) }}
	res, err := Run(ctx, a, srv, Both, o)
	if err != nil || !res.Finished || res.Pushed != 25 || res.Pulled != 25 {
		t.Fatalf("a: %+v %v", res, err)
	}
	if len(seen) == 0 || seen[len(seen)-1].Pushed != 25 {
		t.Fatalf("progress %+v", seen)
	}
	if res, err = Run(ctx, b, srv, Both, o); err != nil || res.Pushed != 7 || res.Pulled != 32 {
		t.Fatalf("b: %+v %v", res, err)
	}
	for i := range 25 {
		if !b.have[fmt.Sprintf("a-%04d", i)] {
			t.Fatalf("b lacks a-%04d", i)
		}
	}
	// Pull only: nothing of a's new records goes; push only: nothing is pulled.
	a.mine = append(a.mine, wire.Record{GID: "a-new"})
	if res, _ = Run(ctx, a, srv, Pull, o); res.Pushed != 0 || srv.ids["a-new"] != 0 {
		t.Fatalf("a pull-only pushed: %+v", res)
	}
	if res, _ = Run(ctx, a, srv, Push, o); res.Pushed != 1 || res.Pulled != 0 {
		t.Fatalf("a push-only: %+v", res)
	}
}

// A fault before or after any call, at random, many times: the machines end with every
// record, and the server holds each once.
func TestRun_FaultsAnywhereConverge(t *testing.T) {
	srv := newServer()
	ms := []*machine{newMachine("a", 137), newMachine("b", 91), newMachine("c", 58)}
	rng := rand.New(rand.NewPCG(1, 2))
	down := errors.New("connection reset")
	faults := 0
	srv.fail = func(string) error {
		if rng.IntN(4) == 0 {
			faults++
			return down
		}
		return nil
	}
	ctx := context.Background()
	for round := 0; round < 400; round++ {
		m := ms[rng.IntN(len(ms))]
		_, err := Run(ctx, m, srv, Both, Options{Server: "s", Batch: 1 + rng.IntN(40)})
		if err != nil && !errors.Is(err, down) {
			t.Fatal(err)
		}
	}
	srv.fail = nil
	for _, m := range ms {
		if _, err := Run(ctx, m, srv, Both, Options{Server: "s", Batch: 50}); err != nil {
			t.Fatal(err)
		}
	}
	if faults < 50 {
		t.Fatalf("only %d faults: the test did not test faults", faults)
	}
	if len(srv.log) != 137+91+58 {
		t.Fatalf("server holds %d records, want %d", len(srv.log), 137+91+58)
	}
	for _, m := range ms {
		if len(m.have) != len(srv.log) {
			t.Fatalf("%s has %d of %d", m.name, len(m.have), len(srv.log))
		}
	}
}

func TestRun_StopsAtItsDeadline(t *testing.T) {
	srv := newServer()
	a := newMachine("a", 100)
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	now := t0
	// Each batch costs a second of the fake clock; the run may start batches for 3.
	clock := func() time.Time { now = now.Add(time.Second); return now }
	res, err := Run(context.Background(), a, srv, Both, Options{Server: "s", Batch: 10, Now: clock, Deadline: t0.Add(3500 * time.Millisecond)})
	if err != nil || res.Finished || res.Pushed != 30 {
		t.Fatalf("%+v %v", res, err)
	}
	// The next run goes on where it stopped.
	res, err = Run(context.Background(), a, srv, Both, Options{Server: "s", Batch: 10})
	if err != nil || !res.Finished || res.Pushed != 70 || res.Pulled != 100 {
		t.Fatalf("%+v %v", res, err)
	}
}

// lazy stores nothing and refuses nothing: without the check, Run would push its first
// batch for ever.
type lazy struct{ server }

func (lazy) Push(context.Context, []wire.Record) (wire.Pushed, error) { return wire.Pushed{}, nil }

func TestRun_ServerThatTakesNothing(t *testing.T) {
	_, err := Run(context.Background(), newMachine("a", 3), &lazy{}, Push, Options{Server: "s"})
	if err == nil || !strings.Contains(err.Error(), "neither stored nor refused") {
		t.Fatalf("err %v", err)
	}
}

func TestExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "sync.lock")
	release, err := Exclusive(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Exclusive(context.Background(), path, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("second holder: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Exclusive(ctx, path, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting holder: %v", err)
	}
	release()
	r2, err := Exclusive(context.Background(), path, false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	r2()
}

func TestRecordAndNotice(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)
	var h health.Health
	Record(&h, "db.example:5432/mem", t0, Counts{Waiting: 4}, "", "")
	if h.Sync.LastSuccess != t0 || Notice(h.Sync, t0, time.UTC) != "" {
		t.Fatalf("success: %+v", h.Sync)
	}
	Record(&h, "db.example:5432/mem", t0.Add(time.Hour), Counts{Waiting: 5}, AuthFailed, "password authentication failed")
	if h.Sync.FailingSince != t0.Add(time.Hour) {
		t.Fatalf("failing since %v", h.Sync.FailingSince)
	}
	// Failing an hour: quiet (the backlog grew twice only).
	if n := Notice(h.Sync, t0.Add(2*time.Hour), time.UTC); n != "" {
		t.Fatalf("notice after an hour: %q", n)
	}
	Record(&h, "db.example:5432/mem", t0.Add(3*time.Hour), Counts{Waiting: 5}, AuthFailed, "password authentication failed")
	if h.Sync.FailingSince != t0.Add(time.Hour) {
		t.Fatal("a second failure moved FailingSince")
	}
	n := Notice(h.Sync, t0.Add(25*time.Hour), time.UTC)
	if !strings.Contains(n, "failed since 2026-12-01 18:00") || !strings.Contains(n, "PGPASSWORD") {
		t.Fatalf("notice after a day: %q", n)
	}
	problems, _ := Findings(h.Sync, time.UTC)
	if len(problems) != 1 || !strings.Contains(problems[0], "~/.pgpass") {
		t.Fatalf("findings %q", problems)
	}
	Record(&h, "db.example:5432/mem", t0.Add(26*time.Hour), Counts{Waiting: 6, Held: 2}, "", "")
	if !h.Sync.FailingSince.IsZero() || h.Sync.LastError != "" {
		t.Fatalf("success did not clear the failure: %+v", h.Sync)
	}
	if got := h.Sync.Backlog; !slices.Equal(got, []int{5, 5, 6}) {
		t.Fatalf("backlog %v", got)
	}
	if n := Notice(h.Sync, t0.Add(26*time.Hour), time.UTC); n != "" {
		t.Fatalf("5, 5, 6 is not growing at each run: %q", n)
	}
	Record(&h, "db.example:5432/mem", t0.Add(27*time.Hour), Counts{Waiting: 9}, "", "")
	if n := Notice(h.Sync, t0.Add(27*time.Hour), time.UTC); !strings.Contains(n, "9 records wait") {
		t.Fatalf("5, 6, 9 grows: %q", n)
	}
	_, notes := Findings(&health.Sync{Server: "s", Held: 2, Refused: 1}, time.UTC)
	if len(notes) != 2 {
		t.Fatalf("notes %q", notes)
	}
	// Another server: its state starts anew.
	Record(&h, "other", t0, Counts{}, "", "")
	if len(h.Sync.Backlog) != 1 {
		t.Fatalf("a new server kept the old backlog: %v", h.Sync.Backlog)
	}
}
