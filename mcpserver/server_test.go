package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// world is a data dir and a project dir ("web", a repository) for one test.
type world struct {
	t       testing.TB
	root    string
	mem     memory.Memory
	dbPath  string
	webDir  string
	ingests atomic.Int32
}

func newWorld(t testing.TB) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, root: root, webDir: filepath.Join(root, "src", "web")}
	data := filepath.Join(root, "data")
	w.mem = memory.Memory{DataDir: data, Journal: journal.New(data, "", "", "", "", nil), Log: zerolog.Nop(),
		IngestInto: func(context.Context, *store.DB) error { w.ingests.Add(1); return nil }}
	w.dbPath = w.mem.Path()
	for _, d := range []string{filepath.Join(root, "data"), filepath.Join(w.webDir, ".git"), filepath.Join(w.webDir, "pkg")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) deps(cwd string) Deps {
	return Deps{
		Memory: w.mem, Cwd: cwd, SessionID: "sess-1",
		Project: project.Options{Home: w.root, GOOS: "linux"},
		Now:     func() time.Time { return t0.Add(time.Hour) }, Log: zerolog.Nop(), Version: "test",
	}
}

// waiting leaves a file in the capture journal: every read ingests from then on.
func (w *world) waiting() {
	w.t.Helper()
	if err := os.MkdirAll(w.mem.Journal.Dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.mem.Journal.Dir, "s.jsonl"), nil, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// connect starts a server with d and returns a connected client session.
func connect(t testing.TB, d Deps) *mcp.ClientSession {
	t.Helper()
	srv := New(d)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); srv.Close() })
	return cs
}

