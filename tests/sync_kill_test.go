//go:build linux

package tests

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/sync/server"
)

// The sync process SIGKILLed at random points, 100 times, on two machines of one person:
// then one whole run each, and both hold the same set of global ids as the server, with no
// duplicate anywhere.
func TestSyncKilledConverges(t *testing.T) {
	srv := pgtest.Start(t)
	db := srv.NewDB(t)
	ctx := context.Background()
	const pw = "Kill-pg-5b3c"
	srv.CreatePerson(t, "alice", pw)
	h := newHarness(t)
	admin := h.runIn(h.proj, nil, map[string]string{"CLAUDE_MEM_SYNC_URL": srv.DSN(db)}, "sync", "init")
	if admin.code != 0 {
		t.Fatalf("sync init: %+v", admin)
	}
	srv.Exec(t, db, "GRANT "+server.UserRole+" TO alice")

	machines := []string{"laptop", "desk"}
	dirs := map[string]string{}
	for i, m := range machines {
		dirs[m] = filepath.Join(h.root, m)
		mdb, err := memory.Memory{DataDir: dirs[m]}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		if err := seed.Observations(ctx, mdb, []string{"payments-api", "ledger"}[i], 1500, time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		mdb.Close()
	}
	env := func(m string) []string {
		return h.environ(map[string]string{"CLAUDE_MEM_DATA_DIR": dirs[m], "CLAUDE_MEM_SYNC_URL": srv.SocketURL("alice", "", db),
			"PGPASSWORD": pw, "CLAUDE_MEM_MACHINE": m})
	}
	rng := rand.New(rand.NewPCG(34, 100))
	killed := 0
	for i := range 100 {
		m := machines[i%2]
		// Something new to push at every run, so that a kill finds work under way.
		mdb, err := memory.Memory{DataDir: dirs[m]}.OpenWrite()
		if err != nil {
			t.Fatal(err)
		}
		if err := seed.Observations(ctx, mdb, "payments-api", 20, time.Date(2026, 11, 2, 9, i, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		mdb.Close()
		cmd := exec.Command(hookBin, "sync")
		cmd.Env, cmd.Dir = env(m), h.proj
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d on %s, not killed, failed: %v", i, m, err)
			}
		case <-time.After(time.Duration(rng.IntN(300)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			if err := <-done; err != nil {
				killed++
			}
		}
	}
	if killed == 0 {
		t.Fatal("no run was killed before it ended: the test proved nothing")
	}
	for _, m := range []string{"laptop", "desk", "laptop"} {
		if r := h.runEnv(h.proj, nil, env(m), "sync"); r.code != 0 {
			t.Fatalf("the whole run on %s: %+v", m, r)
		}
	}
	// Every global id a store holds (its own records' and the pulled ones'), sorted, and
	// how many rows carry one more than once.
	gids := func(m string) ([]string, int) {
		ldb, err := sql.Open("sqlite", "file:"+filepath.Join(dirs[m], "claude-mem.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer ldb.Close()
		return column(t, ldb, "SELECT gid FROM sync_ids ORDER BY gid"),
			atoi(t, column(t, ldb, "SELECT count(*) - count(DISTINCT gid) FROM sync_ids")[0])
	}
	pg, err := pgx.Connect(ctx, srv.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	rows, err := pg.Query(ctx, "SELECT gid::text FROM claude_mem.records WHERE NOT deleted ORDER BY gid")
	if err != nil {
		t.Fatal(err)
	}
	onServer, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(onServer) < 5000 {
		t.Fatalf("the server holds %d records, fewer than the 5,000 observations made", len(onServer))
	}
	for _, m := range machines {
		got, dups := gids(m)
		if digest(got) != digest(onServer) || dups != 0 {
			t.Errorf("%s holds %d gids (digest %s, %d duplicated), the server %d (%s)", m, len(got), digest(got), dups, len(onServer), digest(onServer))
		}
	}
	t.Logf("%d of 100 runs killed; %d records converged on both machines and the server (digest %s)", killed, len(onServer), digest(onServer))
}

// digest is a short hash of a sorted id list.
func digest(ids []string) string {
	sum := sha256.Sum256([]byte(strings.Join(ids, ",")))
	return hex.EncodeToString(sum[:8])
}

func column(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
