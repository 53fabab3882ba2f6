package server

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/claude-mem/claude-mem-go/internal/pgtest"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var ctx = context.Background()

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// installed is a fresh database with the schema, and the superuser's connection to it.
func installed(t *testing.T) (*pgtest.Server, string, *pgx.Conn) {
	t.Helper()
	s := pgtest.Shared(t)
	db := s.NewDB(t)
	su := connect(t, s.DSN(db))
	if _, err := Install(ctx, su); err != nil {
		t.Fatal(err)
	}
	return s, db, su
}

func TestInstallThenCheck(t *testing.T) {
	s := pgtest.Shared(t)
	su := connect(t, s.DSN(s.NewDB(t)))
	if err := Check(ctx, su); !errors.Is(err, ErrSchemaOlder) {
		t.Fatalf("Check before install = %v, want ErrSchemaOlder", err)
	}
	done, err := Install(ctx, su)
	if err != nil || done.From != 0 {
		t.Fatalf("Install = %+v, %v", done, err)
	}
	if err := Check(ctx, su); err != nil {
		t.Fatalf("Check after install = %v", err)
	}
	if done, err := Install(ctx, su); err != nil || done.From != Version {
		t.Fatalf("second Install = %+v, %v; want from %d, nil", done, err, Version)
	}
	// A build that knows one more version finds this server older...
	if err := check(ctx, su, Version+1); !errors.Is(err, ErrSchemaOlder) {
		t.Fatalf("check by a newer build = %v, want ErrSchemaOlder", err)
	}
	// ...and once it upgraded it, this build finds it newer, and will not install over it.
	next := append(append([]string{}, migrations...), "COMMENT ON SCHEMA claude_mem IS 'v2'")
	if done, err := install(ctx, su, next); err != nil || done.From != Version {
		t.Fatalf("upgrade = %+v, %v", done, err)
	}
	if err := Check(ctx, su); !errors.Is(err, ErrSchemaNewer) || errors.Is(err, ErrSchemaOlder) {
		t.Fatalf("Check after upgrade = %v, want ErrSchemaNewer", err)
	}
	if _, err := Install(ctx, su); !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("Install over a newer schema = %v, want ErrSchemaNewer", err)
	}
	var v int
	if err := su.QueryRow(ctx, "SELECT version FROM claude_mem.schema_version").Scan(&v); err != nil || v != Version+1 {
		t.Fatalf("version after refused install = %d, %v", v, err)
	}
}

// Installs from several machines at once: all wait on the advisory lock, then the first
// installs and the rest find it done. The control: the same schema made by two transactions
// without the lock, one waiting on the other, fails.
func TestConcurrentInstalls(t *testing.T) {
	s := pgtest.Shared(t)
	db := s.NewDB(t)
	holder := connect(t, s.DSN(db))
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
		t.Fatal(err)
	}
	const n = 4
	froms := make([]Installed, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c := connect(t, s.DSN(db))
		wg.Go(func() { froms[i], errs[i] = Install(ctx, c) })
	}
	waiting(t, holder, "advisory", n)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	fresh := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("install %d: %v", i, errs[i])
		}
		if froms[i].From == 0 {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d installs found no schema, want exactly 1 (froms %v)", fresh, froms)
	}
	if err := Check(ctx, holder); err != nil {
		t.Fatal(err)
	}

	// Control: without the lock the second transaction fails once the first commits.
	db2 := s.NewDB(t)
	a, b := connect(t, s.DSN(db2)), connect(t, s.DSN(db2))
	txa, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := txa.Exec(ctx, bootstrap); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		txb, err := b.Begin(ctx)
		if err == nil {
			_, err = txb.Exec(ctx, bootstrap)
			txb.Rollback(ctx)
		}
		done <- err
	}()
	waiting(t, a, "transactionid", 1)
	if err := txa.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("control: two unlocked installs both succeeded; the lock would prove nothing")
	}
}

