package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/sync/wire"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// keys is a project.Key stand-in: every project of the tests is one repository's.
func keys(cwd, name string) string { return "github.com/acme/" + filepath.Base(cwd) }

func hereA() SyncHere { return SyncHere{Machine: "laptop", Self: "alice", Key: keys} }
func hereB() SyncHere { return SyncHere{Machine: "desktop", Self: "alice", Key: keys} }

// machine stores a session of project with a prompt, an observation and a summary (an
// observer run), and returns the run's session.
func machine(t *testing.T, db *DB, id, project, title string) Session {
	t.Helper()
	ctx := context.Background()
	s := Session{ID: id, Project: project, Cwd: "/work/" + project, StartedAt: t0}
	ingest(t, db, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "why does the refund test flake? " + id, At: at(1), RecordID: id + "-p"}})
	addEvents(t, db, s, 2, 1)
	if _, err := db.Claim(ctx, id, id+"-run", 10, at(10)); err != nil {
		t.Fatal(err)
	}
	_, err := db.CompleteRun(ctx, id+"-run", RunAnswer{
		Observations: []Observation{{Type: "bugfix", Title: title, Narrative: "amounts in minor units", Facts: []string{"zero-decimal"}, At: at(11)}},
		Summary:      &Summary{Request: "Fix the flaky refund test", Learned: "rounding", At: at(12)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outgoing is everything SyncOutgoing gives, in pages of 3.
func outgoingAll(t *testing.T, db *DB, here SyncHere) []wire.Record {
	t.Helper()
	var all []wire.Record
	r, err := db.SyncOutgoing(context.Background(), here, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return append(all, r...)
}

// push is a server that stores everything: the records go out, are marked stored, and
// come back as a page with the author the server sets.
func push(t *testing.T, db *DB, here SyncHere) wire.Page {
	t.Helper()
	recs := outgoingAll(t, db, here)
	var p wire.Pushed
	for i := range recs {
		p.Stored = append(p.Stored, recs[i].GID)
		recs[i].Author = here.Self
	}
	if err := db.SyncMark(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return wire.Page{Records: recs, Next: wire.Cursor(fmt.Sprint(len(recs)))}
}

func apply(t *testing.T, db *DB, here SyncHere, page wire.Page) SyncApplied {
	t.Helper()
	res, err := db.SyncApply(context.Background(), "pg", here, page)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// digest is every traveling row's content and origin, for comparing a database before and
// after.
func digest(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT id || project || cwd || coalesce(started_at, '') || coalesce(ended_at, '') FROM sessions ORDER BY id`,
		`SELECT id || session_id || project || type || title || narrative || facts || at FROM observations ORDER BY id`,
		`SELECT id || session_id || project || request || learned || at FROM summaries ORDER BY id`,
		`SELECT id || session_id || project || text || at FROM prompts ORDER BY id`,
		`SELECT kind || local_id || gid || author || machine || state FROM sync_ids ORDER BY kind, local_id`,
		`SELECT gid || state FROM sync_tombstones ORDER BY gid`,
		`SELECT server || cursor || pulled FROM sync_cursors`,
		`SELECT project || key FROM sync_projects ORDER BY project`,
		`SELECT count(*) FROM search_fts`,
	} {
		l, err := queryList[string](context.Background(), db.sql, q)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, l)
	}
	return b.String()
}

// Every insert path gives a record its global id: capture (session, prompt), an observer
// run (observation, summary), remember, import, and a row written behind the store's back.
func TestSyncIDsOnEveryInsertPath(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	machine(t, db, "s1", "pay", "Refunds rounded wrong")
	if _, err := db.Remember(ctx, Note{SessionID: "s2", Project: "pay", Title: "a note", Text: "x", At: at(20), Type: "note"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportParts(ctx, func(add func(ImportBatch) error) error {
		return add(ImportBatch{Sessions: []Session{session("s3", "pay")},
			Observations: []Observation{{SessionID: "s3", Project: "pay", Type: "change", Title: "imported", At: at(30)}},
			Prompts:      []Prompt{{SessionID: "s3", Project: "pay", Text: "imported prompt", At: at(30)}}})
	}); err != nil {
		t.Fatal(err)
	}
	if err := ExecSQL(db, `INSERT INTO observations (session_id, project, run_id, type, title, subtitle, narrative, at) VALUES ('s1', 'pay', '', 'change', 'raw', '', '', 1)`); err != nil {
		t.Fatal(err)
	}
	for _, k := range syncTables {
		rows := count(t, db, `SELECT count(*) FROM `+k.table)
		linked := count(t, db, `SELECT count(*) FROM sync_ids WHERE kind = ?`, k.kind)
		if rows == 0 || rows != linked {
			t.Errorf("%s: %d rows, %d with a gid", k.table, rows, linked)
		}
	}
	gids, _ := queryList[string](ctx, db.sql, `SELECT gid FROM sync_ids`)
	for _, g := range gids {
		if !canonicalGID().MatchString(g) || g[14] != '7' || !strings.ContainsRune("89ab", rune(g[19])) {
			t.Errorf("gid %q is no UUIDv7", g)
		}
	}
	if n := count(t, db, `SELECT count(DISTINCT gid) FROM sync_ids`); n != len(gids) {
		t.Errorf("%d distinct gids of %d", n, len(gids))
	}
	if n := count(t, db, `SELECT count(*) FROM sync_ids WHERE state <> 'waiting' OR author <> '' OR machine <> ''`); n != 0 {
		t.Errorf("%d own records not waiting, or with an origin", n)
	}
}

// The migration gives every row stored before it a gid of its own time, sessions first.
func TestSyncMigrationGivesStoredRowsIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude-mem.db")
	old := openAt(t, path, migrations[:9])
	machine(t, old, "s1", "pay", "before sync")
	old.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, `SELECT count(*) FROM sync_ids`); n != 4 {
		t.Fatalf("%d sync ids after the migration, want 4 (session, prompt, observation, summary)", n)
	}
	var g string
	if err := db.sql.QueryRow(`SELECT gid FROM sync_ids WHERE kind = 'observation'`).Scan(&g); err != nil {
		t.Fatal(err)
	}
	if got := gidTime(g); !got.Equal(at(11)) {
		t.Errorf("the observation's gid holds %v, want its time %v", got, at(11))
	}
	kinds, _ := queryList[string](context.Background(), db.sql, `SELECT kind FROM sync_ids ORDER BY rowid`)
	if kinds[0] != "session" {
		t.Errorf("first gid is a %s's, want the session's", kinds[0])
	}
}

func TestSyncOutgoingAndMark(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	machine(t, db, "s1", "pay", "Refunds rounded wrong")
	recs := outgoingAll(t, db, hereA())
	var kinds []wire.Kind
	for _, r := range recs {
		kinds = append(kinds, r.Kind)
		if r.Project != "github.com/acme/pay" || r.Machine != "laptop" || r.At.IsZero() || r.Deleted {
			t.Errorf("record %+v: want project key, machine, a time", r)
		}
	}
	// Oldest first: the session, then its prompt, then what the run wrote.
	if want := []wire.Kind{wire.Session, wire.Prompt, wire.Observation, wire.Summary}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	sess := recs[0]
	for _, r := range recs[1:] {
		if r.Session != sess.GID {
			t.Errorf("%s's session %q, want the session's gid %q", r.Kind, r.Session, sess.GID)
		}
	}
	var ob wire.ObservationBody
	if err := json.Unmarshal(recs[2].Body, &ob); err != nil || ob.Title != "Refunds rounded wrong" || ob.Type != "bugfix" || !slices.Equal(ob.Facts, []string{"zero-decimal"}) {
		t.Errorf("observation body %s (%v)", recs[2].Body, err)
	}
	var sb wire.SessionBody
	if err := json.Unmarshal(sess.Body, &sb); err != nil || sb.Request != "Fix the flaky refund test" || !sb.Started.Equal(t0) {
		t.Errorf("session body %s (%v)", sess.Body, err)
	}
	// Limited: the first two, then the rest.
	two, err := db.SyncOutgoing(ctx, hereA(), 2)
	if err != nil || len(two) != 2 || two[0].GID != recs[0].GID {
		t.Fatalf("limit 2: %d records, %v", len(two), err)
	}
	if err := db.SyncMark(ctx, wire.Pushed{Stored: []string{recs[0].GID, recs[1].GID}, Refused: []string{recs[2].GID}}); err != nil {
		t.Fatal(err)
	}
	left := outgoingAll(t, db, hereA())
	if len(left) != 1 || left[0].GID != recs[3].GID {
		t.Errorf("after the mark %d records go out, want only the summary", len(left))
	}
	st, err := db.SyncState(ctx)
	if err != nil || st.Waiting != 1 || st.Refused != 1 || st.Held != 0 || st.Pulled != 0 {
		t.Errorf("state %+v, %v; want 1 waiting, 1 refused", st, err)
	}
}

// A record in which the redactor still finds a secret is held back and counted, and never
// returned again; the control, the same record clean, goes out. Once its text passes (the
// rules changed), it goes out.
func TestSyncHeldBack(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	machine(t, db, "s1", "pay", "clean title")
	secret := "token ghp_16C7e42F292c6912E7710c838347Ae178B4a leaked"
	// What an older build's rules let through: written as it was stored then.
	if err := ExecSQL(db, `UPDATE observations SET narrative = ?`, secret); err != nil {
		t.Fatal(err)
	}
	// What capture already redacted is clean: its marker is no secret.
	if err := ExecSQL(db, `UPDATE summaries SET learned = 'token [REDACTED:github] leaked'`); err != nil {
		t.Fatal(err)
	}
	recs := outgoingAll(t, db, hereA())
	for _, r := range recs {
		if r.Kind == wire.Observation || strings.Contains(string(r.Body), "ghp_") {
			t.Fatalf("a record with a secret goes out: %s", r.Body)
		}
	}
	if len(recs) != 3 || !slices.ContainsFunc(recs, func(r wire.Record) bool { return strings.Contains(string(r.Body), "[REDACTED:github]") }) {
		t.Errorf("%d records out, want 3 (all but the observation, the redacted summary too)", len(recs))
	}
	st, _ := db.SyncState(ctx)
	if st.Held != 1 {
		t.Errorf("held %d, want 1", st.Held)
	}
	var obs int64
	db.sql.QueryRow(`SELECT id FROM observations`).Scan(&obs)
	if held, err := db.SyncHeld(ctx, 10); err != nil || !slices.Equal(held, []vocab.Ref{{Kind: vocab.KindObservation, ID: obs}}) {
		t.Errorf("SyncHeld %v, %v; want the observation", held, err)
	}
	if err := db.SyncMark(ctx, wire.Pushed{Stored: []string{recs[0].GID, recs[1].GID, recs[2].GID}}); err != nil {
		t.Fatal(err)
	}
	if again := outgoingAll(t, db, hereA()); len(again) != 0 {
		t.Errorf("a held record returned again: %d records", len(again))
	}
	if err := ExecSQL(db, `UPDATE observations SET narrative = 'nothing secret'`); err != nil {
		t.Fatal(err)
	}
	if now := outgoingAll(t, db, hereA()); len(now) != 1 || now[0].Kind != wire.Observation {
		t.Errorf("the record clean now: %d records out, want the observation", len(now))
	}
	if st, _ := db.SyncState(ctx); st.Held != 0 || st.Waiting != 1 {
		t.Errorf("state %+v: want 0 held, 1 waiting", st)
	}
}

// B stores what A pushed, under local ids of B's own, with A's machine; applying the page
// again changes nothing; nothing pulled goes back out.
func TestSyncApplyTwiceChangesNothing(t *testing.T) {
	a, _ := openTest(t)
	b, _ := openTest(t)
	machine(t, a, "s1", "pay", "Refunds rounded wrong")
	machine(t, b, "b1", "other", "B's own")
	page := push(t, a, hereA())
	first := apply(t, b, hereB(), page)
	if first.Stored != 4 || first.Skipped != 0 || len(first.Refused) != 0 {
		t.Fatalf("first apply %+v, want 4 stored", first)
	}
	before := digest(t, b)
	second := apply(t, b, hereB(), page)
	if second.Stored != 0 || second.Skipped != 4 {
		t.Errorf("second apply %+v, want 4 skipped", second)
	}
	if after := digest(t, b); after != before {
		t.Errorf("applying a page twice changed the database:\n%s\n%s", before, after)
	}
	// Landed in a project named after the key, with the author's machine and no author
	// (alice's own), searchable.
	if n := count(t, b, `SELECT count(*) FROM observations WHERE project = 'pay' AND title = 'Refunds rounded wrong'`); n != 1 {
		t.Errorf("%d pulled observations in project pay", n)
	}
	if n := count(t, b, `SELECT count(*) FROM sync_ids WHERE state = 'pulled' AND machine = 'laptop' AND author = ''`); n != 4 {
		t.Errorf("%d pulled rows with machine laptop, want 4", n)
	}
	if hits, err := b.Search(context.Background(), "refunds", "pay", 10); err != nil || len(hits) == 0 {
		t.Errorf("search on B: %v, %v", hits, err)
	}
	// B's push sends only B's own records (its session, prompt, observation, summary).
	for _, r := range outgoingAll(t, b, hereB()) {
		if slices.ContainsFunc(page.Records, func(p wire.Record) bool { return p.GID == r.GID }) {
			t.Errorf("B pushes back a pulled record %s", r.Kind)
		}
	}
	st, _ := b.SyncState(context.Background())
	if st.Pulled != 4 || len(st.Servers) != 1 || st.Servers[0].Cursor != page.Next || st.Servers[0].Pulled != 4 {
		t.Errorf("B's state %+v", st)
	}
}

// The records and the cursor commit together: an apply stopped before its commit leaves
// neither.
func TestSyncApplyOneTransaction(t *testing.T) {
	a, _ := openTest(t)
	b, _ := openTest(t)
	machine(t, a, "s1", "pay", "Refunds rounded wrong")
	page := push(t, a, hereA())
	before := digest(t, b)
	stop := errors.New("killed")
	beforeCursor = func() error { return stop }
	_, err := b.SyncApply(context.Background(), "pg", hereB(), page)
	beforeCursor = func() error { return nil }
	if !errors.Is(err, stop) {
		t.Fatalf("apply: %v", err)
	}
	if after := digest(t, b); after != before {
		t.Errorf("a stopped apply left rows:\n%s", after)
	}
	// Control: the same apply without the stop stores both.
	if res := apply(t, b, hereB(), page); res.Stored != 4 || count(t, b, `SELECT count(*) FROM sync_cursors`) != 1 {
		t.Errorf("control apply %+v", res)
	}
}

// A forget on A travels: A's tombstones go out, B deletes its copies and their index
// entries, and leaves no tombstone of its own. Every forget path leaves them.
func TestSyncTombstoneRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		scope func(obs int64) ForgetScope
		gone  int // records B loses
	}{
		{"one id", func(obs int64) ForgetScope {
			return ForgetScope{Refs: []vocab.Ref{{Kind: vocab.KindObservation, ID: obs}}}
		}, 1},
		{"project", func(int64) ForgetScope { return ForgetScope{Project: "pay"} }, 4},
		{"all", func(int64) ForgetScope { return ForgetScope{AllProjects: true} }, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := openTest(t)
			b, _ := openTest(t)
			machine(t, a, "s1", "pay", "Quetzal refunds rounded wrong")
			apply(t, b, hereB(), push(t, a, hereA()))
			if hits, _ := b.Search(ctx, "quetzal", "", 10); len(hits) != 1 {
				t.Fatalf("control: B finds %d hits before the forget", len(hits))
			}
			var obs int64
			a.sql.QueryRow(`SELECT id FROM observations`).Scan(&obs)
			if _, err := a.Forget(ctx, c.scope(obs), 10, nil); err != nil {
				t.Fatal(err)
			}
			page := push(t, a, hereA())
			for _, r := range page.Records {
				if !r.Deleted || r.Machine != "laptop" || !canonicalGID().MatchString(r.GID) {
					t.Errorf("A's push after the forget: %+v", r)
				}
			}
			if len(page.Records) != c.gone {
				t.Fatalf("%d tombstones, want %d", len(page.Records), c.gone)
			}
			before := count(t, b, `SELECT count(*) FROM sync_ids WHERE state = 'pulled'`)
			res := apply(t, b, hereB(), page)
			if res.Deleted != c.gone {
				t.Errorf("B deleted %d, want %d (%+v)", res.Deleted, c.gone, res)
			}
			if after := count(t, b, `SELECT count(*) FROM sync_ids WHERE state = 'pulled'`); before-after != c.gone {
				t.Errorf("B holds %d pulled records, had %d", after, before)
			}
			if hits, _ := b.Search(ctx, "quetzal", "", 10); len(hits) != 0 {
				t.Errorf("B still finds the forgotten observation: %v", hits)
			}
			if n := count(t, b, `SELECT count(*) FROM search_fts WHERE search_fts MATCH 'quetzal'`); n != 0 {
				t.Errorf("%d index entries left on B", n)
			}
			if n := count(t, b, `SELECT count(*) FROM sync_tombstones WHERE state = 'waiting'`); n != 0 {
				t.Errorf("B left %d tombstones of its own to push", n)
			}
			// The forgotten record pulled again (a server that lost the tombstone) stays gone.
			if again := apply(t, b, hereB(), push(t, a, hereA())); again.Stored != 0 {
				t.Errorf("re-apply %+v", again)
			}
		})
	}
}

// A teammate's record and tombstone: the author is kept; a teammate cannot forget this
// person's record here, nor put a record into a session that is not theirs, and forgetting
// their record here leaves no tombstone (not this person's to forget).
func TestSyncApplyAuthors(t *testing.T) {
	ctx := context.Background()
	a, _ := openTest(t)
	b, _ := openTest(t)
	machine(t, a, "s1", "pay", "Bob's finding")
	page := push(t, a, SyncHere{Machine: "bobbox", Key: keys})
	for i := range page.Records {
		page.Records[i].Author = "bob"
	}
	mine := machine(t, b, "mine", "pay", "mine")
	if res := apply(t, b, hereB(), page); res.Stored != 4 {
		t.Fatalf("apply %+v", res)
	}
	if n := count(t, b, `SELECT count(*) FROM sync_ids WHERE author = 'bob' AND machine = 'bobbox'`); n != 4 {
		t.Errorf("%d records of bob's", n)
	}
	var myObs, mySession string
	b.sql.QueryRow(`SELECT gid FROM sync_ids i JOIN observations o ON i.kind = 'observation' AND i.local_id = CAST(o.id AS TEXT) WHERE o.session_id = ?`, mine.ID).Scan(&myObs)
	b.sql.QueryRow(`SELECT gid FROM sync_ids WHERE kind = 'session' AND local_id = ?`, mine.ID).Scan(&mySession)
	obs := page.Records[2]
	obs.GID = "01930000-0000-7000-8000-00000000000a"
	obs.Session = mySession
	res := apply(t, b, hereB(), wire.Page{Records: []wire.Record{
		{GID: myObs, Kind: wire.Observation, Author: "bob", Deleted: true},
		obs,
	}, Next: "x"})
	if res.Refused[RejectTombstone] != 1 || res.Refused[RejectForeign] != 1 {
		t.Errorf("apply %+v: want bob's tombstone of alice's record and his record in her session refused", res)
	}
	if n := count(t, b, `SELECT count(*) FROM sync_ids WHERE gid = ?`, myObs); n != 1 {
		t.Error("bob's tombstone removed alice's record")
	}
	if _, err := b.Forget(ctx, ForgetScope{Project: "pay"}, 10, nil); err != nil {
		t.Fatal(err)
	}
	var tombs []wire.Record
	for _, r := range outgoingAll(t, b, hereB()) {
		if r.Deleted {
			tombs = append(tombs, r)
		}
	}
	if len(tombs) != 4 {
		t.Errorf("%d tombstones after forgetting the project, want 4 (alice's own only)", len(tombs))
	}
	st, _ := b.SyncState(ctx)
	if st.Servers[0].Rejected[RejectTombstone] != 1 {
		t.Errorf("rejects not counted: %+v", st.Servers)
	}
}

// A pulled key lands in the local project whose key it is, else in one named after its
// last segment, else (that name is another repository's) in one named by the key.
func TestSyncApplyProjects(t *testing.T) {
	a, _ := openTest(t)
	b, _ := openTest(t)
	machine(t, a, "s1", "payments-api", "one")
	page := push(t, a, hereA()) // key github.com/acme/payments-api
	// B's checkout of the same remote is in a dir of another name.
	machine(t, b, "b1", "pay2", "b's")
	sameRemote := func(cwd, name string) string {
		if name == "pay2" {
			return "github.com/acme/payments-api"
		}
		return keys(cwd, name)
	}
	apply(t, b, SyncHere{Machine: "desktop", Self: "alice", Key: sameRemote}, page)
	if n := count(t, b, `SELECT count(*) FROM observations WHERE project = 'pay2'`); n != 2 {
		t.Errorf("%d observations in pay2, want B's and A's", n)
	}
	// C has another repository named payments-api: A's records go elsewhere.
	c, _ := openTest(t)
	machine(t, c, "c1", "payments-api", "c's")
	apply(t, c, SyncHere{Machine: "c", Key: func(string, string) string { return "gitlab.com/x/payments-api" }}, page)
	if n := count(t, c, `SELECT count(*) FROM observations WHERE project = 'payments-api'`); n != 1 {
		t.Errorf("%d observations in C's payments-api, want its own only", n)
	}
	if n := count(t, c, `SELECT count(*) FROM observations WHERE project = 'github.com/acme/payments-api'`); n != 1 {
		t.Errorf("%d observations in the project named by the key, want 1", n)
	}
	// D has none: the last segment.
	d, _ := openTest(t)
	apply(t, d, SyncHere{Machine: "d", Key: keys}, page)
	if n := count(t, d, `SELECT count(*) FROM observations WHERE project = 'payments-api'`); n != 1 {
		t.Errorf("%d observations in D's payments-api", n)
	}
}

// Pulled text is untrusted input, handled as local input is: the same escapes and secrets
// stored as an observer answer's would be, invalid UTF-8 made valid as capture does, a
// 1 MB narrative clipped, and an unknown type, a malformed or oversized body, a forged
// local id or a gid that is no UUID refused or ignored, counted, never stored.
func TestSyncApplyHostile(t *testing.T) {
	ctx := context.Background()
	b, _ := openTest(t)
	machine(t, b, "b1", "pay", "B's own")
	var ownID int64
	b.sql.QueryRow(`SELECT id FROM observations`).Scan(&ownID)

	const sess = "01930000-0000-7000-8000-000000000001"
	escapes := "\x1b[31mred\x1b]0;pwned\x07 \u202egnp.exe token ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	rec := func(n int, kind wire.Kind, body string) wire.Record {
		return wire.Record{GID: fmt.Sprintf("01930000-0000-7000-8000-%012x", 0x100+n), Kind: kind, Project: "github.com/acme/pay",
			Session: sess, Machine: "evil\x1b[2J", Author: "mallory\x07", At: at(100 + n), Body: json.RawMessage(body)}
	}
	obs := func(fields string) string { return `{"type":"bugfix","title":"t"` + fields + `}` }
	big := strings.Repeat("narrative ", 100_000) // 1 MB
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	page := wire.Page{Next: "c1", Records: []wire.Record{
		rec(0, wire.Session, `{"started":"2026-11-30T10:00:00Z"}`),
		rec(1, wire.Observation, `{"type":"bugfix","title":`+q(escapes)+`}`),
		rec(2, wire.Observation, obs(`,"narrative":`+q(big))),
		rec(3, wire.Observation, obs(",\"subtitle\":\"bad \xff\xfe bytes\"")),
		rec(4, wire.Observation, `{"type":"exploit","title":"t"}`),
		rec(5, wire.Observation, fmt.Sprintf(`{"id":%d,"ID":%d,"session_id":"b1","type":"decision","title":"forged id"}`, ownID, ownID)),
		rec(6, wire.Observation, obs(`,"narrative":`+q(strings.Repeat("x", PulledBodyBytes)))),
		rec(7, wire.Observation, `[1,2]`),
		rec(8, wire.Observation, `{"type":"bugfix","title":5}`),
		rec(9, "event", `{}`),
		{GID: "NOT-A-UUID", Kind: wire.Observation, Project: "p", Session: sess, At: at(1), Body: json.RawMessage(obs(""))},
		rec(10, wire.Observation, `{"type":"bugfix","title":"  "}`),
		rec(11, wire.Prompt, `{"text":"a teammate's prompt"}`),
	}}
	page.Records[0].GID = sess
	res := apply(t, b, hereB(), page)
	want := map[string]int{RejectType: 1, RejectOversized: 1, RejectMalformed: 2, RejectKind: 1, RejectGID: 1, RejectEmpty: 1}
	if res.Stored != 6 || !mapsEqual(res.Refused, want) {
		t.Errorf("apply %+v, want 6 stored (session, 4 observations, prompt) and refused %v", res, want)
	}
	// B's own rows are as they were: the forged id named one of them.
	var title string
	b.sql.QueryRow(`SELECT title FROM observations WHERE id = ?`, ownID).Scan(&title)
	if title != "B's own" {
		t.Errorf("B's own observation %d now has title %q", ownID, title)
	}
	if n := count(t, b, `SELECT count(*) FROM observations WHERE title = 'forged id' AND id <> ?`, ownID); n != 1 {
		t.Errorf("the forged-id record: %d stored under a new id", n)
	}
	// Escapes and the secret: exactly what the same answer stored locally holds.
	local, _ := openTest(t)
	s := session("l1", "pay")
	addEvents(t, local, s, 0, 1)
	local.Claim(ctx, "l1", "r", 1, at(5))
	if _, err := local.CompleteRun(ctx, "r", RunAnswer{Observations: []Observation{{Type: "bugfix", Title: escapes}}}); err != nil {
		t.Fatal(err)
	}
	var localTitle, pulledTitle string
	local.sql.QueryRow(`SELECT title FROM observations`).Scan(&localTitle)
	b.sql.QueryRow(`SELECT title FROM observations WHERE at = ?`, at(101).UnixNano()).Scan(&pulledTitle)
	if pulledTitle != localTitle || strings.Contains(pulledTitle, "ghp_") {
		t.Errorf("pulled title %q, the same stored locally %q", pulledTitle, localTitle)
	}
	if n := count(t, b, `SELECT coalesce(sum(count), 0) FROM redactions WHERE project = 'pay' AND kind = 'github'`); n < 1 {
		t.Errorf("the pulled secret's redaction not counted")
	}
	var narrative, subtitle string
	b.sql.QueryRow(`SELECT narrative FROM observations WHERE at = ?`, at(102).UnixNano()).Scan(&narrative)
	if len(narrative) > PulledFieldBytes+64 || !strings.Contains(narrative, "bytes omitted") {
		t.Errorf("a 1 MB narrative stored as %d bytes", len(narrative))
	}
	b.sql.QueryRow(`SELECT subtitle FROM observations WHERE at = ?`, at(103).UnixNano()).Scan(&subtitle)
	if subtitle != strings.ToValidUTF8("bad \xff\xfe bytes", "\uFFFD") {
		t.Errorf("invalid UTF-8 stored as %q", subtitle)
	}
	var machineName, author string
	b.sql.QueryRow(`SELECT machine, author FROM sync_ids WHERE state = 'pulled' LIMIT 1`).Scan(&machineName, &author)
	if machineName != `evil\x1b[2J` || author != `mallory\x07` {
		t.Errorf("machine stored as %q, author as %q", machineName, author)
	}
	if n := count(t, b, `SELECT count(*) FROM observations WHERE type = 'exploit' OR title = '5'`); n != 0 {
		t.Errorf("%d refused records stored", n)
	}
	st, _ := b.SyncState(ctx)
	if st.Servers[0].Rejected[RejectMalformed] != 2 || st.Pulled != 6 {
		t.Errorf("state %+v", st)
	}
	// A refused record leaves nothing: not its session's header, not its project's name.
	bad := rec(30, wire.Observation, `{"type":"exploit","title":"t"}`)
	bad.Session, bad.Project = "01930000-0000-7000-8000-000000000002", "github.com/evil/new"
	if res := apply(t, b, hereB(), wire.Page{Records: []wire.Record{bad}}); res.Refused[RejectType] != 1 {
		t.Errorf("apply %+v", res)
	}
	if n := count(t, b, `SELECT count(*) FROM sessions WHERE id = ?`, bad.Session) + count(t, b, `SELECT count(*) FROM sync_projects WHERE key = ?`, bad.Project); n != 0 {
		t.Errorf("a refused record left %d rows", n)
	}
	// A forged gid equal to one of B's own session ids is refused, as is a record in it.
	const localSess = "01930000-0000-7000-8000-0000000000ff"
	ingest(t, b, Captured{Kind: CaptureStart, Session: session(localSess, "pay")})
	r := rec(20, wire.Session, `{}`)
	r.GID = localSess
	o := rec(21, wire.Observation, obs(""))
	o.Session = localSess
	if res := apply(t, b, hereB(), wire.Page{Records: []wire.Record{r, o}}); res.Refused[RejectCollision] != 2 {
		t.Errorf("a gid naming a local session: %+v", res)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Where search, the story and the viewer read records, a pulled record says who made it
// and on which machine; a record made here says nothing.
func TestSyncOriginReadable(t *testing.T) {
	ctx := context.Background()
	a, _ := openTest(t)
	b, _ := openTest(t)
	machine(t, a, "s1", "pay", "Quetzal rounding")
	page := push(t, a, SyncHere{Machine: "bobbox", Key: keys})
	for i := range page.Records {
		page.Records[i].Author = "bob"
	}
	machine(t, b, "mine", "pay", "Mine quetzal too")
	apply(t, b, hereB(), page)
	bob := func(what, author, machine string) {
		t.Helper()
		if author != "bob" || machine != "bobbox" {
			t.Errorf("%s: author %q, machine %q; want bob, bobbox", what, author, machine)
		}
	}
	st, err := b.Story(ctx, "pay", 10)
	if err != nil || len(st.Observations) != 2 || len(st.Summaries) != 2 {
		t.Fatalf("story %+v, %v", st, err)
	}
	for _, o := range st.Observations {
		if o.Title == "Quetzal rounding" {
			bob("story observation", o.Author, o.Machine)
			bob("story session", st.Sessions[o.SessionID].Author, st.Sessions[o.SessionID].Machine)
		} else if o.Author != "" || o.Machine != "" || st.Sessions[o.SessionID].Author != "" {
			t.Errorf("own observation says author %q machine %q", o.Author, o.Machine)
		}
	}
	hits, err := b.SearchMemory(ctx, "quetzal", rank.Filter{}, 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	for _, h := range hits {
		if h.Title == "Quetzal rounding" {
			bob("search hit", h.Author, h.Machine)
			recs, _, err := b.Records(ctx, []vocab.Ref{h.Ref})
			if err != nil || len(recs) != 1 {
				t.Fatal(err)
			}
			bob("record", recs[0].Observation.Author, recs[0].Observation.Machine)
			tl, _ := b.Timeline(ctx, h.Ref, 5, 5)
			for _, e := range tl {
				if e.Session == recs[0].Observation.SessionID {
					bob("timeline "+e.Kind, e.Author, e.Machine)
				}
			}
			o, _ := b.Observation(ctx, h.ID)
			bob("viewer observation", o.Author, o.Machine)
			s, _ := b.SessionByID(ctx, o.SessionID)
			bob("viewer session", s.Author, s.Machine)
		} else if h.Author != "" || h.Machine != "" {
			t.Errorf("own hit says author %q", h.Author)
		}
	}
	recent, _ := b.RecentObservations(ctx, "pay", 10)
	if n := slices.IndexFunc(recent, func(o Observation) bool { return o.Author == "bob" }); n < 0 {
		t.Error("recent observations: no author")
	}
	// The author filter, in search as the CLI reads it and in compact form (MCP): each
	// author's filter is the others' control, and an unfiltered search finds both.
	for _, c := range []struct {
		author string
		want   []string
	}{
		{"", []string{"Mine quetzal too", "Quetzal rounding"}},
		{"bob", []string{"Quetzal rounding"}},
		{rank.Own, []string{"Mine quetzal too"}},
		{"carol", nil},
	} {
		f := rank.Filter{Author: c.author, Kinds: []string{vocab.KindObservation}}
		full, err := b.SearchWithin(ctx, "quetzal", f, 10)
		if err != nil {
			t.Fatal(err)
		}
		compact, err := b.SearchMemory(ctx, "quetzal", f, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got, gotCompact []string
		for _, h := range full {
			got = append(got, h.Title)
			if h.Title == "Quetzal rounding" {
				bob("full search hit", h.Author, h.Machine)
			}
		}
		for _, h := range compact {
			gotCompact = append(gotCompact, h.Title)
		}
		slices.Sort(got)
		slices.Sort(gotCompact)
		if !slices.Equal(got, c.want) || !slices.Equal(gotCompact, c.want) {
			t.Errorf("author %q: search %q, compact %q; want %q", c.author, got, gotCompact, c.want)
		}
	}
}

// A real process SIGKILLed inside SyncApply, its records written and its cursor not yet,
// leaves neither: the next apply of the same page stores each record once.
func TestSyncApplyKilledLeavesNeither(t *testing.T) {
	a, _ := openTest(t)
	machine(t, a, "s1", "pay", "Refunds rounded wrong")
	page := push(t, a, hereA())
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pageFile, path := filepath.Join(dir, "page.json"), filepath.Join(dir, "claude-mem.db")
	if err := os.WriteFile(pageFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := digest(t, db)
	cmd := child(t, "apply-killed", path, pageFile, "", 0)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "applying\n" {
		t.Fatalf("child: %q, %v", line, childErr(cmd, err))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child exit: %v, want killed", err)
	}
	if after := digest(t, db); after != before {
		t.Errorf("the killed apply left rows or a cursor:\n%s", after)
	}
	if res := apply(t, db, hereB(), page); res.Stored != 4 {
		t.Errorf("the next apply %+v, want the 4 records stored", res)
	}
	if n := count(t, db, `SELECT count(*) FROM observations`); n != 1 {
		t.Errorf("%d observations, want 1", n)
	}
}

// The statements a read or a push runs per record go by index, never through every
// pulled or waiting row.
func TestSyncQueryPlans(t *testing.T) {
	db, _ := openTest(t)
	for _, c := range []struct {
		query, want string
		args        []any
	}{
		{sqlOrigins, "USING INDEX sqlite_autoindex_sync_ids_2 (kind=? AND local_id=?)", []any{"observation", `["1"]`}},
		{sqlOutgoing + sqlLimit(10), "USING INDEX sync_ids_state (state=? AND rowid>?)", []any{syncWaiting, 0}},
	} {
		rows, err := db.sql.Query(`EXPLAIN QUERY PLAN `+c.query, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		err = scanAll(rows, func(r *sql.Rows) error {
			var id, parent, unused int
			var d string
			err := r.Scan(&id, &parent, &unused, &d)
			plan = append(plan, d)
			return err
		})
		if err != nil || !slices.ContainsFunc(plan, func(d string) bool { return strings.Contains(d, c.want) }) {
			t.Errorf("plan of %q: %v, %v; want %q", c.query, plan, err, c.want)
		}
	}
}

// The migration run again over its own tables (a version set back) keeps every gid.
func TestSyncMigrationAgain(t *testing.T) {
	db, path := openTest(t)
	machine(t, db, "s1", "pay", "one")
	before := digest(t, db)
	db.Close()
	raw, err := connect(path, false, BusyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.sql.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)-1)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if after := digest(t, again); after != before {
		t.Errorf("the migration run again changed the database:\n%s\n%s", before, after)
	}
}
