package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"
)

type sessionRow struct {
	project, cwd   string
	started, ended time.Time
}

func readSession(t *testing.T, db *DB, id string) (sessionRow, bool) {
	t.Helper()
	var r sessionRow
	var started, ended sql.NullInt64
	err := db.sql.QueryRow(`SELECT project, cwd, started_at, ended_at FROM sessions WHERE id = ?`, id).
		Scan(&r.project, &r.cwd, &started, &ended)
	if err == sql.ErrNoRows {
		return r, false
	}
	if err != nil {
		t.Fatal(err)
	}
	r.started, r.ended = fromNanos(started), fromNanos(ended)
	return r, true
}

// The session row keeps the first project, cwd and start time any record of it brought.
func TestSessionUpsertKeepsFirstValues(t *testing.T) {
	for _, c := range []struct {
		name string
		seen []Session
		want sessionRow
	}{
		{"first write wins", []Session{
			{ID: "s", Project: "alpha", Cwd: "/a", StartedAt: at(0)},
			{ID: "s", Project: "beta", Cwd: "/b", StartedAt: at(5)},
		}, sessionRow{"alpha", "/a", at(0), time.Time{}}},
		{"empty fields are filled later", []Session{
			{ID: "s"},
			{ID: "s", Project: "beta", Cwd: "/b", StartedAt: at(5)},
			{ID: "s", Project: "gamma", Cwd: "/c", StartedAt: at(9)},
		}, sessionRow{"beta", "/b", at(5), time.Time{}}},
		{"later empty values erase nothing", []Session{
			{ID: "s", Project: "alpha", Cwd: "/a", StartedAt: at(0)},
			{ID: "s"},
		}, sessionRow{"alpha", "/a", at(0), time.Time{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			for _, s := range c.seen {
				ingest(t, db, Captured{Kind: CaptureStart, Session: s})
			}
			got, ok := readSession(t, db, "s")
			if !ok || got != c.want {
				t.Errorf("session = %+v (found %v), want %+v", got, ok, c.want)
			}
			if n := count(t, db, "SELECT count(*) FROM sessions"); n != 1 {
				t.Errorf("%d session rows, want 1", n)
			}
		})
	}
}

// A prompt's session and project default to its session's; a project of its own is kept.
func TestIngestPrompt(t *testing.T) {
	db, _ := openTest(t)
	s := session("s1", "alpha")
	ingest(t, db, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "fix the parser", At: at(1)}},
		Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{SessionID: "s1", Project: "other", Text: "again", At: at(2)}})
	if _, ok := readSession(t, db, "s1"); !ok {
		t.Error("a prompt did not create its session row")
	}
	rows, err := db.sql.Query(`SELECT session_id, project, text, at FROM prompts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []Prompt
	if err := scanAll(rows, func(r *sql.Rows) error {
		var p Prompt
		var a sql.NullInt64
		err := r.Scan(&p.SessionID, &p.Project, &p.Text, &a)
		p.At = fromNanos(a)
		got = append(got, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []Prompt{
		{SessionID: "s1", Project: "alpha", Text: "fix the parser", At: at(1)},
		{SessionID: "s1", Project: "other", Text: "again", At: at(2)},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("prompts = %+v, want %+v", got, want)
	}
}

func TestIngestInvalidStoresNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  Captured
	}{
		{"prompt without session id", Captured{Kind: CapturePrompt, Session: Session{Project: "p"}, Prompt: Prompt{Text: "x", At: t0}}},
		{"prompt without time", Captured{Kind: CapturePrompt, Session: session("s", "p"), Prompt: Prompt{Text: "x"}}},
		{"prompt of another session", Captured{Kind: CapturePrompt, Session: session("s", "p"), Prompt: Prompt{SessionID: "t", Text: "x", At: t0}}},
		{"event without session id", Captured{Kind: CaptureEvent, Session: Session{Project: "p"}, Event: Event{At: t0}}},
		{"event without time", Captured{Kind: CaptureEvent, Session: session("s", "p"), Event: Event{ToolUseID: "u"}}},
		{"event of another session", Captured{Kind: CaptureEvent, Session: session("s", "p"), Event: Event{SessionID: "t", At: t0}}},
		{"start without session id", Captured{Kind: CaptureStart, Session: Session{Project: "p"}}},
		{"end without time", Captured{Kind: CaptureEnd, Session: session("s", "p")}},
		{"unknown kind", Captured{Kind: "rename", Session: session("s", "p")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			if _, err := db.Ingest(context.Background(), []Captured{c.rec}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("%v, want ErrInvalidArgument", err)
			}
			for _, table := range []string{"sessions", "prompts", "events"} {
				if n := count(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Errorf("%d rows in %s after a refused write", n, table)
				}
			}
		})
	}
}

// An event is stored whole, pending, its session and cwd defaulting to its session's.
func TestIngestEvent(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "alpha")
	e := Event{Hook: "PostToolUseFailure", ToolName: "Bash", ToolUseID: "toolu_1", Input: `{"command":"false"}`,
		Response: "Exit code 1", IsError: true, At: at(3)}
	ingest(t, db, Captured{Kind: CaptureEvent, Session: s, Event: e})
	got, err := db.Claim(ctx, "s1", "run", 10, at(4))
	if err != nil || len(got) != 1 {
		t.Fatalf("Claim = %+v, %v", got, err)
	}
	want := e
	want.ID, want.SessionID, want.Project, want.Cwd = got[0].ID, "s1", "alpha", "/work/alpha"
	want.State, want.RunID = StateProcessing, "run"
	if got[0] != want {
		t.Errorf("stored event\n%+v\nwant\n%+v", got[0], want)
	}
}

// A second record of the same (session, ToolUseID) is ignored, so a retried hook (two
// journal records, two record ids) never duplicates an event; events without a ToolUseID
// are always stored.
func TestIngestEventIsIdempotentPerToolUse(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []struct{ session, toolUse string }
		want   int
	}{
		{"retried hook", []struct{ session, toolUse string }{{"s1", "toolu_1"}, {"s1", "toolu_1"}, {"s1", "toolu_1"}}, 1},
		{"different tool uses", []struct{ session, toolUse string }{{"s1", "toolu_1"}, {"s1", "toolu_2"}}, 2},
		{"same id in two sessions", []struct{ session, toolUse string }{{"s1", "toolu_1"}, {"s2", "toolu_1"}}, 2},
		{"no tool use id: always stored", []struct{ session, toolUse string }{{"s1", ""}, {"s1", ""}}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			for i, e := range c.events {
				ingest(t, db, Captured{Kind: CaptureEvent, Session: session(e.session, "p"),
					Event: Event{ToolUseID: e.toolUse, Input: "x", At: at(i), RecordID: fmt.Sprint("r", i)}})
			}
			if n := count(t, db, "SELECT count(*) FROM events"); n != c.want {
				t.Errorf("%d events, want %d", n, c.want)
			}
		})
	}
}
