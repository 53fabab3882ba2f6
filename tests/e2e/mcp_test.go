//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// The memory tools as Claude Code 2.1.328 names them: mcp__plugin_<plugin>_<server>__<tool>.
const (
	mcpSearch   = "mcp__plugin_claude-mem_memory__search"
	mcpRemember = "mcp__plugin_claude-mem_memory__remember"
)

// A stored observation the model's search must find, and the note it remembers.
const (
	mcpObsTitle  = "E2E-MCP-OBS eviction of the zebra cache fixed"
	mcpNoteTitle = "E2E-MCP-NOTE deploys go through the staging pipeline"
)

// seedObservation stores one observation for project "project" the way the observer does
// (an event, a claim, its completion), before any session ran.
func (p *product) seedObservation(title string) {
	t := p.t
	t.Helper()
	if err := os.MkdirAll(p.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := memory.Memory{DataDir: p.DataDir}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Now().Add(-time.Hour)
	s := store.Session{ID: "seed-session", Project: "project", Cwd: p.Cwd, StartedAt: now}
	memtest.Event(t, db, s, store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: "{}", Response: "{}", At: now})
	if _, err := db.Claim(ctx, s.ID, "seed-run", 10, now); err != nil {
		t.Fatal(err)
	}
	memtest.Complete(t, db, "seed-run", []store.Observation{{Type: "bugfix", Title: title,
		Narrative: "The zebra cache evicted entries twice; the second eviction was removed.", At: now}}, nil)
}

// mcpSession runs one `claude -p` session in the project allowing only the given tools.
func (p *product) mcpSession(prompt, allowed string) *result {
	t := p.t
	t.Helper()
	r := p.run([]string{"-p", prompt, "--output-format", "stream-json", "--verbose",
		"--allowedTools", allowed, "--model", "haiku"}, "", p.userEnv(true))
	if r.exit != 0 {
		t.Fatalf("session %q: exit %d; stderr:\n%s", prompt, r.exit, r.stderr)
	}
	return r
}

// requestsWith returns the user-session requests whose body contains s.
func (p *product) requestsWith(s string) []mockapi.Request {
	var out []mockapi.Request
	for _, r := range p.userRequests() {
		if strings.Contains(string(r.Body), s) {
			out = append(out, r)
		}
	}
	return out
}

