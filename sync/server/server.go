// Package server is the sync server's schema (DESIGN §25): the records every machine pushes
// and pulls, the teams, members and shares that say who may read what, and the row-level
// security that enforces it on the server. Install puts it on a database or upgrades it
// (`claude-mem sync init`); Check tells a client whether the server's schema is the one this
// build speaks.
package server

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Schema is the PostgreSQL schema holding every table.
const Schema = "claude_mem"

// UserRole is the group role every person belongs to; AdminRole may create teams and add
// and remove members. Install creates both and makes its caller an admin.
const (
	UserRole  = "claude_mem_user"
	AdminRole = "claude_mem_admin"
)

//go:embed schema.sql
var schemaV1 string

// migrations[i] takes the schema from version i to i+1.
var migrations = []string{schemaV1}

// Version is the schema version this build speaks.
var Version = len(migrations)

// lockKey is the advisory lock every Install takes: installs from several machines at once
// run one after the other, and each after the first finds the work done.
const lockKey int64 = 0x636c_6d65_6d73_796e // "clmemsyn"

// bootstrap is the version table (and the server's identity), made before any migration so a client can always ask
// which version a server has. Its writer is the installer alone (policy TO CURRENT_USER).
const bootstrap = `
CREATE SCHEMA IF NOT EXISTS claude_mem;
CREATE TABLE claude_mem.schema_version (
	one     boolean PRIMARY KEY DEFAULT true CHECK (one),
	version integer NOT NULL,
	-- This install's identity: a pull cursor of another server (a new database at the same
	-- URL) is known for what it is and the pull starts over.
	server  uuid NOT NULL DEFAULT gen_random_uuid()
);
ALTER TABLE claude_mem.schema_version ENABLE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.schema_version FORCE ROW LEVEL SECURITY;
CREATE POLICY version_read ON claude_mem.schema_version FOR SELECT USING (true);
CREATE POLICY version_install ON claude_mem.schema_version FOR ALL TO CURRENT_USER USING (true) WITH CHECK (true);
INSERT INTO claude_mem.schema_version (version) VALUES (0);
`

// ErrSchemaOlder says the server's schema is missing or older than this build: an admin
// runs `claude-mem sync init`. ErrSchemaNewer says a newer build installed it: upgrade
// claude-mem on this machine.
var (
	ErrSchemaOlder = errors.New("the sync server's schema is older than this claude-mem: run `claude-mem sync init`")
	ErrSchemaNewer = errors.New("the sync server's schema is newer than this claude-mem: upgrade claude-mem")
)

// SchemaError is a server schema of another version than this build's.
type SchemaError struct {
	Server, Build int // 0 for Server: none installed
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%v (server schema version %d, this build %d)", e.Unwrap(), e.Server, e.Build)
}

// Unwrap is ErrSchemaOlder or ErrSchemaNewer.
func (e *SchemaError) Unwrap() error {
	if e.Server > e.Build {
		return ErrSchemaNewer
	}
	return ErrSchemaOlder
}

// Install installs the schema on conn's database or upgrades it to Version, in one
// transaction under an advisory lock; it returns the version it found. It also renumbers
// records that a logical restore brought from another cluster (see renumber). A server newer than
// this build is left alone (ErrSchemaNewer). Its caller needs CREATEROLE (the roles) and
// becomes the tables' owner and an admin.
func Install(ctx context.Context, conn *pgx.Conn) (Installed, error) {
	return install(ctx, conn, migrations)
}

// Installed is what an Install found and did.
type Installed struct {
	From int // the schema version it found (0: none)
	// Renumbered is how many records a logical restore (pg_dump into another cluster) had
	// left with transaction ids ahead of this server's, now renumbered.
	Renumbered int64
}

