package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// Captured records as the journal hands them to Ingest.

func capStart(s Session, sec int) Captured {
	s.StartedAt = at(sec)
	return Captured{Kind: CaptureStart, Session: s, At: at(sec)}
}

func capPrompt(s Session, id, text string, sec int, redacted map[string]int) Captured {
	s.StartedAt = at(sec)
	return Captured{Kind: CapturePrompt, Session: s, At: at(sec), Day: "2026-11-30", Redacted: redacted,
		Prompt: Prompt{SessionID: s.ID, Project: s.Project, Text: text, At: at(sec), RecordID: id}}
}

func capEvent(s Session, id string, sec int, redacted map[string]int) Captured {
	s.StartedAt = at(sec)
	return Captured{Kind: CaptureEvent, Session: s, At: at(sec), Day: "2026-11-30", Redacted: redacted,
		Event: Event{SessionID: s.ID, Project: s.Project, Hook: "PostToolUse", ToolName: "Bash",
			Input: `{"command":"ls"}`, Response: `{"stdout":"x"}`, At: at(sec), State: StatePending, RecordID: id}}
}

func capEnd(s Session, sec int, final bool) Captured {
	s.StartedAt = at(sec)
	return Captured{Kind: CaptureEnd, Session: s, At: at(sec), Final: final}
}

func mustIngest(t *testing.T, db *DB, want int, recs ...Captured) {
	t.Helper()
	if added := ingest(t, db, recs...); added != want {
		t.Fatalf("Ingest: added %d, want %d", added, want)
	}
}