// seed stores memory for projects web and api through the store's own API.
func (w *world) seed() {
	w.t.Helper()
	ctx := context.Background()
	db, err := w.mem.OpenWrite()
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	web := store.Session{ID: "s-web", Project: "web", Cwd: w.webDir, StartedAt: t0}
	api := store.Session{ID: "s-api", Project: "api", Cwd: "/src/api", StartedAt: t0}
	memtest.Prompt(w.t, db, web, store.Prompt{Text: "why does the login cookie expire?", At: t0}) // P1
	complete := func(s store.Session, sec int, obs []store.Observation, sum *store.Summary) {
		run := fmt.Sprintf("run-%s-%d", s.ID, sec)
		at := t0.Add(time.Duration(sec) * time.Second)
		memtest.Event(w.t, db, s, store.Event{Input: "x", At: at})
		if _, err := db.Claim(ctx, s.ID, run, 10, at); err != nil {
			w.t.Fatal(err)
		}
		memtest.Complete(w.t, db, run, obs, sum)
	}
	complete(web, 10, []store.Observation{ // 1, 2
		{Type: "bugfix", Title: "Login cookie survives reloads", Narrative: "The cookie had no Max-Age; set to 30 days.",
			Facts: []string{"Max-Age=2592000"}, Concepts: []string{"gotcha"}, FilesModified: []string{"auth/cookie.go"}, At: t0.Add(10 * time.Second)},
		{Type: "decision", Title: "Sessions stay server-side", Narrative: "Tokens in cookies only name the session.", At: t0.Add(11 * time.Second)},
	}, &store.Summary{Request: "Fix the login cookie", Learned: "Max-Age was missing", At: t0.Add(12 * time.Second)}) // S1
	complete(api, 20, []store.Observation{{Type: "feature", Title: "Login endpoint rate limited", Narrative: "Five tries a minute.", At: t0.Add(20 * time.Second)}}, nil) // 3
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v (want a tool result)", tool, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// listTools is what tools/list answers a client.
func listTools(t *testing.T) []*mcp.Tool {
	w := newWorld(t)
	res, err := connect(t, w.deps(w.webDir)).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func TestToolsList(t *testing.T) {
	var names []string
	for _, tool := range listTools(t) {
		names = append(names, tool.Name)
		if len(tool.Description) < 200 || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description %d chars, input schema %v, output schema %v", tool.Name, len(tool.Description), tool.InputSchema != nil, tool.OutputSchema != nil)
		}
	}
	if got := strings.Join(names, ","); got != "get_observations,remember,search,timeline" {
		t.Errorf("tools %s", got)
	}
}

var searchLine = regexp.MustCompile(`^#(\d+|S\d+|P\d+) \d{4}-\d\d-\d\d \[[a-z]+\] .+ \([a-z]+\) · \d+ chars$`)

func TestSearch(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, w.deps(filepath.Join(w.webDir, "pkg"))) // a subdirectory of the repository: project web
	if got := text(call(t, cs, "search", map[string]any{"query": "login"})); got != "No memory stored yet." {
		t.Errorf("before any capture: %q", got)
	}
	w.seed()
	w.waiting()
	ingestsBefore := w.ingests.Load()
	res := call(t, cs, "search", map[string]any{"query": "login cookie"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if w.ingests.Load() != ingestsBefore+1 {
		t.Errorf("search did not ingest pending captures first")
	}
	lines := strings.Split(text(res), "\n")
	var hits []string
	for _, l := range lines[1:] {
		if searchLine.MatchString(l) {
			hits = append(hits, l)
		}
	}
	// #2 holds neither word: it is found as the context of the session's matches.
	if len(hits) != 4 || !strings.HasPrefix(hits[0], "#1 2026-11-30 [bugfix] Login cookie survives reloads (web) · ") ||
		!strings.Contains(text(res), "#2 2026-11-30 [decision] Sessions stay server-side (web)") ||
		!strings.Contains(text(res), "#S1 2026-11-30 [summary] Fix the login cookie (web)") ||
		!strings.Contains(text(res), "#P1 2026-11-30 [prompt] why does the login cookie expire? (web) · 33 chars") {
		t.Errorf("search text:\n%s", text(res))
	}
	if strings.Contains(text(res), "(api)") {
		t.Errorf("the default project is the cwd's (web), but api's memory shows:\n%s", text(res))
	}
	var out IndexOut
	structured(t, res, &out)
	if out.Project != "web" || !strings.HasPrefix(out.Message, `4 hit(s) for "login cookie" in project web, best first: Open records with get_observations`) ||
		len(out.Entries) != 4 || out.Entries[0].Ref != "1" || out.Entries[0].Kind != "observation" || out.Entries[0].Size == 0 {
		t.Errorf("structured %+v", out)
	}

	// "*" is every project; a name is that project.
	for _, c := range []struct {
		project string
		want    []string
		absent  string
	}{
		{"*", []string{"(web)", "#3 2026-11-30 [feature] Login endpoint rate limited (api)"}, ""},
		{"api", []string{"#3 2026-11-30 [feature] Login endpoint rate limited (api)"}, "(web)"},
		{"nosuch", []string{`No memory matches "login" in project nosuch.`}, "#"},
	} {
		got := text(call(t, cs, "search", map[string]any{"query": "login", "project": c.project}))
		for _, want := range c.want {
			if !strings.Contains(got, want) {
				t.Errorf("project %q: lacks %q:\n%s", c.project, want, got)
			}
		}
		if c.absent != "" && strings.Contains(got, c.absent) {
			t.Errorf("project %q: has %q:\n%s", c.project, c.absent, got)
		}
	}
	// Filters: type, kinds, time, limit.
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"query": "login", "type": "bugfix"}, []string{"1"}},
		{map[string]any{"query": "login", "type": "summary"}, []string{"S1"}},
		{map[string]any{"query": "login", "type": "prompts"}, []string{"P1"}},
		{map[string]any{"query": "login", "since": "2026-12-01"}, nil},
		{map[string]any{"query": "login", "until": "2026-11-29"}, nil},
		{map[string]any{"query": "login", "since": "2026-11-30T10:00:11Z"}, []string{"S1", "2"}},
		{map[string]any{"query": "login", "since": "2h", "type": "observation"}, []string{"1", "2"}},
		{map[string]any{"query": "login cookie", "limit": 1}, []string{"1"}},
	} {
		var out IndexOut
		structured(t, call(t, cs, "search", c.args), &out)
		var refs []string
		for _, e := range out.Entries {
			refs = append(refs, e.Ref)
		}
		if strings.Join(refs, ",") != strings.Join(c.want, ",") {
			t.Errorf("search %v: %v, want %v", c.args, refs, c.want)
		}
	}
}