func install(ctx context.Context, conn *pgx.Conn, migs []string) (done Installed, err error) {
	from := 0
	defer func() { done.From = from }()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return done, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
		return done, err
	}
	// Renumbering writes records, and every writer locks them before it takes a transaction
	// id (a pull reads below the oldest running one holding this lock: remote's boundQuery).
	// This one takes its id from the bootstrap or the migrations on; a fresh install has no
	// table to lock yet, nor rows.
	if _, err := tx.Exec(ctx, `DO $$ BEGIN
		IF to_regclass('claude_mem.records') IS NOT NULL THEN
			LOCK TABLE claude_mem.records IN ROW EXCLUSIVE MODE;
		END IF;
	END $$`); err != nil {
		return done, err
	}
	// Read committed: this statement sees what an install that held the lock committed.
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('claude_mem.schema_version') IS NOT NULL").Scan(&exists); err != nil {
		return done, err
	}
	if !exists {
		if _, err := tx.Exec(ctx, bootstrap); err != nil {
			return done, fmt.Errorf("sync server schema: %w", err)
		}
	}
	if err := tx.QueryRow(ctx, "SELECT version FROM claude_mem.schema_version").Scan(&from); err != nil {
		return done, err
	}
	if from > len(migs) {
		return done, &SchemaError{Server: from, Build: len(migs)}
	}
	for v := from; v < len(migs); v++ {
		if _, err := tx.Exec(ctx, migs[v]); err != nil {
			return done, fmt.Errorf("sync server schema version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(ctx, "UPDATE claude_mem.schema_version SET version = $1", len(migs)); err != nil {
		return done, err
	}
	if done.Renumbered, err = renumber(ctx, tx); err != nil {
		return done, fmt.Errorf("sync server: renumbering restored records: %w", err)
	}
	// A migration that left a table open is not installed at all.
	bad, err := unguarded(ctx, tx)
	if err != nil {
		return done, err
	}
	if len(bad) > 0 {
		return done, &UnguardedError{Relations: bad}
	}
	return done, tx.Commit(ctx)
}

// renumber gives new transaction ids and sequence numbers to the records whose ids are ahead
// of this cluster's: rows a pg_dump brought from another server, which pulls (reading below
// the oldest running transaction) would never reach, and behind which every new row would
// hide. The server's identity changes too, so every cursor starts over. Forced RLS is
// lifted for this transaction alone, for the installer to see every row (its owner may);
// the tombstone trigger too, as this is no tombstone.
func renumber(ctx context.Context, tx pgx.Tx) (int64, error) {
	if _, err := tx.Exec(ctx, "ALTER TABLE claude_mem.records NO FORCE ROW LEVEL SECURITY"); err != nil {
		return 0, err
	}
	var ahead bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM claude_mem.records WHERE txid > pg_current_xact_id())").Scan(&ahead); err != nil {
		return 0, err
	}
	var n int64
	if ahead {
		if _, err := tx.Exec(ctx, "ALTER TABLE claude_mem.records DISABLE TRIGGER records_tombstone"); err != nil {
			return 0, err
		}
		tag, err := tx.Exec(ctx, `UPDATE claude_mem.records SET txid = pg_current_xact_id(),
			seq = nextval('claude_mem.records_seq')`)
		if err != nil {
			return 0, err
		}
		n = tag.RowsAffected()
		if _, err := tx.Exec(ctx, `ALTER TABLE claude_mem.records ENABLE TRIGGER records_tombstone;
			UPDATE claude_mem.schema_version SET server = gen_random_uuid()`); err != nil {
			return 0, err
		}
	}
	_, err := tx.Exec(ctx, "ALTER TABLE claude_mem.records FORCE ROW LEVEL SECURITY")
	return n, err
}

// ErrUnguarded says a relation of the schema is open to anyone who can reach it: a view,
// or a table without row-level security enabled and forced, or without a policy.
var ErrUnguarded = errors.New("sync server schema: a relation without forced row-level security and policies")

// UnguardedError names the relations.
type UnguardedError struct{ Relations []string }

func (e *UnguardedError) Error() string { return fmt.Sprintf("%v: %v", ErrUnguarded, e.Relations) }

// Unwrap is ErrUnguarded.
func (e *UnguardedError) Unwrap() error { return ErrUnguarded }

// unguarded walks pg_class and pg_policies for the relations of the schema that row-level
// security does not guard. A view is always one: it reads its tables as its owner.
func unguarded(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]string, error) {
	rows, err := q.Query(ctx, `
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'claude_mem' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND (c.relkind NOT IN ('r', 'p') OR NOT c.relrowsecurity OR NOT c.relforcerowsecurity
       OR NOT EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = n.nspname AND p.tablename = c.relname))
ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Check returns nil when conn's server has the schema of this build, else a *SchemaError
// (errors.Is ErrSchemaOlder or ErrSchemaNewer).
func Check(ctx context.Context, conn *pgx.Conn) error {
	return check(ctx, conn, Version)
}

func check(ctx context.Context, conn *pgx.Conn, build int) error {
	var v int
	err := conn.QueryRow(ctx, "SELECT version FROM claude_mem.schema_version").Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000"): // no table, no schema
		return &SchemaError{Server: 0, Build: build}
	case err != nil:
		return err
	case v != build:
		return &SchemaError{Server: v, Build: build}
	}
	return nil
}