func redactions(t *testing.T, db *DB) map[string]int {
	t.Helper()
	got, err := db.RedactionsByKind(context.Background(), "2026-11-30", "2026-12-01", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A start, a prompt and an event store the session row and both rows with their record ids.
func TestIngestStoresRecords(t *testing.T) {
	db, _ := openTest(t)
	s := session("s1", "alpha")
	mustIngest(t, db, 2, capStart(s, 1), capPrompt(s, "r-p", "hello", 2, nil), capEvent(s, "r-e", 3, nil))
	if n := count(t, db, `SELECT count(*) FROM sessions WHERE id = 's1' AND project = 'alpha' AND cwd = '/work/alpha' AND started_at = ? AND ended_at IS NULL`,
		at(1).UnixNano()); n != 1 {
		t.Errorf("session row: %d matching, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM prompts WHERE record_id = 'r-p' AND text = 'hello' AND session_id = 's1' AND at = ?`, at(2).UnixNano()); n != 1 {
		t.Errorf("prompt row: %d matching, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM events WHERE record_id = 'r-e' AND state = 'pending' AND cwd = '/work/alpha' AND at = ?`, at(3).UnixNano()); n != 1 {
		t.Errorf("event row: %d matching, want 1", n)
	}
	// The same records again (a crash between commit and removal): nothing added.
	mustIngest(t, db, 0, capStart(s, 1), capPrompt(s, "r-p", "hello", 2, nil), capEvent(s, "r-e", 3, nil))
	if n := count(t, db, `SELECT (SELECT count(*) FROM prompts) + (SELECT count(*) FROM events) + (SELECT count(*) FROM sessions)`); n != 3 {
		t.Errorf("rows after a second ingestion: %d, want 3", n)
	}
}

// Redaction counts are added once per newly stored row: a record ingested again adds none,
// a new record adds its own.
func TestIngestRedactionsCountedOnce(t *testing.T) {
	db, _ := openTest(t)
	s := session("s1", "alpha")
	p := capPrompt(s, "r-p", "[REDACTED:github] [REDACTED:github]", 1, map[string]int{"github": 2})
	e := capEvent(s, "r-e", 2, map[string]int{"github": 1, "aws_secret": 1})
	mustIngest(t, db, 2, p, e)
	want := map[string]int{"github": 3, "aws_secret": 1}
	if got := redactions(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the first ingestion: %v, want %v", got, want)
	}
	mustIngest(t, db, 0, p, e)
	if got := redactions(t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("after ingesting the same records again: %v, want %v (not doubled)", got, want)
	}
	// A record stored twice in one batch (two claims of one line) counts once too.
	p2 := capPrompt(s, "r-p2", "[REDACTED:jwt]", 3, map[string]int{"jwt": 1})
	mustIngest(t, db, 1, p2, p2)
	want["jwt"] = 1
	if got := redactions(t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("after a new record: %v, want %v", got, want)
	}
}

func finalState(t *testing.T, db *DB, id string) (pending, attempts int, ended int64) {
	t.Helper()
	err := db.sql.QueryRowContext(context.Background(),
		`SELECT final_pending, final_attempts, coalesce(ended_at, 0) FROM sessions WHERE id = ?`, id).Scan(&pending, &attempts, &ended)
	if err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	return pending, attempts, ended
}

// A Final end of a session with pending events sets its end time and asks for the summary;
// the same end ingested again (after a final run began) does not reset its attempts, while a
// later end (the session resumed and ended again) asks anew.
func TestIngestEndRequestsFinalOnce(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	s := session("s1", "alpha")
	mustIngest(t, db, 1, capStart(s, 1), capEvent(s, "r-e", 2, nil))
	end := capEnd(s, 10, true)
	mustIngest(t, db, 0, end)
	if p, a, e := finalState(t, db, "s1"); p != 1 || a != 0 || e != at(10).UnixNano() {
		t.Fatalf("after the end: final_pending %d, final_attempts %d, ended_at %d; want 1, 0, %d", p, a, e, at(10).UnixNano())
	}
	if err := db.BeginFinal(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, db, 0, end)
	if p, a, _ := finalState(t, db, "s1"); p != 1 || a != 1 {
		t.Errorf("after the end ingested again: final_pending %d, final_attempts %d; want 1, 1", p, a)
	}
	mustIngest(t, db, 0, capEnd(s, 20, true))
	if p, a, e := finalState(t, db, "s1"); p != 1 || a != 0 || e != at(20).UnixNano() {
		t.Errorf("after a later end: final_pending %d, final_attempts %d, ended_at %d; want 1, 0, %d", p, a, e, at(20).UnixNano())
	}
}

// An end that is not Final, or of a session that left nothing to observe, owes no summary.
func TestIngestEndWithoutSummaryOwed(t *testing.T) {
	db, _ := openTest(t)
	quiet, off := session("quiet", "alpha"), session("off", "alpha")
	mustIngest(t, db, 1, capStart(quiet, 1), capEnd(quiet, 5, true), capEvent(off, "r-e", 2, nil), capEnd(off, 6, false))
	if p, _, e := finalState(t, db, "quiet"); p != 0 || e != at(5).UnixNano() {
		t.Errorf("session without events: final_pending %d, ended_at %d; want 0, %d", p, e, at(5).UnixNano())
	}
	if p, _, e := finalState(t, db, "off"); p != 0 || e != at(6).UnixNano() {
		t.Errorf("end not Final: final_pending %d, ended_at %d; want 0, %d", p, e, at(6).UnixNano())
	}
}

// An end of a session never recorded (an excluded project's) creates no session row.
func TestIngestEndOfUnknownSession(t *testing.T) {
	db, _ := openTest(t)
	mustIngest(t, db, 0, capEnd(session("ghost", "alpha"), 5, true))
	if n := count(t, db, `SELECT count(*) FROM sessions`); n != 0 {
		t.Errorf("sessions: %d rows, want none", n)
	}
}

// One failing record rolls the whole batch back: nothing of it is stored, not even the
// redaction counts or the session rows of the records before it.
func TestIngestFailingRecordRollsBack(t *testing.T) {
	db, _ := openTest(t)
	s := session("s1", "alpha")
	bad := capEvent(s, "r-bad", 4, nil)
	bad.Event.SessionID = "other"
	recs := []Captured{
		capStart(s, 1),
		capPrompt(s, "r-p", "hello", 2, map[string]int{"github": 1}),
		capEvent(s, "r-e", 3, map[string]int{"jwt": 1}),
		bad,
		capEnd(s, 5, true),
	}
	added, err := db.Ingest(context.Background(), recs)
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Ingest: added %d, %v; want ErrInvalidArgument", added, err)
	}
	if n := count(t, db, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM prompts) + (SELECT count(*) FROM events) + (SELECT count(*) FROM redactions)`); n != 0 {
		t.Errorf("%d rows stored by a failed batch, want none", n)
	}
	// The same batch without the bad record stores everything: the rows above were absent
	// because of the rollback, not because these records are not stored.
	recs = append(recs[:3], recs[4])
	mustIngest(t, db, 2, recs...)
	if n := count(t, db, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM prompts) + (SELECT count(*) FROM events) + (SELECT count(*) FROM redactions)`); n != 5 {
		t.Errorf("%d rows stored by the good batch, want 5", n)
	}
}

// A read-only database refuses an ingestion.
func TestIngestReadOnly(t *testing.T) {
	db, path := openTest(t)
	mustIngest(t, db, 0, capStart(session("s1", "alpha"), 1))
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Ingest(context.Background(), []Captured{capPrompt(session("s1", "alpha"), "r", "x", 2, nil)}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Ingest on a read-only database: %v, want ErrReadOnly", err)
	}
}
