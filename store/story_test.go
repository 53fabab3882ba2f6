package store

import (
	"context"
	"testing"
	"time"
)

// TestStory: a story reads only its project, newest first, within the limit, and heads each
// session with its latest summary's request, else its first non-blank prompt's first line.
func TestStory(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	a, b, c := session("a", "web"), session("b", "web"), session("c", "other")
	b.StartedAt = time.Time{}
	for _, p := range []struct {
		s    Session
		text string
		sec  int
	}{{a, "  \n", 1}, {a, "\n  Fix the login form\nwith details", 2}, {a, "a later prompt", 3}, {b, "b's prompt", 4}, {c, "other", 5}} {
		ingest(t, db, Captured{Kind: CapturePrompt, Session: p.s, Prompt: Prompt{Text: p.text, At: at(p.sec)}})
	}
	obs := func(s Session, title string, sec int) Observation {
		return Observation{SessionID: s.ID, Project: s.Project, Type: "change", Title: title, Subtitle: "sub", Narrative: "long", Facts: []string{"f"}, At: at(sec)}
	}
	if _, err := db.CompleteRun(ctx, "r1", RunAnswer{Observations: []Observation{obs(a, "a1", 10), obs(a, "a2", 11), obs(c, "c1", 12)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CompleteRun(ctx, "r2", RunAnswer{Observations: []Observation{obs(b, "b1", 20)}, Summary: &Summary{SessionID: b.ID, Project: "web", Request: "Speed up\nthe report", Learned: "L", NextSteps: "N", At: at(30)}}); err != nil {
		t.Fatal(err)
	}

	st, err := db.Story(ctx, "web", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Observations) != 2 || st.Observations[0].Title != "b1" || st.Observations[1].Title != "a2" {
		t.Fatalf("observations %+v, want b1, a2", st.Observations)
	}
	if o := st.Observations[0]; o.SessionID != "b" || o.Type != "change" || o.Subtitle != "sub" || !o.At.Equal(at(20)) || o.Narrative != "" || o.Facts != nil {
		t.Errorf("observation %+v: want the shown columns only", o)
	}
	if len(st.Summaries) != 1 || st.Summaries[0].Learned != "L" || st.Summaries[0].NextSteps != "N" {
		t.Errorf("summaries %+v", st.Summaries)
	}
	want := map[string]StorySession{
		"a": {ID: "a", StartedAt: t0, Request: "Fix the login form"},
		"b": {ID: "b", Request: "Speed up"},
	}
	if len(st.Sessions) != len(want) {
		t.Errorf("sessions %+v, want %+v", st.Sessions, want)
	}
	for id, w := range want {
		if g := st.Sessions[id]; g.ID != w.ID || !g.StartedAt.Equal(w.StartedAt) || g.Request != w.Request {
			t.Errorf("session %s = %+v, want %+v", id, g, w)
		}
	}

	if st, err := db.Story(ctx, "web", 0); err != nil || len(st.Observations) != 0 || len(st.Summaries) != 1 || len(st.Sessions) != 1 {
		t.Errorf("limit 0: %+v, %v; want the summary and its session only", st, err)
	}
	if st, err := db.Story(ctx, "none", 10); err != nil || !st.Empty() || len(st.Sessions) != 0 {
		t.Errorf("unknown project: %+v, %v", st, err)
	}
}
