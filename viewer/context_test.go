package viewer

import (
	"context"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/seed"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/store"
)

// pageContext is the text of a context page's <pre>, unescaped.
func pageContext(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `<pre class="context" id="context">`)
	text, _, ok2 := strings.Cut(rest, "</pre>")
	if !ok || !ok2 {
		t.Fatalf("no context text in\n%s", body)
	}
	return html.UnescapeString(text)
}

// TestContextPageIsWhatSessionStartRenders: the page holds, byte for byte, what the
// renderer gives for the same story in the viewer's zone, and says what it holds.
func TestContextPageIsWhatSessionStartRenders(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	f := newFixture(t)
	var err error
	f.h, err = New(Config{Memory: f.mem, Loc: loc, ContextObservations: 200, Host: testName, Port: testPort, Token: testToken, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	db := f.db()
	ctx := context.Background()
	if err := seed.Story(ctx, db, "pay & <ments>", 500, t0, loc); err != nil {
		t.Fatal(err)
	}
	st, err := db.Story(ctx, "pay & <ments>", 200)
	if err != nil {
		t.Fatal(err)
	}
	want, shown := notice.Render(notice.Context{Project: "pay & <ments>", Story: st, Loc: loc})
	body := f.get("/context?project=pay+%26+%3Cments%3E", 200)
	if got := pageContext(t, body); got != want {
		t.Fatalf("page text differs from the renderer's:\n%s\n----\n%s", got, want)
	}
	if len(want) < notice.MaxContext*9/10 || shown.Observations == 0 {
		t.Fatalf("the story is %d bytes, %+v: the check above compares too little", len(want), shown)
	}
	if !strings.Contains(body, "&lt;ments&gt;") || strings.Contains(body, "<ments>") {
		t.Error("project name not escaped")
	}
	if !strings.Contains(body, "of 8000 bytes") {
		t.Error("page does not say how much of the budget the text uses")
	}
	// Another project's memory is not this one's: it gets the one short line.
	if got := pageContext(t, f.get("/context?project=other", 200)); got != "# claude-mem: other — no memory yet" {
		t.Errorf("empty project: %q", got)
	}
	// With nothing stored at all, the same line.
	if got := pageContext(t, newFixture(t).get("/context?project=other", 200)); got != "# claude-mem: other — no memory yet" {
		t.Errorf("no database: %q", got)
	}
	// The timeline links the page, and the link names the project exactly (html/template
	// escapes it once: a name with a space or "&" once came out escaped twice).
	tl := f.get("/timeline?project=pay+%26+%3Cments%3E", 200)
	const link = `href="/context?project=pay%20%26%20%3cments%3e"`
	if !strings.Contains(tl, link) {
		t.Fatalf("timeline lacks %s:\n%s", link, tl)
	}
	if got := pageContext(t, f.get("/context?project=pay%20%26%20%3cments%3e", 200)); got != want {
		t.Errorf("the timeline's link leads elsewhere:\n%s", got)
	}
}

// TestSessionPageTitledByItsRequest: the session page is headed by the request SessionStart
// heads the session with, and shows the latest summary's next steps; a session with no
// summary is headed by its first prompt.
func TestSessionPageTitledByItsRequest(t *testing.T) {
	f, db := seeded(t)
	f.observe(db, "sess-1", "alpha", nil, &store.Summary{Request: "Make the lockfile tests reliable, again", NextSteps: "Run the suite 100 times", At: t0})
	body := f.get("/session/sess-1", 200)
	for _, want := range []string{"<title>Make the lockfile tests reliable, again · claude-mem</title>",
		"<h1>Make the lockfile tests reliable, again</h1>", "<h2>Next steps</h2><p class=\"prose\">Run the suite 100 times</p>"} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q:\n%s", want, body)
		}
	}
	memtest.Prompt(t, db, store.Session{ID: "sess-3", Project: "alpha"},
		store.Prompt{Text: "\n  why is the build slow?\nlogs follow", At: t0})
	body = f.get("/session/sess-3", 200)
	if !strings.Contains(body, "<h1>why is the build slow?</h1>") || strings.Contains(body, "Next steps") {
		t.Errorf("session without a summary:\n%s", body)
	}
}