// waiting waits until n other sessions of the database wait on a lock of the given kind.
func waiting(t *testing.T, c *pgx.Conn, event string, n int) {
	t.Helper()
	testkit.Eventually(t, pgtest.StartWait, "sessions waiting on a lock", func() bool {
		var k int
		err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = $1`, event).Scan(&k)
		return err == nil && k >= n
	})
}

// Every relation of the schema has RLS enabled and forced and at least one policy; the
// control is a table of each wrong kind, each found by the same walk, and an install whose
// migration leaves one is refused whole.
func TestEveryTableGuarded(t *testing.T) {
	_, _, su := installed(t)
	bad, err := unguarded(ctx, su)
	if err != nil || len(bad) != 0 {
		t.Fatalf("unguarded = %v, %v", bad, err)
	}
	var tables int
	if err := su.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'claude_mem' AND c.relkind = 'r'`).Scan(&tables); err != nil || tables != 5 {
		t.Fatalf("%d tables (%v); the walk must see all 5", tables, err)
	}
	for _, ddl := range []string{
		"CREATE TABLE claude_mem.open (x int)",
		"CREATE TABLE claude_mem.open (x int); ALTER TABLE claude_mem.open ENABLE ROW LEVEL SECURITY",
		"CREATE TABLE claude_mem.open (x int); ALTER TABLE claude_mem.open ENABLE ROW LEVEL SECURITY; ALTER TABLE claude_mem.open FORCE ROW LEVEL SECURITY",
		"CREATE VIEW claude_mem.open AS SELECT * FROM claude_mem.records",
	} {
		tx, err := su.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
		bad, err := unguarded(ctx, tx)
		tx.Rollback(ctx)
		if err != nil || len(bad) != 1 || bad[0] != "open" {
			t.Fatalf("control %q: unguarded = %v, %v", ddl, bad, err)
		}
	}
	next := append(append([]string{}, migrations...), "CREATE TABLE claude_mem.open (x int)")
	if _, err := install(ctx, su, next); !errors.Is(err, ErrUnguarded) {
		t.Fatalf("install with an open table = %v, want ErrUnguarded", err)
	}
	if err := Check(ctx, su); err != nil {
		t.Fatalf("the refused install changed the schema: %v", err)
	}
}

// attempts counts an attack test's attempts, those refused, and the allowed controls.
type attempts struct {
	t                         *testing.T
	tried, refused, allowedOK int
}

// refuse runs sql as who and wants it refused: an error, or no row touched or returned.
func (a *attempts) refuse(who *pgx.Conn, what, sql string, args ...any) {
	a.t.Helper()
	a.tried++
	n, err := touched(who, sql, args...)
	if err == nil && n != 0 {
		a.t.Errorf("ATTACK SUCCEEDED: %s: %d rows", what, n)
		return
	}
	a.refused++
}

// allow runs sql as who and wants rows touched: the control beside an attack.
func (a *attempts) allow(who *pgx.Conn, what, sql string, args ...any) {
	a.t.Helper()
	n, err := touched(who, sql, args...)
	if err != nil || n == 0 {
		a.t.Errorf("control %s: %d rows, %v", what, n, err)
		return
	}
	a.allowedOK++
}

// touched is the rows a statement returned (a SELECT) or changed, in a transaction rolled
// back, so each attempt starts from the same state.
func touched(c *pgx.Conn, sql string, args ...any) (int64, error) {
	tx, err := c.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	var n int64
	for rows.Next() {
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if tag := rows.CommandTag(); !tag.Select() {
		n = tag.RowsAffected()
	}
	return n, nil
}

// A person as themself with psql (here pgx with the same SQL) reads and writes only what the
// policies allow (ISSUE35): each attack beside its allowed control.
func TestAttacksAsPeople(t *testing.T) {
	s, db, su := installed(t)
	for _, p := range []string{"alice", "bob", "carol", "dana"} {
		s.CreatePerson(t, p, p+"-pw")
		s.Exec(t, db, "GRANT "+UserRole+" TO "+p)
	}
	s.Exec(t, db, "GRANT "+AdminRole+" TO dana")
	alice := connect(t, s.SocketURL("alice", "alice-pw", db))
	bob := connect(t, s.SocketURL("bob", "bob-pw", db))
	carol := connect(t, s.SocketURL("carol", "carol-pw", db))
	dana := connect(t, s.SocketURL("dana", "dana-pw", db))
	mustExec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	const ins = `INSERT INTO claude_mem.records (gid, kind, machine, project, session, at, body)
		VALUES ($1, $2, 'laptop', $3, NULL, now(), '{"title":"t"}')`
	const (
		privObs   = "01900000-0000-7000-8000-000000000001"
		sharedObs = "01900000-0000-7000-8000-000000000002"
		prompt    = "01900000-0000-7000-8000-000000000003"
		bobObs    = "01900000-0000-7000-8000-000000000004"
		unshared  = "01900000-0000-7000-8000-000000000005"
	)
	mustExec(alice, ins, privObs, "observation", "github.com/alice/diary")
	mustExec(alice, ins, sharedObs, "observation", "github.com/acme/payments-api")
	mustExec(alice, ins, prompt, "prompt", "github.com/acme/payments-api")
	mustExec(alice, ins, unshared, "observation", "github.com/acme/ledger")
	mustExec(bob, ins, bobObs, "observation", "github.com/acme/payments-api")
	mustExec(dana, "INSERT INTO claude_mem.teams (name) VALUES ('core'), ('ops')")
	mustExec(dana, "INSERT INTO claude_mem.members (team, person) VALUES ('core', 'alice'), ('core', 'bob'), ('ops', 'carol')")
	mustExec(alice, "INSERT INTO claude_mem.shares (project, team) VALUES ('github.com/acme/payments-api', 'core'), ('github.com/acme/ledger', 'core')")
	mustExec(alice, "DELETE FROM claude_mem.shares WHERE project = 'github.com/acme/ledger'")
	mustExec(su, "ANALYZE claude_mem.records")

	a := &attempts{t: t}
	sel := "SELECT gid FROM claude_mem.records WHERE gid = $1"
	// Reading.
	a.refuse(bob, "Bob reads Alice's private project", sel, privObs)
	a.allow(alice, "Alice reads her private project", sel, privObs)
	a.refuse(bob, "Bob reads Alice's prompt in the shared project", sel, prompt)
	a.allow(alice, "Alice reads her prompt", sel, prompt)
	a.allow(bob, "Bob reads the shared project", sel, sharedObs)
	a.refuse(carol, "Carol (not in core) reads the shared project", sel, sharedObs)
	a.refuse(bob, "Bob reads a project unshared from his team", sel, unshared)
	a.refuse(bob, "Bob reads all records (only his own and the shared one)",
		"SELECT gid FROM claude_mem.records WHERE gid NOT IN ($1, $2)", bobObs, sharedObs)
	a.refuse(carol, "Carol reads team core's members", "SELECT person FROM claude_mem.members WHERE team = 'core'")
	a.allow(bob, "Bob reads his team's members", "SELECT person FROM claude_mem.members WHERE team = 'core' AND person = 'alice'")
	a.refuse(carol, "Carol reads core's shares", "SELECT id FROM claude_mem.shares")
	// Changing Alice's rows.
	for _, gid := range []string{privObs, sharedObs, prompt, unshared} {
		a.refuse(bob, "Bob tombstones Alice's row "+gid,
			"UPDATE claude_mem.records SET deleted = true, body = NULL WHERE gid = $1", gid)
		a.refuse(bob, "Bob rewrites Alice's row "+gid,
			`UPDATE claude_mem.records SET body = '{"title":"pwned"}' WHERE gid = $1`, gid)
		a.refuse(bob, "Bob deletes Alice's row "+gid, "DELETE FROM claude_mem.records WHERE gid = $1", gid)
	}
	a.refuse(bob, "Bob locks Alice's shared row against her tombstone",
		"SELECT gid FROM claude_mem.records WHERE gid = $1 FOR UPDATE", sharedObs)
	a.allow(alice, "Alice locks her row", "SELECT gid FROM claude_mem.records WHERE gid = $1 FOR UPDATE", sharedObs)
	a.refuse(bob, "Bob reads Alice's private values from the planner's statistics",
		"SELECT attname FROM pg_stats WHERE schemaname = 'claude_mem' AND tablename = 'records'")
	a.allow(su, "the superuser reads the statistics (ANALYZE ran)",
		"SELECT attname FROM pg_stats WHERE schemaname = 'claude_mem' AND tablename = 'records'")
	a.allow(alice, "Alice tombstones her row", "UPDATE claude_mem.records SET deleted = true, body = NULL WHERE gid = $1", sharedObs)
	a.refuse(alice, "Alice rewrites her row (only a tombstone may change it)",
		`UPDATE claude_mem.records SET body = '{"title":"x"}' WHERE gid = $1`, sharedObs)
	a.refuse(alice, "Alice deletes her row (a tombstone, never a delete)", "DELETE FROM claude_mem.records WHERE gid = $1", sharedObs)
	a.refuse(bob, "Bob takes Alice's row as his", "UPDATE claude_mem.records SET owner = 'bob' WHERE gid = $1", sharedObs)
	a.refuse(alice, "Alice hands her row to Bob", "UPDATE claude_mem.records SET owner = 'bob' WHERE gid = $1", sharedObs)
	a.refuse(alice, "Alice moves her row in the pull order", "UPDATE claude_mem.records SET seq = 1 WHERE gid = $1", sharedObs)
	// Inserting as someone else.
	a.refuse(bob, "Bob inserts a row owned by Alice",
		`INSERT INTO claude_mem.records (gid, kind, owner, machine, project, at, body)
		 VALUES ('01900000-0000-7000-8000-0000000000aa', 'observation', 'alice', 'x', 'github.com/acme/payments-api', now(), '{}')`)
	a.refuse(bob, "Bob inserts a row with a forged sequence",
		`INSERT INTO claude_mem.records (gid, kind, machine, project, at, body, seq)
		 VALUES ('01900000-0000-7000-8000-0000000000ab', 'observation', 'x', 'p', now(), '{}', 1)`)
	a.refuse(bob, "Bob overwrites Alice's gid by insert",
		`INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		 VALUES ($1, 'observation', 'x', 'p', now(), '{"title":"pwned"}')
		 ON CONFLICT (gid) DO UPDATE SET body = excluded.body`, sharedObs)
	a.allow(bob, "Bob inserts his own row",
		`INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		 VALUES ('01900000-0000-7000-8000-0000000000ac', 'observation', 'x', 'p', now(), '{}') RETURNING owner`)
	// Teams and shares.
	a.refuse(bob, "Bob adds himself to team ops", "INSERT INTO claude_mem.members (team, person) VALUES ('ops', 'bob')")
	a.refuse(bob, "Bob adds Carol to his team", "INSERT INTO claude_mem.members (team, person) VALUES ('core', 'carol')")
	a.refuse(bob, "Bob removes Alice from core", "DELETE FROM claude_mem.members WHERE person = 'alice'")
	a.refuse(bob, "Bob creates a team", "INSERT INTO claude_mem.teams (name) VALUES ('bobs')")
	a.allow(dana, "the admin adds Carol to core", "INSERT INTO claude_mem.members (team, person) VALUES ('core', 'carol')")
	a.refuse(bob, "Bob unshares Alice's project", "DELETE FROM claude_mem.shares WHERE project = 'github.com/acme/payments-api'")
	a.refuse(carol, "Carol shares her project with a team she is not in",
		"INSERT INTO claude_mem.shares (project, team) VALUES ('p', 'core')")
	a.allow(bob, "Bob shares his project with his team",
		"INSERT INTO claude_mem.shares (project, team) VALUES ('github.com/bob/tools', 'core')")
	a.refuse(bob, "Bob shares a project in Alice's name",
		"INSERT INTO claude_mem.shares (owner, project, team) VALUES ('alice', 'github.com/alice/diary', 'core')")
	a.refuse(bob, "Bob turns off forced RLS", "ALTER TABLE claude_mem.records NO FORCE ROW LEVEL SECURITY")
	a.refuse(bob, "Bob changes the schema version", "UPDATE claude_mem.schema_version SET version = 99")
	a.refuse(bob, "Bob reads records through a view of his own",
		"CREATE VIEW claude_mem.peek AS SELECT * FROM claude_mem.records")

	// Bob, allowed to make a schema (as some hosted servers allow), puts his own
	// pg_has_role first on his search_path: the policies' functions do not call it.
	s.Exec(t, db, "GRANT CREATE ON DATABASE "+db+" TO bob")
	mustExec(bob, "CREATE SCHEMA evil")
	mustExec(bob, "CREATE FUNCTION evil.pg_has_role(name, text, text) RETURNS boolean LANGUAGE sql AS 'SELECT true'")
	mustExec(bob, "CREATE FUNCTION evil.nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'")
	mustExec(bob, "SET search_path = evil, pg_catalog, claude_mem")
	var shadowed bool
	if err := bob.QueryRow(ctx, "SELECT pg_has_role('bob', 'claude_mem_admin', 'MEMBER')").Scan(&shadowed); err != nil || !shadowed {
		t.Fatalf("control: Bob's pg_has_role does not shadow the catalog's (%v, %v); the attack proves nothing", shadowed, err)
	}
	a.allowedOK++
	a.refuse(bob, "Bob, his pg_has_role first, reads team ops's members", "SELECT person FROM claude_mem.members WHERE team = 'ops'")
	a.tried++
	var seq int64
	if err := bob.QueryRow(ctx, "UPDATE claude_mem.records SET deleted = true, body = NULL WHERE gid = $1 RETURNING seq", bobObs).Scan(&seq); err != nil || seq == 1 {
		t.Errorf("ATTACK SUCCEEDED: Bob's nextval set his tombstone's seq to %d (%v)", seq, err)
	} else {
		a.refused++
	}

	// Alice's rows are as she wrote them (the refused attempts were rolled back anyway, so
	// this reads what the superuser sees).
	var owner string
	var deleted bool
	if err := su.QueryRow(ctx, "SELECT owner, deleted FROM claude_mem.records WHERE gid = $1", privObs).Scan(&owner, &deleted); err != nil || owner != "alice" || deleted {
		t.Fatalf("Alice's row: owner %q deleted %v, %v", owner, deleted, err)
	}
	t.Logf("attacks: %d attempts, %d refused; %d allowed controls passed", a.tried, a.refused, a.allowedOK)
	if a.refused != a.tried {
		t.Fatalf("%d of %d attacks refused", a.refused, a.tried)
	}
}

// isPg reports whether err is a PostgreSQL error of code.
func isPg(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// The owner of every row is the role that wrote it, whatever the client sends.
func TestOwnerIsCurrentUser(t *testing.T) {
	s, db, _ := installed(t)
	s.CreatePerson(t, "alice", "alice-pw")
	s.Exec(t, db, "GRANT "+UserRole+" TO alice")
	alice := connect(t, s.SocketURL("alice", "alice-pw", db))
	var owner string
	err := alice.QueryRow(ctx, `INSERT INTO claude_mem.records (gid, kind, machine, project, at, body)
		VALUES ('01900000-0000-7000-8000-0000000000f1', 'session', 'm', 'p', now(), '{}') RETURNING owner`).Scan(&owner)
	if err != nil || owner != "alice" {
		t.Fatalf("owner %q, %v", owner, err)
	}
	_, err = alice.Exec(ctx, `INSERT INTO claude_mem.records (gid, kind, owner, machine, project, at, body)
		VALUES ('01900000-0000-7000-8000-0000000000f2', 'session', 'bob', 'm', 'p', now(), '{}')`)
	if !isPg(err, "42501") { // insufficient_privilege
		t.Fatalf("insert naming another owner = %v, want permission denied", err)
	}
}
