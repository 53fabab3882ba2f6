package remote

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/sync/server"
)

// BenchmarkStage compares Push's two ways into the records table at equal batch sizes, the
// measure behind CopyMin (each batch rolled back, so every round inserts the same rows):
//
//	go test -run '^$' -bench Stage -benchtime 10x ./sync/remote
func BenchmarkStage(b *testing.B) {
	s := pgtest.Shared(b)
	db := s.NewDB(b)
	su, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		b.Fatal(err)
	}
	defer su.Close(ctx)
	if _, err := server.Install(ctx, su); err != nil {
		b.Fatal(err)
	}
	s.CreatePerson(b, "alice", pw("alice"))
	s.Exec(b, db, "GRANT "+server.UserRole+" TO alice")
	c, err := Connect(ctx, s.SocketURL("alice", pw("alice"), db))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	for _, n := range []int{100, 1000, 10000} {
		rows := make([]staged, n)
		for i := range rows {
			var ok bool
			if rows[i], ok = check(obs(b, "p", "laptop", fmt.Sprintf("o%d", i))); !ok {
				b.Fatal("not well formed")
			}
		}
		for name, insert := range map[string]func(pgx.Tx, []staged) error{
			"arrays": func(tx pgx.Tx, r []staged) error { return insertByArrays(ctx, tx, r) },
			"copy":   func(tx pgx.Tx, r []staged) error { return insertByCopy(ctx, tx, r, lockRecords) },
		} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					tx, err := c.conn.Begin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if err := insert(tx, rows); err != nil {
						b.Fatal(err)
					}
					tx.Rollback(ctx)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}
