package store

import (
	"context"
	"database/sql"
	"errors"
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
				if err := db.TouchSession(context.Background(), s); err != nil {
					t.Fatal(err)
				}
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

func TestRecordPrompt(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "alpha")
	if err := db.RecordPrompt(ctx, s, Prompt{Text: "fix the parser", At: at(1)}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordPrompt(ctx, s, Prompt{SessionID: "s1", Project: "other", Text: "again", At: at(2)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := readSession(t, db, "s1"); !ok {
		t.Error("RecordPrompt did not create the session row")
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

func TestRecordInvalidStoresNothing(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func(db *DB) error
	}{
		{"prompt without session id", func(db *DB) error { return db.RecordPrompt(ctx, Session{Project: "p"}, Prompt{Text: "x", At: t0}) }},
		{"prompt without time", func(db *DB) error { return db.RecordPrompt(ctx, session("s", "p"), Prompt{Text: "x"}) }},
		{"prompt of another session", func(db *DB) error {
			return db.RecordPrompt(ctx, session("s", "p"), Prompt{SessionID: "t", Text: "x", At: t0})
		}},
		{"event without session id", func(db *DB) error { return db.RecordEvent(ctx, Session{Project: "p"}, Event{At: t0}) }},
		{"event without time", func(db *DB) error { return db.RecordEvent(ctx, session("s", "p"), Event{ToolUseID: "u"}) }},
		{"event of another session", func(db *DB) error {
			return db.RecordEvent(ctx, session("s", "p"), Event{SessionID: "t", At: t0})
		}},
		{"touch without session id", func(db *DB) error { return db.TouchSession(ctx, Session{Project: "p"}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			if err := c.call(db); !errors.Is(err, ErrInvalidArgument) {
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

func TestRecordEvent(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s := session("s1", "alpha")
	e := Event{Hook: "PostToolUseFailure", ToolName: "Bash", ToolUseID: "toolu_1", Input: `{"command":"false"}`,
		Response: "Exit code 1", IsError: true, At: at(3)}
	if err := db.RecordEvent(ctx, s, e); err != nil {
		t.Fatal(err)
	}
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

func TestRecordEventIsIdempotentPerToolUse(t *testing.T) {
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
				err := db.RecordEvent(context.Background(), session(e.session, "p"), Event{ToolUseID: e.toolUse, Input: "x", At: at(i)})
				if err != nil {
					t.Fatal(err)
				}
			}
			if n := count(t, db, "SELECT count(*) FROM events"); n != c.want {
				t.Errorf("%d events, want %d", n, c.want)
			}
		})
	}
}

func TestEndSession(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	if err := db.TouchSession(ctx, session("s1", "p")); err != nil {
		t.Fatal(err)
	}
	if err := db.EndSession(ctx, "s1", at(60)); err != nil {
		t.Fatal(err)
	}
	if got, _ := readSession(t, db, "s1"); !got.ended.Equal(at(60)) {
		t.Errorf("ended_at = %v, want %v", got.ended, at(60))
	}
	if err := db.EndSession(ctx, "never-seen", at(60)); err != nil {
		t.Errorf("ending an unrecorded session: %v", err)
	}
	if _, ok := readSession(t, db, "never-seen"); ok {
		t.Error("EndSession created a session row")
	}
	for _, bad := range []struct {
		id string
		at time.Time
	}{{"", at(1)}, {"s1", time.Time{}}} {
		if err := db.EndSession(ctx, bad.id, bad.at); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("EndSession(%q, %v) = %v, want ErrInvalidArgument", bad.id, bad.at, err)
		}
	}
}
