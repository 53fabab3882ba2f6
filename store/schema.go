package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// migrations is the schema history. migrations[i] moves a database from user_version i
// to i+1; each runs in its own transaction together with the user_version bump (see
// migrate). Never edit an entry that has shipped: append a new one.
//
// Times are INTEGER unix nanoseconds (NULL for "not set"), so they round-trip exactly and
// sort numerically. List fields of observations are JSON arrays of strings. The FTS5
// tables use external content (the row lives once, in its table) and are kept in sync by
// triggers, so no code path can forget to index a row.
var migrations = []step{
	{sql: `
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	project    TEXT NOT NULL,
	cwd        TEXT NOT NULL,
	started_at INTEGER,
	ended_at   INTEGER
) STRICT;

CREATE TABLE prompts (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id),
	project    TEXT NOT NULL,
	text       TEXT NOT NULL,
	at         INTEGER NOT NULL
) STRICT;
CREATE INDEX prompts_session_at ON prompts(session_id, at, id);

CREATE TABLE events (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id),
	project     TEXT NOT NULL,
	hook        TEXT NOT NULL,
	tool_name   TEXT NOT NULL,
	tool_use_id TEXT NOT NULL,
	input       TEXT NOT NULL,
	response    TEXT NOT NULL,
	is_error    INTEGER NOT NULL,
	cwd         TEXT NOT NULL,
	at          INTEGER NOT NULL,
	state       TEXT NOT NULL DEFAULT 'pending'
	            CHECK (state IN ('pending', 'processing', 'done', 'failed')),
	attempts    INTEGER NOT NULL DEFAULT 0,
	run_id      TEXT NOT NULL DEFAULT '',
	claimed_at  INTEGER
) STRICT;
-- A retried hook delivers the same tool_use_id again; it must not become a second event.
CREATE UNIQUE INDEX events_tool_use ON events(session_id, tool_use_id) WHERE tool_use_id <> '';
-- Claim, HasPending (state + session, oldest first) and StaleSessions (state).
CREATE INDEX events_state_session ON events(state, session_id, at);
-- NeedsSummary (a session's latest event).
CREATE INDEX events_session_at ON events(session_id, at);
-- CompleteRun and Release (run); RequeueStale (processing claimed before a time) and Counts.
CREATE INDEX events_run ON events(run_id, state);
CREATE INDEX events_claimed ON events(state, claimed_at);

CREATE TABLE observations (
	id             INTEGER PRIMARY KEY,
	session_id     TEXT NOT NULL REFERENCES sessions(id),
	project        TEXT NOT NULL,
	run_id         TEXT NOT NULL,
	type           TEXT NOT NULL,
	title          TEXT NOT NULL,
	subtitle       TEXT NOT NULL,
	narrative      TEXT NOT NULL,
	facts          TEXT NOT NULL DEFAULT '[]',
	concepts       TEXT NOT NULL DEFAULT '[]',
	files_read     TEXT NOT NULL DEFAULT '[]',
	files_modified TEXT NOT NULL DEFAULT '[]',
	at             INTEGER NOT NULL
) STRICT;
CREATE INDEX observations_project_at ON observations(project, at, id);
CREATE INDEX observations_session_at ON observations(session_id, at, id);

CREATE TABLE summaries (
	id           INTEGER PRIMARY KEY,
	session_id   TEXT NOT NULL REFERENCES sessions(id),
	project      TEXT NOT NULL,
	run_id       TEXT NOT NULL,
	request      TEXT NOT NULL,
	investigated TEXT NOT NULL,
	learned      TEXT NOT NULL,
	completed    TEXT NOT NULL,
	next_steps   TEXT NOT NULL,
	notes        TEXT NOT NULL,
	at           INTEGER NOT NULL
) STRICT;
CREATE INDEX summaries_project_at ON summaries(project, at, id);
CREATE INDEX summaries_session_at ON summaries(session_id, at);

CREATE VIRTUAL TABLE observations_fts USING fts5(
	title, subtitle, narrative, facts, concepts,
	content='observations', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
-- Titles weigh most; bm25 is FTS5's default rank, these are its column weights.
INSERT INTO observations_fts(observations_fts, rank) VALUES ('rank', 'bm25(8.0, 4.0, 1.0, 2.0, 2.0)');
CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations BEGIN
	INSERT INTO observations_fts(rowid, title, subtitle, narrative, facts, concepts)
	VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts);
END;
CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations BEGIN
	INSERT INTO observations_fts(observations_fts, rowid, title, subtitle, narrative, facts, concepts)
	VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts);
END;
CREATE TRIGGER observations_fts_update AFTER UPDATE ON observations BEGIN
	INSERT INTO observations_fts(observations_fts, rowid, title, subtitle, narrative, facts, concepts)
	VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts);
	INSERT INTO observations_fts(rowid, title, subtitle, narrative, facts, concepts)
	VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts);
END;

CREATE VIRTUAL TABLE summaries_fts USING fts5(
	request, investigated, learned, completed, next_steps, notes,
	content='summaries', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
INSERT INTO summaries_fts(summaries_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0, 2.0, 1.0, 1.0, 1.0)');
CREATE TRIGGER summaries_fts_insert AFTER INSERT ON summaries BEGIN
	INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, notes)
	VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes);
END;
CREATE TRIGGER summaries_fts_delete AFTER DELETE ON summaries BEGIN
	INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, notes)
	VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.notes);
END;
CREATE TRIGGER summaries_fts_update AFTER UPDATE ON summaries BEGIN
	INSERT INTO summaries_fts(summaries_fts, rowid, request, investigated, learned, completed, next_steps, notes)
	VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.notes);
	INSERT INTO summaries_fts(rowid, request, investigated, learned, completed, next_steps, notes)
	VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes);
END;

CREATE VIRTUAL TABLE prompts_fts USING fts5(
	text,
	content='prompts', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER prompts_fts_insert AFTER INSERT ON prompts BEGIN
	INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER prompts_fts_delete AFTER DELETE ON prompts BEGIN
	INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER prompts_fts_update AFTER UPDATE ON prompts BEGIN
	INSERT INTO prompts_fts(prompts_fts, rowid, text) VALUES ('delete', old.id, old.text);
	INSERT INTO prompts_fts(rowid, text) VALUES (new.id, new.text);
END;
`},
	// 2: the summary SessionEnd asked for, owed until a final run writes it.
	{sql: `
ALTER TABLE sessions ADD COLUMN final_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN final_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_final ON sessions(ended_at) WHERE final_pending = 1;
`},
	// 3: this phase's columns and tables, in one step so every part builds on one schema.
	// record_id: the capture journal's id of a prompt or event, so ingestion is idempotent
	// (§15). origin: who wrote an observation (observer, model via the remember tool,
	// import). content_hash: import's idempotence key (§20), filled when a row is exported or
	// imported. runs: one observer run with its usage and cost (§17). redactions: secrets
	// replaced at capture, per local day, project and kind (§16).
	{sql: `
ALTER TABLE prompts ADD COLUMN record_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX prompts_record ON prompts(record_id) WHERE record_id <> '';
ALTER TABLE events ADD COLUMN record_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX events_record ON events(record_id) WHERE record_id <> '';

ALTER TABLE observations ADD COLUMN origin TEXT NOT NULL DEFAULT 'observer'
	CHECK (origin IN ('observer', 'model', 'import'));
ALTER TABLE observations ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX observations_hash ON observations(content_hash) WHERE content_hash <> '';
ALTER TABLE summaries ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX summaries_hash ON summaries(content_hash) WHERE content_hash <> '';
ALTER TABLE prompts ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX prompts_hash ON prompts(content_hash) WHERE content_hash <> '';

CREATE TABLE runs (
	id                    TEXT PRIMARY KEY,
	session_id            TEXT NOT NULL,
	project               TEXT NOT NULL,
	model                 TEXT NOT NULL DEFAULT '',
	outcome               TEXT NOT NULL,
	started_at            INTEGER NOT NULL,
	ended_at              INTEGER NOT NULL,
	events                INTEGER NOT NULL DEFAULT 0,
	observations          INTEGER NOT NULL DEFAULT 0,
	duplicates            INTEGER NOT NULL DEFAULT 0,
	input_tokens          INTEGER NOT NULL DEFAULT 0,
	output_tokens         INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	cost_usd              REAL NOT NULL DEFAULT 0,
	duration_ms           INTEGER NOT NULL DEFAULT 0,
	duration_api_ms       INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX runs_started ON runs(started_at);
CREATE INDEX runs_project_started ON runs(project, started_at);

CREATE TABLE redactions (
	day     TEXT NOT NULL, -- the local date of capture, YYYY-MM-DD
	project TEXT NOT NULL,
	kind    TEXT NOT NULL,
	count   INTEGER NOT NULL,
	PRIMARY KEY (day, project, kind)
) STRICT;
`},
	// 4: the assistant's last message of each turn (Stop's last_assistant_message, §24),
	// redacted and clipped at capture: what the observer is shown of the turn's conclusion.
	// Like events it is the observer's raw material, so it has no full-text index (search
	// finds what the observer made of it) and is not exported.
	{sql: `
CREATE TABLE answers (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id),
	project    TEXT NOT NULL,
	text       TEXT NOT NULL,
	at         INTEGER NOT NULL,
	record_id  TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX answers_session_at ON answers(session_id, at, id);
CREATE UNIQUE INDEX answers_record ON answers(record_id) WHERE record_id <> '';
`},
	// 5: what a run's answer yielded (§24): answer is its verdict (vocab.Verdicts; '' for a run
	// that gave no answer), answer_reasons the reasons it was salvaged or unusable
	// (space-separated, each once), answer_dropped the blocks of it that were not kept;
	// requeued is 1 when the run gave its events back to pending despite an answer (unusable,
	// or cut and run again smaller).
	{sql: `
ALTER TABLE runs ADD COLUMN answer TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN answer_reasons TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN answer_dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN requeued INTEGER NOT NULL DEFAULT 0;
`},
	// 6: one stemmed full-text index over every kind (searchMigration), rebuilt from the
	// stored rows: heavy.
	{run: rebuildSearch, heavy: true},
	// 7: memory stored before the redactor read text as it reads (issue 21) is redacted
	// again. Last, so the rows it rewrites are indexed by the index above.
	{run: redactStored, heavy: true},
	// 8: what search filters on, by id (searchDoc.from): a covering index keeps the project,
	// time and type checks of the newest matches off the wide rows (a twelfth of a whole
	// `hook search` over 100,000 observations). Built in id order: 0.1 s at 100,000.
	{sql: `
CREATE INDEX IF NOT EXISTS observations_filter ON observations(id, project, at, type);
CREATE INDEX IF NOT EXISTS summaries_filter ON summaries(id, project, at);
CREATE INDEX IF NOT EXISTS prompts_filter ON prompts(id, project, at);
`},
	// 9: memory stored before the redactor read text as a terminal shows it, decoded
	// percent-encoding and knew 15 more families (issue 31) is redacted again, before any of
	// it can travel to another machine.
	{run: redactStored, heavy: true},
	// 10: what sync needs locally (DESIGN §25, sync_schema.go): a global id, origin and push
	// state for every record that travels, given by triggers on insert; tombstones left by
	// a delete trigger; cursors per server; the key across machines of each project. Heavy:
	// every stored row gets its id, four index entries each (100,000 observations: 0.8 to
	// 2.7 s on the 2-core machine), more than a hook may spend.
	{run: addSync, heavy: true},
}

