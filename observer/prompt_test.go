package observer

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// A batch lists as recorded the session's observations and the project's newest (another
// project's never), with the turns its events cover; a summary run is shown the session's
// observations whole and its latest turns.
func TestPromptInputOfABatchAndOfTheSummary(t *testing.T) {
	ctx := context.Background()
	db, err := memory.Memory{DataDir: t.TempDir()}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	// observed stores one event of session s at sec and the observation titled title.
	observed := func(s store.Session, sec int, title string) {
		memtest.Event(t, db, s, store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: "x", At: at(sec)})
		run := fmt.Sprint("run-", sec)
		if _, err := db.Claim(ctx, s.ID, run, 10, at(sec)); err != nil {
			t.Fatal(err)
		}
		memtest.Complete(t, db, run, []store.Observation{{Type: "change", Title: title, At: at(sec)}}, nil)
	}
	mine, other, elsewhere := store.Session{ID: "s1", Project: "p"}, store.Session{ID: "s0", Project: "p"}, store.Session{ID: "x", Project: "q"}
	observed(other, 1, "other session's finding")
	observed(elsewhere, 2, "another project's finding")
	observed(mine, 3, "this session's finding")
	if _, err := db.Ingest(ctx, []store.Captured{
		{Kind: store.CapturePrompt, Session: mine, Prompt: store.Prompt{Text: "P10", At: at(10), RecordID: "p10"}},
		{Kind: store.CaptureAnswer, Session: mine, Answer: store.Answer{Text: "A12", At: at(12), RecordID: "a12"}},
	}); err != nil {
		t.Fatal(err)
	}
	memtest.Event(t, db, mine, store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: "y", At: at(11)})
	events, err := db.Claim(ctx, "s1", "batch", 10, at(20))
	if err != nil {
		t.Fatal(err)
	}
	o := &observeRun{s: &settings.Settings{SystemPrompt: true}, session: "s1"}
	titles := func(obs []store.Observation) (out []string) {
		for _, ob := range obs {
			out = append(out, ob.Title)
		}
		return out
	}
	in, err := o.promptInput(ctx, db, events, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := titles(in.Recorded), []string{"this session's finding", "this session's finding", "other session's finding"}; !slices.Equal(got, want) {
		t.Errorf("recorded %q, want %q (the prompt lists each once)", got, want)
	}
	if len(in.Earlier) != 0 || in.Final || in.Inline || in.Project != "p" || len(in.Events) != 1 {
		t.Errorf("batch input %+v", in)
	}
	if len(in.Prompts) != 1 || in.Prompts[0].Text != "P10" || len(in.Answers) != 1 || in.Answers[0].Text != "A12" {
		t.Errorf("batch turns %+v %+v, want P10 and A12", in.Prompts, in.Answers)
	}

	sum, err := o.promptInput(ctx, db, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(sum.Earlier); !slices.Equal(got, []string{"this session's finding"}) || !sum.Final || len(sum.Answers) != 1 {
		t.Errorf("summary input: earlier %q, final %v, answers %+v", got, sum.Final, sum.Answers)
	}
}
