package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// The local side of sync (DESIGN §25), migration 10. Every record that travels (sessions,
// observations, summaries, prompts) has a row in sync_ids: its global id, given by a
// trigger when the row is inserted, so no insert path (capture, an observer run, remember,
// import, a pull) can leave one without; its origin (author '' for this person's own
// records, machine '' for this machine's); and its push state. A side table leaves the
// wide tables and their full-text triggers as they are. A delete trigger is the one place
// that sees every forget path (an id, --session, --project, --all, --before), so it leaves
// the tombstone a push carries. sync_cursors keeps how far each server was pulled, with
// counts; sync_rejects what a pull refused, by reason; sync_projects the key across
// machines (project.Key) of each local project name.

// Push states of a record in sync_ids.
const (
	syncWaiting = "waiting" // this person's, not yet pushed
	syncPushed  = "pushed"  // the server holds it
	syncHeld    = "held"    // the redactor still finds a secret: never sent
	syncRefused = "refused" // the server refused it (a global id another person holds)
	syncPulled  = "pulled"  // came from a server: never pushed back
)

// syncTable is a kind that travels and its table; sessions' ids are text, the others'
// integers (stored in sync_ids as text).
type syncTable struct{ kind, table string }

var syncTables = []syncTable{
	{"session", "sessions"}, {"observation", "observations"}, {"summary", "summaries"}, {"prompt", "prompts"},
}

// sqlNowMillis is the clock of a trigger: SQLite gives one "now" to a whole statement.
const sqlNowMillis = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`

// gidSQL is a UUIDv7 (RFC 9562) in its text form made by SQL, for a time in unix
// milliseconds: 48 bits of time, version 7, 12 random bits, the variant, 62 random bits.
func gidSQL(ms string) string {
	ts := "printf('%012x', " + ms + ")"
	return "substr(" + ts + ", 1, 8) || '-' || substr(" + ts + ", 9, 4) || '-7' || substr(lower(hex(randomblob(2))), 2)" +
		" || '-' || substr('89ab', 1 + (random() & 3), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))"
}

var syncMigration = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteString(`
CREATE TABLE IF NOT EXISTS sync_ids (
	kind     TEXT NOT NULL CHECK (kind IN ('session', 'observation', 'summary', 'prompt')),
	local_id TEXT NOT NULL,
	gid      TEXT NOT NULL UNIQUE,
	author   TEXT NOT NULL DEFAULT '',
	machine  TEXT NOT NULL DEFAULT '',
	state    TEXT NOT NULL DEFAULT 'waiting'
	         CHECK (state IN ('waiting', 'pushed', 'held', 'refused', 'pulled')),
	PRIMARY KEY (kind, local_id)
) STRICT;
-- What goes out next, in the order the records were made (rowid).
CREATE INDEX IF NOT EXISTS sync_ids_state ON sync_ids(state);

CREATE TABLE IF NOT EXISTS sync_tombstones (
	gid     TEXT PRIMARY KEY,
	kind    TEXT NOT NULL,
	project TEXT NOT NULL, -- the project's key when the record was forgotten
	session TEXT NOT NULL, -- its session's gid ('' for a session)
	at      INTEGER NOT NULL,
	-- waiting, pushed, refused: this person's forget; pulled: a forget that came from a
	-- server, kept so that a copy of the record pulled later is not stored again.
	state   TEXT NOT NULL CHECK (state IN ('waiting', 'pushed', 'refused', 'pulled'))
) STRICT;
CREATE INDEX IF NOT EXISTS sync_tombstones_state ON sync_tombstones(state);

CREATE TABLE IF NOT EXISTS sync_cursors (
	server TEXT PRIMARY KEY,
	cursor TEXT NOT NULL,
	pulled INTEGER NOT NULL DEFAULT 0 -- records pulled from it and stored
) STRICT;

CREATE TABLE IF NOT EXISTS sync_rejects (
	server TEXT NOT NULL,
	reason TEXT NOT NULL,
	count  INTEGER NOT NULL,
	PRIMARY KEY (server, reason)
) STRICT;

CREATE TABLE IF NOT EXISTS sync_projects (
	project TEXT PRIMARY KEY,
	key     TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS sync_projects_key ON sync_projects(key);
`)
	for _, t := range syncTables {
		local, session := "CAST(%s.id AS TEXT)", "coalesce((SELECT gid FROM sync_ids WHERE kind = 'session' AND local_id = old.session_id), '')"
		if t.kind == "session" {
			local, session = "%s.id", "''"
		}
		fmt.Fprintf(&b, `CREATE TRIGGER IF NOT EXISTS %[1]s_sync_insert AFTER INSERT ON %[1]s BEGIN
	INSERT OR REPLACE INTO sync_ids (kind, local_id, gid) VALUES ('%[2]s', %[3]s, %[4]s);
END;
`, t.table, t.kind, fmt.Sprintf(local, "new"), gidSQL(sqlNowMillis))
		// Only a record this person may tombstone leaves one: their own (author ''), and not
		// one that never left (held) or that the server refused.
		fmt.Fprintf(&b, `CREATE TRIGGER IF NOT EXISTS %[1]s_sync_delete AFTER DELETE ON %[1]s BEGIN
	INSERT OR IGNORE INTO sync_tombstones (gid, kind, project, session, at, state)
	SELECT gid, kind, coalesce((SELECT key FROM sync_projects WHERE project = old.project), old.project),
		%[4]s, %[5]s * 1000000, 'waiting'
	FROM sync_ids WHERE kind = '%[2]s' AND local_id = %[3]s AND author = '' AND state IN ('waiting', 'pushed', 'pulled');
	DELETE FROM sync_ids WHERE kind = '%[2]s' AND local_id = %[3]s;
END;
`, t.table, t.kind, fmt.Sprintf(local, "old"), session, sqlNowMillis)
	}
	// The records stored before: a gid each, from its own time, sessions first and each
	// kind oldest first, so the first push sends them in the order they were made.
	for _, t := range syncTables {
		at, local := "at", "CAST(id AS TEXT)"
		if t.kind == "session" {
			at, local = "started_at", "id"
		}
		ms := fmt.Sprintf("coalesce(%s / 1000000, %s)", at, sqlNowMillis)
		fmt.Fprintf(&b, "INSERT OR IGNORE INTO sync_ids (kind, local_id, gid) SELECT '%s', %s, %s FROM %s ORDER BY coalesce(%s, 0), id;\n",
			t.kind, local, gidSQL(ms), t.table, at)
	}
	return b.String()
})

// addSync is migration 10: syncMigration, built at its first use. It can run again over its
// own tables (a database whose version was set back, as the upgrade tests do), keeping
// every gid it gave.
func addSync(ctx context.Context, tx *sql.Tx, _ string) error {
	_, err := tx.ExecContext(ctx, syncMigration())
	return err
}
