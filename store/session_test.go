package store

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestNeedsSummary(t *testing.T) {
	ctx := context.Background()
	s := session("s1", "p")
	// A prompt of TrivialChars is the least that makes a session without tool use worth
	// a summary.
	text := strings.Repeat("x", TrivialChars)
	prompt := func(sec int) func(t *testing.T, db *DB) {
		return func(t *testing.T, db *DB) {
			ingest(t, db, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: text, At: at(sec)}})
		}
	}
	event := func(sec int) func(t *testing.T, db *DB) {
		return func(t *testing.T, db *DB) { addEvents(t, db, s, sec, 1) }
	}
	// summarise runs the observer over every pending event and writes a summary at sec.
	summarise := func(sec int) func(t *testing.T, db *DB) {
		return func(t *testing.T, db *DB) {
			run := "run" + string(rune('a'+sec%26))
			if _, err := db.Claim(ctx, "s1", run, 100, at(sec)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.CompleteRun(ctx, run, RunAnswer{Summary: &Summary{SessionID: "s1", Project: "p", Request: "r", At: at(sec)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name  string
		steps []func(t *testing.T, db *DB)
		want  bool
	}{
		{"unknown session", nil, false},
		{"only started", []func(t *testing.T, db *DB){func(t *testing.T, db *DB) {
			ingest(t, db, Captured{Kind: CaptureStart, Session: s})
		}}, false},
		{"a prompt, no summary", []func(t *testing.T, db *DB){prompt(1)}, true},
		{"trivial: short prompt and answer, no tool use", []func(t *testing.T, db *DB){func(t *testing.T, db *DB) {
			ingest(t, db,
				Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "hello", At: at(1), RecordID: "p1"}},
				Captured{Kind: CaptureAnswer, Session: s, Answer: Answer{Text: strings.Repeat("y", TrivialChars-len("hello")-1), At: at(2), RecordID: "a1"}})
		}}, false},
		{"not trivial: the answer makes TrivialChars", []func(t *testing.T, db *DB){func(t *testing.T, db *DB) {
			ingest(t, db,
				Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "hello", At: at(1), RecordID: "p1"}},
				Captured{Kind: CaptureAnswer, Session: s, Answer: Answer{Text: strings.Repeat("y", TrivialChars-len("hello")), At: at(2), RecordID: "a1"}})
		}}, true},
		{"not trivial: a short prompt with tool use", []func(t *testing.T, db *DB){func(t *testing.T, db *DB) {
			ingest(t, db, Captured{Kind: CapturePrompt, Session: s, Prompt: Prompt{Text: "ls", At: at(1)}})
		}, event(2)}, true},
		{"a pending event", []func(t *testing.T, db *DB){event(1)}, true},
		{"summarised", []func(t *testing.T, db *DB){prompt(1), event(2), summarise(10)}, false},
		{"a prompt after the summary", []func(t *testing.T, db *DB){event(2), summarise(10), prompt(11)}, true},
		{"an event after the summary", []func(t *testing.T, db *DB){event(2), summarise(10), event(12)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTest(t)
			for _, step := range c.steps {
				step(t, db)
			}
			if got, err := db.NeedsSummary(ctx, "s1"); err != nil || got != c.want {
				t.Errorf("NeedsSummary = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func TestSessionPromptsAndObservations(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	s1, s2 := session("s1", "p"), session("s2", "p")
	for _, p := range []struct {
		s   Session
		sec int
	}{{s1, 3}, {s1, 1}, {s2, 2}, {s1, 2}} {
		ingest(t, db, Captured{Kind: CapturePrompt, Session: p.s, Prompt: Prompt{Text: p.s.ID + "@" + string(rune('0'+p.sec)), At: at(p.sec)}})
	}
	remember(t, db, s1, 5, []Observation{{Title: "b", At: at(7)}, {Title: "a", At: at(6)}, {Title: "c", At: at(8)}}, nil)
	remember(t, db, s2, 9, []Observation{{Title: "other session", At: at(9)}}, nil)

	texts := func(ps []Prompt) (out []string) {
		for _, p := range ps {
			out = append(out, p.Text)
		}
		return out
	}
	titles := func(os []Observation) (out []string) {
		for _, o := range os {
			out = append(out, o.Title)
		}
		return out
	}
	for _, c := range []struct {
		limit         int
		prompts, obss []string
	}{
		{10, []string{"s1@1", "s1@2", "s1@3"}, []string{"a", "b", "c"}},
		{2, []string{"s1@2", "s1@3"}, []string{"b", "c"}}, // the latest, oldest first
		{0, nil, nil},
	} {
		ps, err := db.SessionPrompts(ctx, "s1", c.limit)
		if err != nil || !reflect.DeepEqual(texts(ps), c.prompts) {
			t.Errorf("SessionPrompts(limit %d) = %v, %v; want %v", c.limit, texts(ps), err, c.prompts)
		}
		os, err := db.SessionObservations(ctx, "s1", c.limit)
		if err != nil || !reflect.DeepEqual(titles(os), c.obss) {
			t.Errorf("SessionObservations(limit %d) = %v, %v; want %v", c.limit, titles(os), err, c.obss)
		}
	}
	ps, _ := db.SessionPrompts(ctx, "s1", 1)
	if want := (Prompt{ID: ps[0].ID, SessionID: "s1", Project: "p", Text: "s1@3", At: at(3)}); ps[0] != want {
		t.Errorf("prompt %+v, want %+v", ps[0], want)
	}
}

func TestPendingFinalsUntilDoneOrAttemptsRunOut(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	// Ended with the observer off (not Final): no summary is requested yet.
	for id, end := range map[string]int{"a": 100, "b": 50, "c": 100} {
		ingest(t, db, Captured{Kind: CaptureStart, Session: session(id, "p")},
			Captured{Kind: CaptureEnd, Session: session(id, "p"), At: at(end)})
	}
	pending := func(before int) []string {
		t.Helper()
		got, err := db.PendingFinals(ctx, at(before), 3)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := pending(1000); len(got) != 0 {
		t.Fatalf("finals offered before any was requested: %v", got)
	}
	for _, id := range []string{"a", "b"} {
		if err := db.RequestFinal(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := pending(1000); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Fatalf("PendingFinals = %v, want oldest end first [b a]", got)
	}
	if got := pending(60); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("PendingFinals before 60 = %v, want [b]", got)
	}
	if err := db.FinalDone(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := db.BeginFinal(ctx, "b"); err != nil {
			t.Fatal(err)
		}
	}
	if got := pending(1000); len(got) != 0 {
		t.Fatalf("PendingFinals = %v after a's summary and b's 3 attempts, want none", got)
	}
}

func TestFinalSettledAndARequestAnew(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ingest(t, db, Captured{Kind: CaptureStart, Session: session("s", "p")})
	settled := func() bool {
		t.Helper()
		ok, err := db.FinalSettled(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if ok, err := db.FinalSettled(ctx, "unknown"); ok || err != nil {
		t.Fatalf("FinalSettled of an unknown session = %v, %v", ok, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.RequestFinal(ctx, "s"))
	if settled() {
		t.Fatal("settled before any final run")
	}
	must(db.BeginFinal(ctx, "s"))
	must(db.FinalDone(ctx, "s"))
	if !settled() {
		t.Fatal("not settled after a final run wrote the summary")
	}
	// The session resumes and ends again: a new summary is owed, with fresh attempts.
	must(db.RequestFinal(ctx, "s"))
	if settled() {
		t.Fatal("a new request is still settled")
	}
	if n := count(t, db, "SELECT final_attempts FROM sessions WHERE id = 's'"); n != 0 {
		t.Fatalf("attempts %d after a new request, want 0", n)
	}
}