// step is one migration: SQL, or Go code for what SQL cannot say (run gets the migration's
// transaction and the data dir). A heavy step rewrites stored data, so it may take as long
// as the memory is large: a hook never runs it (OpenOptions.Hook), a backup is taken before
// it, and once it commits the file is vacuumed and every backup removed, since both the
// backup and the freed pages hold the text it replaced.
type step struct {
	sql   string
	run   func(ctx context.Context, tx *sql.Tx, dataDir string) error
	heavy bool
}

// The search index (DESIGN §23) is one FTS5 table over observations, summaries and prompts,
// so one BM25 ranking (one IDF, one average length) covers every kind. Its external content
// is the view search_docs: a row's rowid is its id plus its kind's offset (searchOffset), and
// each kind's arm of the view is found by an index on that expression, so FTS5's lookups of
// one row stay indexed. List fields are indexed as plain text, never as JSON. Words are
// stemmed (porter), so "failing" finds "failed". The migration drops the three per-kind
// indexes of migration 1 and builds this one from the stored rows: heavy on a large
// database (100,000 observations: a few seconds).
var searchMigration = sync.OnceValue(func() string {
	var b, triggers strings.Builder
	b.WriteString("DROP TABLE observations_fts;\nDROP TABLE summaries_fts;\nDROP TABLE prompts_fts;\n")
	var arms []string
	cols := "rowid, " + strings.Join(searchColumns, ", ")
	for _, d := range searchDocs() {
		for _, op := range []string{"insert", "delete", "update"} {
			fmt.Fprintf(&b, "DROP TRIGGER %s_fts_%s;\n", d.table, op)
		}
		rid := "id"
		if d.offset != 0 {
			rid = "id + " + strconv.FormatInt(d.offset, 10)
			fmt.Fprintf(&b, "CREATE INDEX %s_search_rid ON %s(%s);\n", d.table, d.table, rid)
		}
		arms = append(arms, "SELECT "+rid+", "+d.values("")+" FROM "+d.table)
		// SQLite allows no table-valued function (json_each) in a trigger, so the triggers
		// read the row through the view: before a row changes, its indexed values leave the
		// index; after, its new ones enter it.
		ins := "\tINSERT INTO search_fts(" + cols + ") SELECT * FROM search_docs WHERE rid = new." + rid + ";\n"
		del := "\tINSERT INTO search_fts(search_fts, " + cols + ") SELECT 'delete', * FROM search_docs WHERE rid = old." + rid + ";\n"
		fmt.Fprintf(&triggers, "CREATE TRIGGER %s_search_insert AFTER INSERT ON %s BEGIN\n%sEND;\n", d.table, d.table, ins)
		fmt.Fprintf(&triggers, "CREATE TRIGGER %s_search_delete BEFORE DELETE ON %s BEGIN\n%sEND;\n", d.table, d.table, del)
		fmt.Fprintf(&triggers, "CREATE TRIGGER %s_search_unindex BEFORE UPDATE ON %s BEGIN\n%sEND;\n", d.table, d.table, del)
		fmt.Fprintf(&triggers, "CREATE TRIGGER %s_search_update AFTER UPDATE ON %s BEGIN\n%sEND;\n", d.table, d.table, ins)
	}
	fmt.Fprintf(&b, "CREATE VIEW search_docs (rid, %s) AS\n%s;\n", strings.Join(searchColumns, ", "), strings.Join(arms, "\nUNION ALL "))
	fmt.Fprintf(&b, `CREATE VIRTUAL TABLE search_fts USING fts5(
	%s,
	content='search_docs', content_rowid='rid', tokenize='%s', prefix='2 3'
);
`, strings.Join(searchColumns, ", "), searchTokenize)
	b.WriteString(triggers.String())
	b.WriteString("INSERT INTO search_fts(search_fts) VALUES ('rebuild');\n")
	return b.String()
})

// rebuildSearch is migration 6: searchMigration, built at its first use (every hook
// starts this binary; only an upgrade needs the SQL).
func rebuildSearch(ctx context.Context, tx *sql.Tx, _ string) error {
	_, err := tx.ExecContext(ctx, searchMigration())
	return err
}