func TestTimelineAndGet(t *testing.T) {
	w := newWorld(t)
	w.seed()
	cs := connect(t, w.deps(w.webDir))
	res := call(t, cs, "timeline", map[string]any{"id": "#2", "before": 1, "after": 1})
	want := "Timeline of project web around #2, oldest first (→ marks it):\n" +
		"  #1 2026-11-30 10:00 [bugfix] Login cookie survives reloads (web) · "
	if res.IsError || !strings.HasPrefix(text(res), want) || !strings.Contains(text(res), "\n→ #2 2026-11-30 10:00 [decision] Sessions stay server-side (web)") ||
		!strings.Contains(text(res), "\n  #S1 2026-11-30 10:00 [summary] Fix the login cookie (web)") || strings.Contains(text(res), "#P1") {
		t.Errorf("timeline by id:\n%s", text(res))
	}
	var out IndexOut
	structured(t, call(t, cs, "timeline", map[string]any{"query": "expire"}), &out)
	if out.Anchor != "P1" || len(out.Entries) != 4 || out.Entries[0].Ref != "P1" {
		t.Errorf("timeline by query: %+v", out)
	}

	res = call(t, cs, "get_observations", map[string]any{"ids": []any{1, "S1", "#P1", 99, "p42"}})
	got := text(res)
	for _, want := range []string{
		"#1 2026-11-30 10:00:10 [bugfix] Login cookie survives reloads (project web, session s-web)",
		"Narrative: The cookie had no Max-Age; set to 30 days.", "Facts:\n- Max-Age=2592000", "Concepts: gotcha", "Files modified:\n- auth/cookie.go",
		"#S1 2026-11-30 10:00:12 [summary] (project web, session s-web)\nRequest: Fix the login cookie\nLearned: Max-Age was missing",
		"#P1 2026-11-30 10:00:00 [prompt] (project web, session s-web)\n> why does the login cookie expire?",
		"Not found: #99, #P42",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("get_observations lacks %q:\n%s", want, got)
		}
	}
	var recs RecordsOut
	structured(t, res, &recs)
	if res.IsError || len(recs.Records) != 3 || recs.Records[0].Narrative == "" || strings.Join(recs.Missing, ",") != "99,P42" || len(recs.LeftOut) != 0 {
		t.Errorf("structured %+v (error %v)", recs, res.IsError)
	}
}

func TestRememberThenFound(t *testing.T) {
	w := newWorld(t)
	cs := connect(t, w.deps(w.webDir))
	// The control: the word is nowhere before the note.
	if got := text(call(t, cs, "search", map[string]any{"query": "zanzibar"})); strings.Contains(got, "#") {
		t.Fatalf("before: %s", got)
	}
	res := call(t, cs, "remember", map[string]any{"title": "Deploys go through zanzibar", "text": "Every deploy uses the zanzibar pipeline; never push to prod by hand.", "type": "decision"})
	var out RememberOut
	structured(t, res, &out)
	if res.IsError || out.Project != "web" || out.Ref == "" || !strings.HasPrefix(text(res), "Remembered as #"+out.Ref+" [decision] Deploys go through zanzibar (project web)") {
		t.Fatalf("remember: %s %+v", text(res), out)
	}
	if got := text(call(t, cs, "search", map[string]any{"query": "pipeline"})); !strings.Contains(got, "#"+out.Ref+" 2026-11-30 [decision] Deploys go through zanzibar (web)") {
		t.Errorf("the note is not found at once:\n%s", got)
	}
	if got := text(call(t, cs, "get_observations", map[string]any{"ids": []any{out.ID}})); !strings.Contains(got, "(project web, session sess-1, written by the model)") {
		t.Errorf("the note is not marked as the model's:\n%s", got)
	}
	res = call(t, cs, "remember", map[string]any{"title": "Plain note", "text": "x"})
	if structured(t, res, &out); res.IsError || out.Type != "note" {
		t.Errorf("default type: %+v", out)
	}
}

