//go:build unix

// Command sync measures the sync client against a real PostgreSQL 15 server that it starts
// (internal/pgtest; as nobody when run as root):
//
//	go run ./bench/sync [-n 100000] [-batch 10000] [-page 5000] [-sessions 50] [-check] [-cpuprofile FILE]
//
// It reports:
//
//   - push of n observations in batches of -batch (COPY into a staging table from
//     remote.CopyMin records), records/s; the same with batches of 1,000 (array INSERTs);
//   - pull of the n by their owner, and by a teammate through a share (row-level security
//     then also checks the share), pages of -page, records/s;
//   - an incremental session: 20 records pushed, then pulled by another machine of the
//     same person, -sessions times: p50 and p95 of push and of pull;
//   - the whole path: n observations seeded in a local store pushed by sync.Run, then
//     pulled by another machine into its store, records/s.
//
// With -check it exits 1 when the push or the owner's pull of n takes 60 s or more.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/memory"
	memsync "github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/remote"
	"github.com/claude-mem/claude-mem-go/sync/server"
	"github.com/claude-mem/claude-mem-go/sync/wire"
)

func main() {
	n := flag.Int("n", 100000, "observations to push and pull")
	batch := flag.Int("batch", 10000, "records per push")
	page := flag.Int("page", 5000, "records per pull")
	sessions := flag.Int("sessions", 50, "incremental sessions of 20 records")
	check := flag.Bool("check", false, "exit 1 when push or pull of -n takes 60 s or more")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the store to store pull to this file")
	flag.Parse()
	cpuProfile = *profile
	if err := run(*n, *batch, *page, *sessions, *check); err != nil {
		fmt.Fprintln(os.Stderr, "bench/sync:", err)
		os.Exit(1)
	}
}

// cpuProfile is where the store to store pull's CPU profile goes, "" for none.
var cpuProfile string

// limit is the bound on a push or a pull of 100,000 observations.
const limit = 60 * time.Second