// TestMemoryTools: with the plugin installed from the repository, Claude Code starts
// `hook mcp` from .mcp.json and offers its tools as deferred tools; the model loads search
// with ToolSearch, calls it with a word of a stored observation and gets that observation's
// title back; a note made with remember is found by `hook search`; the observer's requests
// carry no memory tool.
func TestMemoryTools(t *testing.T) {
	t.Parallel()
	p := newProduct(t)
	const searchPrompt, rememberPrompt = "E2E-MCP-SEARCH-SESSION what do we know about the zebra cache?", "E2E-MCP-REMEMBER-SESSION please remember how we deploy"
	p.Mock.Handle(isObserver, mockapi.Text(`<skip reason="no observations"/>`))
	p.Mock.Handle(all(mockapi.Not(isObserver), mockapi.BodyContains("E2E-MCP-SEARCH-SESSION")),
		mockapi.ToolUse("ToolSearch", map[string]any{"query": "select:" + mcpSearch, "max_results": 1}),
		mockapi.ToolUse(mcpSearch, map[string]any{"query": "zebra"}),
		mockapi.Text("done"))
	p.Mock.Handle(all(mockapi.Not(isObserver), mockapi.BodyContains("E2E-MCP-REMEMBER-SESSION")),
		mockapi.ToolUse("ToolSearch", map[string]any{"query": "select:" + mcpRemember, "max_results": 1}),
		mockapi.ToolUse(mcpRemember, map[string]any{"title": mcpNoteTitle, "text": "Every deploy goes through the staging pipeline first.", "type": "decision"}),
		mockapi.Text("noted"))
	p.install()
	p.seedObservation(mcpObsTitle)

	ok := t.Run("search through ToolSearch select", func(t *testing.T) {
		defer p.use(t)()
		r := p.mcpSession(searchPrompt, mcpSearch)
		// The init line: the plugin's skill is loaded, its MCP server connected.
		if inits := of(r.lines(t), "system", "init"); len(inits) != 1 ||
			!strings.Contains(mustJSON(inits[0]["skills"]), `"claude-mem:memory"`) ||
			!strings.Contains(mustJSON(inits[0]["mcp_servers"]), `{"name":"plugin:claude-mem:memory","source":"plugin","status":"connected"}`) {
			t.Errorf("init: skills %v, mcp_servers %v; want the claude-mem:memory skill and the plugin:claude-mem:memory server connected", inits[0]["skills"], inits[0]["mcp_servers"])
		}
		reqs := p.requestsWith("E2E-MCP-SEARCH-SESSION")
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3 (ToolSearch, search, answer); stdout:\n%s", len(reqs), lastLines(r.stdout, 30))
		}
		// Deferred: named in the first request, but not offered as a tool until loaded.
		if first := reqs[0]; !strings.Contains(string(first.Body), mcpSearch) || slices.Contains(first.Tools(), mcpSearch) || !slices.Contains(first.Tools(), "ToolSearch") {
			t.Errorf("first request: tools %v; the body names %s: %v", first.Tools(), mcpSearch, strings.Contains(string(first.Body), mcpSearch))
		}
		if !slices.Contains(reqs[1].Tools(), mcpSearch) {
			t.Errorf("after ToolSearch select, the request's tools %v lack %s", reqs[1].Tools(), mcpSearch)
		}
		last := reqs[2]
		if !last.HasToolResult() || !strings.Contains(last.MessageText("user"), mcpObsTitle) {
			t.Errorf("the request after the search carries no tool_result with %q:\n%s", mcpObsTitle, last.MessageText("user"))
		}
		// Claude Code 2.1.328 hands the model the structured content (JSON), not the text
		// content: the entry with its ref, and the message saying what to call next.
		var got struct {
			Message string
			Entries []struct{ Ref, Kind, Type, Title, Project string }
		}
		if err := json.Unmarshal([]byte(lastToolResult(last)), &got); err != nil {
			t.Fatalf("the tool_result is not the structured content: %v\n%s", err, toolResults(last))
		}
		if len(got.Entries) == 0 || got.Entries[0].Title != mcpObsTitle || got.Entries[0].Kind != "observation" || got.Entries[0].Type != "bugfix" ||
			got.Entries[0].Project != "project" || !strings.Contains(got.Message, "get_observations") {
			t.Errorf("the tool_result: %+v", got)
		}
		// The SessionStart context names the tools.
		if !strings.Contains(reqs[0].MessageText("system"), mcpSearch) {
			t.Errorf("the SessionStart context does not name %s:\n%s", mcpSearch, reqs[0].MessageText("system"))
		}
	})
	if !ok {
		return
	}

	t.Run("remember is found by hook search", func(t *testing.T) {
		defer p.use(t)()
		// The control: the note's title is nowhere before the session.
		if hits := p.hookSearch("staging pipeline"); strings.Contains(hits, mcpNoteTitle) {
			t.Fatalf("before the session: %s", hits)
		}
		r := p.mcpSession(rememberPrompt, mcpRemember)
		reqs := p.requestsWith("E2E-MCP-REMEMBER-SESSION")
		if len(reqs) != 3 || !strings.Contains(lastToolResult(reqs[2]), "Remembered as #") {
			t.Fatalf("%d requests; last user text:\n%s\nstdout:\n%s", len(reqs), reqs[len(reqs)-1].MessageText("user"), lastLines(r.stdout, 30))
		}
		hits := p.hookSearch("staging pipeline")
		if !strings.Contains(hits, mcpNoteTitle) || !strings.Contains(hits, `"project":"project"`) {
			t.Errorf("hook search does not find the note in project %q:\n%s", "project", hits)
		}
		if got := p.column(`SELECT origin FROM observations WHERE title = ?`, mcpNoteTitle); len(got) != 1 || got[0] != "model" {
			t.Errorf("the note's origin %v, want [model]", got)
		}
		// The server gets the session's id (CLAUDE_CODE_SESSION_ID): the note is the session's.
		inits := of(r.lines(t), "system", "init")
		if got := p.column(`SELECT session_id FROM observations WHERE title = ?`, mcpNoteTitle); len(inits) != 1 || len(got) != 1 || got[0] != inits[0]["session_id"] {
			t.Errorf("the note's session %v, want the session's own id", got)
		}
	})

	// Healthy sessions (start, prompts, memory tools, the MCP server's end, the observer)
	// log no warn or error line: the README's recipe for "last problems" shows only problems.
	// The control: a broken setting is a warn line in the same log.
	t.Run("a healthy session logs no problem", func(t *testing.T) {
		defer p.use(t)()
		p.quiesce()
		if got := p.problems(); len(got) > 0 {
			t.Errorf("%d warn/error lines after healthy sessions:\n%s", len(got), strings.Join(got, "\n"))
		}
		cmd := exec.Command(p.Hook, "stats")
		cmd.Dir = p.Cwd
		env := p.userEnv(true)
		env["CLAUDE_MEM_MAX_CONCURRENT_AGENTS"] = "abc"
		cmd.Env = env.List()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hook stats: %v\n%s", err, out)
		}
		if got := p.problems(); len(got) != 1 || !strings.Contains(got[0], "settings error") {
			t.Errorf("control: a broken setting gives %d warn/error lines, want its one settings error: %q", len(got), got)
		}
	})

	t.Run("the observer's requests carry no memory tool", func(t *testing.T) {
		defer p.use(t)()
		p.quiesce()
		obs := p.observerRequests()
		if len(obs) == 0 {
			t.Fatal("no observer request: the control that the observer ran with the plugin installed")
		}
		// Claude Code lists deferred tools by name, one a line, in a system-reminder: the
		// control is that the user sessions' requests carry that listing.
		listed := func(r *mockapi.Request) bool {
			return strings.Contains(r.MessageText("user")+r.MessageText("system")+r.System(), "\n"+mcpSearch+"\n")
		}
		if reqs := p.requestsWith("E2E-MCP-SEARCH-SESSION"); len(reqs) == 0 || !listed(&reqs[0]) {
			t.Fatal("the user session's first request does not list the memory tools: the control that they exist")
		}
		// The observer's requests: no tool at all, no listing, no mention in the system
		// prompt. (Its user message does name the tools: the captured events it observes.)
		for _, req := range obs {
			if len(req.Tools()) != 0 || listed(&req) || strings.Contains(req.System(), "mcp__") {
				t.Errorf("observer request %d offers tools %v or lists a deferred mcp__ tool", req.Seq, req.Tools())
			}
		}
	})
}