func TestBadInput(t *testing.T) {
	w := newWorld(t)
	w.seed()
	cs := connect(t, w.deps(w.webDir))
	huge := strings.Repeat("word ", 200_000) // 1 MB
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"forget_everything", map[string]any{}, `unknown tool "forget_everything"`},
		{"search", map[string]any{}, "query"},
		{"search", map[string]any{"query": "  "}, "query is empty"},
		{"search", map[string]any{"query": 42}, "query"},
		{"search", map[string]any{"query": huge}, "query is 1000000 characters; at most 500"},
		{"search", map[string]any{"query": "x", "limit": "ten"}, "limit"},
		{"search", map[string]any{"query": "x", "limit": 0}, "limit 0 is out of range: use 1 to 50"},
		{"search", map[string]any{"query": "x", "limit": 1000}, "limit 1000 is out of range"},
		{"search", map[string]any{"query": "x", "type": "gossip"}, `type "gossip"`},
		{"search", map[string]any{"query": "x", "since": "last tuesday"}, `since: "last tuesday" is not a date`},
		{"search", map[string]any{"query": "x", "bogus": 1}, "bogus"},
		{"timeline", map[string]any{}, "give id"},
		{"timeline", map[string]any{"id": 999}, "no record #999"},
		{"timeline", map[string]any{"id": "S77"}, "no record #S77"},
		{"timeline", map[string]any{"id": "abc"}, `id "abc" is not a ref`},
		{"timeline", map[string]any{"id": true}, "id"},
		{"timeline", map[string]any{"id": 1, "query": "x"}, "not both"},
		{"timeline", map[string]any{"id": 1, "before": -1}, "before -1 is out of range"},
		{"get_observations", map[string]any{}, "ids"},
		{"get_observations", map[string]any{"ids": []any{}}, "ids is empty"},
		{"get_observations", map[string]any{"ids": "1,2"}, "ids"},
		{"get_observations", map[string]any{"ids": []any{1.5}}, "ids"},
		{"get_observations", map[string]any{"ids": []any{"1.5"}}, "id 1.5 is not a ref"},
		{"get_observations", map[string]any{"ids": []any{-3}}, "id -3 is not a ref"},
		{"get_observations", map[string]any{"ids": []any{"X9"}}, `id "X9" is not a ref`},
		{"get_observations", map[string]any{"ids": []any{404, 405}}, "Not found: #404, #405"},
		{"get_observations", map[string]any{"ids": []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}}, "21 ids asked for; at most 20"},
		{"remember", map[string]any{"title": "t"}, "text"},
		{"remember", map[string]any{"title": "", "text": "x"}, "title is empty"},
		{"remember", map[string]any{"title": "a\nb", "text": "x"}, "title must be one line"},
		{"remember", map[string]any{"title": "t", "text": huge}, "text is 999999 characters; at most 4000"},
		{"remember", map[string]any{"title": "t", "text": "x", "type": "gossip"}, "type"},
	} {
		res := call(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %.80v: error %v, text %q; want a tool error containing %q", c.tool, c.args, res.IsError, clip.Head(text(res), 300), c.want)
		}
	}
	// The session survived all of it, and nothing was stored by a refused note.
	if got := text(call(t, cs, "search", map[string]any{"query": "login", "project": "*"})); !strings.Contains(got, "#1 ") || strings.Contains(got, "[note]") {
		t.Errorf("after the bad calls: %s", got)
	}
}