func run(n, batch, page, sessions int, check bool) error {
	ctx := context.Background()
	s, err := pgtest.Launch()
	if err != nil {
		return err
	}
	defer s.Stop()
	const pw = "bench-pw"
	for _, p := range []string{"alice", "bob", "dana"} {
		if err := s.Person(p, pw); err != nil {
			return err
		}
	}
	db := func(name string) (string, error) {
		su, err := pgx.Connect(ctx, s.DSN("postgres"))
		if err != nil {
			return "", err
		}
		defer su.Close(ctx)
		if _, err := su.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			return "", err
		}
		c, err := pgx.Connect(ctx, s.DSN(name))
		if err != nil {
			return "", err
		}
		defer c.Close(ctx)
		if _, err := server.Install(ctx, c); err != nil {
			return "", err
		}
		_, err = c.Exec(ctx, "GRANT claude_mem_user TO alice, bob, dana; GRANT claude_mem_admin TO dana")
		return name, err
	}
	connect := func(db, who string) (*remote.Client, error) {
		return remote.Connect(ctx, s.SocketURL(who, pw, db))
	}
	recs := observations(n)
	fmt.Printf("PostgreSQL 15 at %s, %d observations of %d bytes of body on average\n", s.SocketDir, n, avgBody(recs))

	failed := false
	for _, b := range []int{batch, 1000} {
		name, err := db(fmt.Sprintf("push%d", b))
		if err != nil {
			return err
		}
		alice, err := connect(name, "alice")
		if err != nil {
			return err
		}
		how := "COPY into staging"
		if b < remote.CopyMin {
			how = "INSERT of arrays"
		}
		start := time.Now()
		for i := 0; i < len(recs); i += b {
			got, err := alice.Push(ctx, recs[i:min(i+b, len(recs))])
			if err != nil {
				return err
			}
			if len(got.Refused) > 0 {
				return fmt.Errorf("push refused %d", len(got.Refused))
			}
		}
		d := time.Since(start)
		fmt.Printf("push  %6d in batches of %5d (%s): %7.2f s, %8.0f records/s\n", n, b, how, d.Seconds(), float64(n)/d.Seconds())
		failed = failed || (b == batch && d >= limit)
		if b != batch {
			alice.Close(ctx)
			continue
		}
		// Pull by the owner, then share and pull as a teammate.
		d, got, err := pullAll(ctx, alice, page)
		if err != nil {
			return err
		}
		fmt.Printf("pull  %6d by their owner, pages of %d:           %7.2f s, %8.0f records/s\n", got, page, d.Seconds(), float64(got)/d.Seconds())
		failed = failed || d >= limit || got != n
		dana, err := connect(name, "dana")
		if err != nil {
			return err
		}
		if err := dana.CreateTeam(ctx, "core"); err != nil {
			return err
		}
		for _, p := range []string{"alice", "bob"} {
			if err := dana.AddMember(ctx, "core", p); err != nil {
				return err
			}
		}
		if err := alice.Share(ctx, "github.com/acme/payments-api", "core"); err != nil {
			return err
		}
		bob, err := connect(name, "bob")
		if err != nil {
			return err
		}
		d, got, err = pullAll(ctx, bob, page)
		if err != nil {
			return err
		}
		fmt.Printf("pull  %6d by a teammate (shared), pages of %d:   %7.2f s, %8.0f records/s\n", got, page, d.Seconds(), float64(got)/d.Seconds())
		if got != n {
			return fmt.Errorf("the teammate pulled %d of %d", got, n)
		}
		dana.Close(ctx)
		bob.Close(ctx)
		alice.Close(ctx)
	}

	// Incremental sessions: laptop pushes 20, desktop (same person) pulls them.
	name, err := db("incremental")
	if err != nil {
		return err
	}
	laptop, err := connect(name, "alice")
	if err != nil {
		return err
	}
	defer laptop.Close(ctx)
	desktop, err := connect(name, "alice")
	if err != nil {
		return err
	}
	defer desktop.Close(ctx)
	var pushes, pulls []time.Duration
	var cur wire.Cursor
	for range sessions {
		batch := observations(20)
		t0 := time.Now()
		if _, err := laptop.Push(ctx, batch); err != nil {
			return err
		}
		t1 := time.Now()
		p, err := desktop.Pull(ctx, cur, 1000)
		if err != nil {
			return err
		}
		pulls = append(pulls, time.Since(t1))
		pushes = append(pushes, t1.Sub(t0))
		if len(p.Records) != 20 {
			return fmt.Errorf("incremental pull got %d of 20", len(p.Records))
		}
		cur = p.Next
	}
	fmt.Printf("session of 20: push p50 %v p95 %v; pull p50 %v p95 %v (%d sessions)\n",
		pct(pushes, 50), pct(pushes, 95), pct(pulls, 50), pct(pulls, 95), sessions)
	// The whole path: n observations seeded in a local store, pushed by sync.Run through
	// the store (redactor again, gids, marks), then pulled by another machine into its own
	// store (validation, clipping, local ids, index), in the product's batches.
	name, err = db("store")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-sync-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	stores := map[string]memsync.Store{}
	for _, m := range []string{"laptop", "desktop"} {
		db, err := memory.Memory{DataDir: filepath.Join(dir, m)}.OpenWrite()
		if err != nil {
			return err
		}
		stores[m] = memory.SyncStore(db, memory.SyncHere(m, "", time.UTC))
		defer stores[m].Close()
		if m == "laptop" {
			t0 := time.Now()
			if err := seed.Observations(ctx, db, "payments-api", n, time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)); err != nil {
				return err
			}
			fmt.Printf("seeded %d observations locally in %.1f s\n", n, time.Since(t0).Seconds())
		}
	}
	for _, step := range []struct {
		machine string
		d       memsync.Direction
	}{{"laptop", memsync.Push}, {"desktop", memsync.Pull}} {
		c, err := connect(name, "alice")
		if err != nil {
			return err
		}
		stop := func() {}
		if cpuProfile != "" && step.d == memsync.Pull {
			if stop, err = startProfile(cpuProfile); err != nil {
				return err
			}
		}
		start := time.Now()
		res, err := memsync.Run(ctx, stores[step.machine], c, step.d, memsync.Options{Server: "bench"})
		stop()
		c.Close(ctx)
		if err != nil {
			return err
		}
		d := time.Since(start)
		got := res.Pushed + res.Pulled
		fmt.Printf("%-5s %6d store to store (sync.Run, batches of %d): %7.2f s, %8.0f records/s\n", step.d, got, memsync.DefaultBatch, d.Seconds(), float64(got)/d.Seconds())
		failed = failed || d >= limit || got < n
	}
	if check && failed {
		return fmt.Errorf("a push or pull of %d took %v or more", n, limit)
	}
	return nil
}

// startProfile starts a CPU profile into path; the func returned stops it.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func pullAll(ctx context.Context, c *remote.Client, page int) (time.Duration, int, error) {
	start := time.Now()
	var cur wire.Cursor
	got := 0
	for {
		p, err := c.Pull(ctx, cur, page)
		if err != nil {
			return 0, 0, err
		}
		got += len(p.Records)
		cur = p.Next
		if !p.More {
			return time.Since(start), got, nil
		}
	}
}

// observations are n observations of one project, bodies of a realistic size.
func observations(n int) []wire.Record {
	sess := uuid.Must(uuid.NewV7()).String()
	at := time.Now().UTC().Truncate(time.Millisecond)
	out := make([]wire.Record, n)
	for i := range out {
		body, _ := json.Marshal(wire.ObservationBody{
			Type:      "discovery",
			Title:     fmt.Sprintf("The payments webhook verifies the HMAC before parsing (%d)", i),
			Narrative: "The handler reads the raw body, computes the HMAC-SHA256 with the shared secret from the vault, and compares it in constant time before any JSON is parsed; a mismatch answers 401 and logs the delivery id.",
			Facts:     []string{"webhook.go verifies first", "the secret rotates monthly"},
			Concepts:  []string{"how-it-works", "security"},
			FilesRead: []string{"internal/webhook/webhook.go"},
		})
		out[i] = wire.Record{GID: uuid.Must(uuid.NewV7()).String(), Kind: wire.Observation,
			Project: "github.com/acme/payments-api", Session: sess, Machine: "laptop",
			At: at.Add(time.Duration(i) * time.Millisecond), Body: body}
	}
	return out
}

func avgBody(recs []wire.Record) int {
	total := 0
	for _, r := range recs {
		total += len(r.Body)
	}
	return total / max(len(recs), 1)
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(10 * time.Microsecond)
}