// problems returns the hook log's warn and error lines.
func (p *product) problems() []string {
	b, err := os.ReadFile(filepath.Join(p.DataDir, "logs", "hook.log"))
	if err != nil {
		p.t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"level":"warn"`) || strings.Contains(l, `"level":"error"`) {
			out = append(out, l)
		}
	}
	return out
}

// hookSearch runs `bin/hook search --json QUERY` as the user would, in the project.
func (p *product) hookSearch(query string) string {
	p.t.Helper()
	cmd := exec.Command(p.Hook, "search", "--json", query)
	cmd.Dir = p.Cwd
	cmd.Env = p.userEnv(true).List()
	out, err := cmd.Output()
	if err != nil {
		p.t.Fatalf("hook search: %v\n%s", err, out)
	}
	return string(out)
}

// lastToolResult returns the content of the request's last tool_result block when it is
// a string (an MCP tool's answer as Claude Code forwards it).
func lastToolResult(r mockapi.Request) string {
	blocks := strings.Split(toolResults(r), "\n")
	var b struct{ Content any }
	_ = json.Unmarshal([]byte(blocks[len(blocks)-1]), &b)
	s, _ := b.Content.(string)
	return s
}

// toolResults returns the raw tool_result blocks of a request's messages, one a line.
func toolResults(r mockapi.Request) string {
	var b struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &b)
	var out []string
	for _, m := range b.Messages {
		var blocks []map[string]any
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, bl := range blocks {
			if bl["type"] == "tool_result" {
				out = append(out, mustJSON(bl))
			}
		}
	}
	return strings.Join(out, "\n")
}