// TestBounds: every answer stays within about 6 KB, text and structured content, and says
// what it left out.
func TestBounds(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	db, err := w.mem.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("quokka ", 40)
	for i := range 60 {
		if _, err := db.Remember(ctx, store.Note{SessionID: "s", Project: "web", Type: "note", Title: fmt.Sprintf("%d %s", i, long)[:199],
			Text: strings.Repeat(fmt.Sprintf("narrative %d quokka. ", i), 3000), At: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	cs := connect(t, w.deps(w.webDir))
	within := func(what string, res *mcp.CallToolResult) {
		t.Helper()
		js, _ := json.Marshal(res.StructuredContent)
		if res.IsError || len(text(res)) > maxAnswer || len(js) > maxAnswer+200 {
			t.Errorf("%s: error %v, text %d bytes, structured %d bytes; want both within about %d", what, res.IsError, len(text(res)), len(js), maxAnswer)
		}
	}
	res := call(t, cs, "search", map[string]any{"query": "quokka", "limit": 50})
	within("search", res)
	var idx IndexOut
	structured(t, res, &idx)
	leftOut := fmt.Sprintf("(%d more left out to keep this answer under 6 KB", idx.LeftOut)
	if idx.LeftOut == 0 || len(idx.Entries)+idx.LeftOut != 50 || !strings.Contains(text(res), leftOut) || !strings.Contains(idx.Message, leftOut) {
		t.Errorf("search: %d shown, %d left out:\n%s", len(idx.Entries), idx.LeftOut, text(res))
	}
	res = call(t, cs, "timeline", map[string]any{"id": 30, "before": 25, "after": 25})
	within("timeline", res)
	structured(t, res, &idx)
	if idx.LeftOut == 0 || !strings.Contains(text(res), "→ #30 ") {
		t.Errorf("timeline: %d left out, anchor shown %v", idx.LeftOut, strings.Contains(text(res), "→ #30 "))
	}
	ids := []any{}
	for i := 1; i <= 20; i++ {
		ids = append(ids, i)
	}
	res = call(t, cs, "get_observations", map[string]any{"ids": ids})
	within("get_observations", res)
	var recs RecordsOut
	structured(t, res, &recs)
	if len(recs.Records) == 0 || !recs.Records[0].Clipped || len(recs.LeftOut) == 0 || len(recs.Records)+len(recs.LeftOut) != 20 ||
		!strings.Contains(text(res), "Left out to keep this answer under 6 KB: #") || !strings.Contains(recs.Message, "Left out to keep this answer under 6 KB: #") {
		t.Errorf("get_observations: %d records, left out %v", len(recs.Records), recs.LeftOut)
	}
	// One huge record alone is shortened to fit, never left out.
	res = call(t, cs, "get_observations", map[string]any{"ids": []any{7}})
	within("one huge record", res)
	if structured(t, res, &recs); len(recs.Records) != 1 || !strings.Contains(text(res), "shortened to fit") {
		t.Errorf("one huge record: %+v", recs.LeftOut)
	}
}

// TestProjectScoping: in a refused or excluded cwd every tool says memory is off and
// returns nothing; remember stores nothing. The control is the same calls in the project.
func TestProjectScoping(t *testing.T) {
	w := newWorld(t)
	w.seed()
	versionDir := filepath.Join(w.root, "src", "1.2.3")
	if err := os.MkdirAll(versionDir, 0o700); err != nil {
		t.Fatal(err)
	}
	excluded := w.deps(w.webDir)
	excluded.Project.Excluded = []string{"web"}
	inData := w.deps(filepath.Join(w.root, "data"))
	inData.Project.Ours.DataDir = filepath.Join(w.root, "data")
	for i, c := range []struct {
		name string
		d    Deps
	}{
		{"refused (version-like name)", w.deps(versionDir)},
		{"excluded", excluded},
		{"inside the data dir", inData},
		{"control: the project", w.deps(w.webDir)},
	} {
		t.Run(c.name, func(t *testing.T) {
			control := strings.HasPrefix(c.name, "control")
			cs := connect(t, c.d)
			title := fmt.Sprintf("scoped%d note", i)
			for _, call1 := range []struct {
				tool string
				args map[string]any
			}{
				{"search", map[string]any{"query": "login", "project": "*"}},
				{"timeline", map[string]any{"id": 1}},
				{"get_observations", map[string]any{"ids": []any{1}}},
				{"remember", map[string]any{"title": title, "text": "kept?"}},
			} {
				res := call(t, cs, call1.tool, call1.args)
				off := strings.HasPrefix(text(res), "claude-mem: memory is off in this directory (")
				var got struct {
					Message          string
					Entries, Records []any
				}
				structured(t, res, &got)
				if off == control || (!control && (strings.Contains(text(res), "Login") || len(got.Entries)+len(got.Records) > 0)) {
					t.Errorf("%s: %q", call1.tool, text(res))
				}
				// Claude Code shows the model the structured content alone: it must say so too.
				if !control && call1.tool != "remember" && got.Message != text(res) {
					t.Errorf("%s: structured message %q, text %q", call1.tool, got.Message, text(res))
				}
				if call1.tool == "remember" && res.IsError == control {
					t.Errorf("remember: error %v", res.IsError)
				}
			}
			db, err := w.mem.ReadStored()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			hits, _ := db.Search(context.Background(), fmt.Sprintf("scoped%d", i), "", 10)
			if (len(hits) == 1) != control {
				t.Errorf("notes stored: %d", len(hits))
			}
		})
	}
}

// TestDatabaseReplaced: the server keeps no lock and notices a database file replaced
// under it (a restore, an import into a fresh dir).
func TestDatabaseReplaced(t *testing.T) {
	w := newWorld(t)
	w.seed()
	cs := connect(t, w.deps(w.webDir))
	if got := text(call(t, cs, "search", map[string]any{"query": "cookie"})); !strings.Contains(got, "Login cookie survives reloads") {
		t.Fatalf("before: %s", got)
	}
	otherMem := memory.Memory{DataDir: filepath.Join(w.root, "other")}
	other := otherMem.Path()
	db, err := otherMem.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Remember(context.Background(), store.Note{SessionID: "s", Project: "web", Title: "Replacement cookie note", Text: "x", At: t0}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// A writer can take the write lock while the server is idle: nothing is held.
	wdb, err := w.mem.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wdb.Remember(context.Background(), store.Note{SessionID: "s", Project: "web", Title: "written while served", Text: "x", At: t0}); err != nil {
		t.Errorf("a writer was blocked by the idle server: %v", err)
	}
	wdb.Close()
	// Replaced as a restore does: the file and its WAL files together.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(w.dbPath + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if err := os.Rename(other, w.dbPath); err != nil {
		t.Fatal(err)
	}
	got := text(call(t, cs, "search", map[string]any{"query": "cookie"}))
	if !strings.Contains(got, "Replacement cookie note") || strings.Contains(got, "Login cookie survives reloads") {
		t.Errorf("after the file was replaced: %s", got)
	}
}

func TestIngestFailureStillAnswers(t *testing.T) {
	w := newWorld(t)
	w.seed()
	w.waiting()
	d := w.deps(w.webDir)
	d.Memory.IngestInto = func(context.Context, *store.DB) error { return errors.New("journal locked") }
	cs := connect(t, d)
	if res := call(t, cs, "search", map[string]any{"query": "cookie"}); res.IsError || !strings.Contains(text(res), "Login cookie") {
		t.Errorf("%s", text(res))
	}
}

// TestServeStdio: over a pipe, only protocol lines are written, and Serve returns when
// its input closes.
func TestServeStdio(t *testing.T) {
	w := newWorld(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- New(w.deps(w.webDir)).Serve(context.Background(), inR, outW); outW.Close() }()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}`,
	} {
		if _, err := inW.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	dec := json.NewDecoder(outR)
	seen := map[float64]bool{}
	for len(seen) < 3 {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("output is not JSON-RPC lines: %v", err)
		}
		if id, ok := m["id"].(float64); ok && m["result"] != nil {
			seen[id] = true
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its input closed")
	}
}

// since and until read a date as the CLI does (package when): local midnight in the user's
// zone. The seeded records are from 2026-11-30 10:00 UTC, which is 2026-12-01 local at UTC+14:
// there "since 2026-12-01" finds them, and in UTC (the control) it finds nothing.
func TestSearchDatesAreLocal(t *testing.T) {
	w := newWorld(t)
	d := w.deps(w.webDir)
	d.Loc = time.FixedZone("+14", 14*3600)
	cs := connect(t, d)
	w.seed()
	got := text(call(t, cs, "search", map[string]any{"query": "login", "since": "2026-12-01"}))
	if !strings.Contains(got, "#1 ") {
		t.Errorf("since 2026-12-01 at UTC+14 misses the records of 10:00 UTC on the 30th:\n%s", got)
	}
	if got := text(call(t, cs, "search", map[string]any{"query": "login", "until": "2026-11-30"})); strings.Contains(got, "#1 ") {
		t.Errorf("until 2026-11-30 at UTC+14 (before local 1 December) keeps them:\n%s", got)
	}
	d.Loc = nil
	cs = connect(t, d)
	if got := text(call(t, cs, "search", map[string]any{"query": "login", "since": "2026-12-01"})); strings.Contains(got, "#1 ") {
		t.Errorf("control, UTC: since 2026-12-01 finds the records of the 30th:\n%s", got)
	}
}

// The SDK logs a session's normal end (stdin closed, a signal) as an error; the hook log
// says it at INFO, so a healthy session leaves no error line. A real error stays an error.
func TestLogHandlerNormalEnd(t *testing.T) {
	var buf bytes.Buffer
	h := logHandler{zerolog.New(&buf)}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, `"level":"info"`},
		{fmt.Errorf("read: %w", io.EOF), `"level":"info"`},
		{mcp.ErrConnectionClosed, `"level":"info"`},
		{errors.New("broken pipe"), `"level":"error"`},
	} {
		buf.Reset()
		r := slog.NewRecord(time.Now(), slog.LevelError, "server run cancelled", 0)
		r.AddAttrs(slog.Any("error", tc.err))
		h.Handle(context.Background(), r)
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%v: %s, want %s", tc.err, buf.String(), tc.want)
		}
	}
}

// TestSchemasSayTheBounds: each schema states the bounds its handler enforces (the Go
// constants), and remember's enum is exactly the types it accepts.
func TestSchemasSayTheBounds(t *testing.T) {
	want := map[string][]string{
		toolSearch:   {fmt.Sprintf("At most %d characters", maxQuery), fmt.Sprintf("1 to %d; default %d", maxLimit, defaultLimit), strings.Join(vocab.ObservationTypes, ", ") + ", " + typeNote},
		toolTimeline: {fmt.Sprintf("0 to %d; default %d", maxAround, defaultAround)},
		toolGet:      {fmt.Sprintf("at most %d", maxIDs)},
		toolRemember: {fmt.Sprintf("at most %d characters, e.g.", maxNoteTitle), fmt.Sprintf("at most %d characters.", maxNoteText)},
	}
	for _, tool := range listTools(t) {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Contains(s, "%!") {
			t.Errorf("%s: schema badly formatted: %s", tool.Name, s)
		}
		for _, w := range want[tool.Name] {
			if !strings.Contains(s, w) {
				t.Errorf("%s: schema lacks %q: %s", tool.Name, w, s)
			}
		}
		if tool.Name == toolRemember {
			var sch struct {
				Properties struct {
					Type struct{ Enum []string } `json:"type"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(b, &sch); err != nil {
				t.Fatal(err)
			}
			if got := sch.Properties.Type.Enum; !slices.Equal(got, noteTypes()) || len(got) != len(vocab.ObservationTypes)+1 {
				t.Errorf("remember's enum %v, want %v", got, noteTypes())
			}
		}
	}
}
