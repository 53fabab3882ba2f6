//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/tests/e2e/mockapi"
)

// The observer's scripted answers. The titles carry unique tokens so the next session's
// request can be searched for them.
const (
	obsTitle1 = "E2E-OBS-ALPHA shell greeting verified"
	obsTitle2 = "E2E-OBS-BETA notes file created"

	observations = `<observation>
  <type>discovery</type>
  <title>` + obsTitle1 + `</title>
  <subtitle>The shell prints a greeting.</subtitle>
  <facts><fact>the greeting is hi</fact></facts>
  <narrative>The session ran a shell command that printed a greeting.</narrative>
  <concepts><concept>greeting</concept></concepts>
</observation>
<observation>
  <type>feature</type>
  <title>` + obsTitle2 + `</title>
  <subtitle>A notes file now exists in the project.</subtitle>
  <narrative>The session wrote a notes file with the Write tool.</narrative>
  <files_modified><file>notes.txt</file></files_modified>
</observation>
`
	summary = `<summary>
  <request>say hi and write notes</request>
  <investigated>the shell</investigated>
  <learned>the greeting works</learned>
  <completed>notes.txt written</completed>
  <next_steps>none</next_steps>
  <notes>none</notes>
</summary>
`
)

const setupLine = "claude-mem: setup required — claude CLI not found"

// TestProductEndToEnd is the product as a user runs it, against the real Claude Code CLI:
// installed from its marketplace beside a hostile plugin, capturing a session that runs a
// Bash and a Write tool, the detached observer running the real CLI as its isolated child,
// the observations coming back in the next session's context, and the setup notice once
// the CLI can be found nowhere.
func TestProductEndToEnd(t *testing.T) {
	t.Parallel()
	p := newProduct(t)
	notes := filepath.Join(p.Cwd, "notes.txt")
	// The observer's requests first: a run with events gets the observations, the
	// SessionEnd run also the summary; a final run over earlier observations only gets
	// the summary. Everything else is a user session: a Bash turn, a Write turn, then text.
	p.Mock.Handle(all(isObserver, hasEvents, isFinal), mockapi.Text(observations+summary))
	p.Mock.Handle(all(isObserver, hasEvents), mockapi.Text(observations))
	p.Mock.Handle(all(isObserver, isFinal), mockapi.Text(summary))
	p.Mock.Handle(mockapi.Not(isObserver),
		mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}),
		mockapi.ToolUse("Write", map[string]string{"file_path": notes, "content": "remember the greeting\n"}),
		mockapi.Text("done"))
	p.install()
	projectsBefore := p.projectsEntries()

	var session1 string
	ok := t.Run("1 hooks capture the prompt and the Bash and Write events", func(t *testing.T) {
		defer p.use(t)()
		var r *result
		r, session1 = p.session("please run echo hi and write notes", p.userEnv(true))
		if got := p.userRequests(); len(got) != 3 {
			t.Fatalf("%d user-session requests, want 3 (Bash turn, Write turn, answer); stdout:\n%s", len(got), lastLines(r.stdout, 20))
		}
		// The hostile plugin really ran in the user's session (the control for check 2).
		if first := p.userRequests()[0]; !strings.Contains(first.MessageText("system"), hostileText) {
			t.Errorf("the hostile SessionStart context did not reach the user session; system-role text:\n%s", first.MessageText("system"))
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "remember the greeting\n" {
			t.Fatalf("the Write tool did not write %s: %v %q", notes, err, b)
		}

		if got := p.column(`SELECT text FROM prompts WHERE session_id = ?`, session1); !slices.Equal(got, []string{"please run echo hi and write notes"}) {
			t.Errorf("stored prompts %q", got)
		}
		if got := p.column(`SELECT project || ' ' || cwd FROM sessions`); !slices.Equal(got, []string{"project " + p.Cwd}) {
			t.Errorf("sessions %q, want only the user's session in project %s", got, p.Cwd)
		}
		evs := p.events()
		var tools []string
		for _, e := range evs {
			tools = append(tools, e.Tool)
			if e.Session != session1 || e.Hook != "PostToolUse" || e.Cwd != p.Cwd {
				t.Errorf("event %+v: want session %s, hook PostToolUse, cwd %s", e, session1, p.Cwd)
			}
		}
		if !slices.Equal(tools, []string{"Bash", "Write"}) {
			t.Fatalf("stored events for tools %v, want [Bash Write]", tools)
		}
		if !strings.Contains(evs[0].Input, "echo hi") || !strings.Contains(evs[0].Response, "hi") {
			t.Errorf("Bash event input %q response %q", evs[0].Input, evs[0].Response)
		}
		if !strings.Contains(evs[1].Input, notes) {
			t.Errorf("Write event input %q lacks %s", evs[1].Input, notes)
		}
	})
	if !ok {
		return
	}

	ok = t.Run("2 Stop starts the observer, which runs the real CLI isolated and stores observations", func(t *testing.T) {
		defer p.use(t)()
		p.waitFor("the events done and 2 observations stored", func() (bool, string) {
			var states []string
			for _, e := range p.events() {
				states = append(states, e.State)
			}
			titles := p.column(`SELECT title FROM observations ORDER BY id`)
			return len(titles) >= 2 && !slices.ContainsFunc(states, func(s string) bool { return s != "done" }),
				"event states " + strings.Join(states, ",") + "; observations " + strings.Join(titles, " | ")
		})
		p.quiesce()
		titles := p.column(`SELECT title FROM observations ORDER BY id`)
		if !slices.Equal(titles, []string{obsTitle1, obsTitle2}) {
			t.Errorf("observations %q, want exactly the two the mock answered", titles)
		}
		if got := p.column(`SELECT session_id || ' ' || project FROM observations`); !slices.Equal(got, []string{session1 + " project", session1 + " project"}) {
			t.Errorf("observations belong to %q", got)
		}
		if got := p.column(`SELECT completed FROM summaries`); !slices.Equal(got, []string{"notes.txt written"}) {
			t.Errorf("summaries %q, want the one the SessionEnd run asked for", got)
		}

		obsReqs := p.observerRequests()
		if len(obsReqs) == 0 {
			t.Fatal("the mock saw no observer request")
		}
		var carried bool
		for _, req := range obsReqs {
			if tools := req.Tools(); len(tools) != 0 {
				t.Errorf("observer request %d offers tools %v", req.Seq, tools)
			}
			if strings.Contains(string(req.Body), "SendMessage") {
				t.Errorf("observer request %d mentions SendMessage", req.Seq)
			}
			if strings.Contains(string(req.Body), hostileText) || strings.Contains(string(req.Body), "skill-pusher") {
				t.Errorf("observer request %d carries the hostile plugin's text", req.Seq)
			}
			if got := req.APIKey.Reveal(); got != dummyKey || req.Authorization.Reveal() != "" {
				t.Errorf("observer request %d: x-api-key %v, Authorization %v; want the dummy key only", req.Seq, req.APIKey, req.Authorization)
			}
			if hasEvents(&req) {
				carried = true
				if u := req.MessageText("user"); !strings.Contains(u, "echo hi") || !strings.Contains(u, notes) {
					t.Errorf("observer request %d lacks the Bash command or the Write path:\n%s", req.Seq, u)
				}
			}
		}
		if !carried {
			t.Errorf("no observer request carried the events")
		}

		// The observer ran the real CLI in its own run dir, kept its stream-json output.
		runs := filepath.Join(p.DataDir, "observer-sessions")
		var transcripts int
		for _, f := range filesUnder(t, runs) {
			if filepath.Base(f) != "transcript.jsonl" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(runs, f))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"claude_code_version":"2.1.328"`) {
				t.Errorf("%s is not the real CLI's stream-json:\n%s", f, lastLines(b, 5))
			}
			transcripts++
		}
		if transcripts == 0 {
			t.Errorf("no observer run dir holds a transcript.jsonl: %v", filesUnder(t, runs))
		}

		// Nothing of the observer under ~/.claude/projects/: the only new entry is the
		// user's own session, named after the project dir.
		var added []string
		for _, e := range p.projectsEntries() {
			if !slices.Contains(projectsBefore, e) {
				added = append(added, e)
			}
			if strings.Contains(e, "observer-sessions") || strings.Contains(e, "claude-mem") {
				t.Errorf("~/.claude/projects/%s is the observer's", e)
			}
		}
		if !slices.Equal(added, []string{encodeCwd(p.Cwd)}) {
			t.Errorf("new entries under ~/.claude/projects/: %v, want only the user session's %s", added, encodeCwd(p.Cwd))
		}
		if got := filesUnder(t, filepath.Join(p.DataDir, "observer-config", "projects")); len(got) != 0 {
			t.Errorf("the observer persisted its session: %v", got)
		}
		// Nothing in the project but what the Write tool wrote.
		if got := filesUnder(t, p.Cwd); !slices.Equal(got, []string{"notes.txt"}) {
			t.Errorf("files in the project: %v, want only notes.txt", got)
		}
		if got := testkit.Entries(t, p.Cwd); !slices.Equal(got, []string{".git", "notes.txt"}) {
			t.Errorf("entries in the project: %v, want only .git and notes.txt", got)
		}
		// The observer's own run stored no session of its own (self-capture guard).
		if got := p.column(`SELECT id FROM sessions`); !slices.Equal(got, []string{session1}) {
			t.Errorf("sessions %q, want only the user's %s", got, session1)
		}
	})
	if !ok {
		return
	}

	ok = t.Run("3 the next session's first request carries the observations", func(t *testing.T) {
		defer p.use(t)()
		before := len(p.userRequests())
		r, _ := p.session("what do you remember?", p.userEnv(true))
		p.quiesce()
		reqs := p.userRequests()
		if len(reqs) <= before {
			t.Fatal("the session made no request")
		}
		sys := reqs[before].MessageText("system")
		for _, title := range []string{obsTitle1, obsTitle2} {
			if !strings.Contains(sys, title) {
				t.Errorf("the first request's system-role context lacks %q:\n%s", title, sys)
			}
		}
		if !strings.Contains(sys, "# claude-mem: project — memory of past sessions\n## ") || strings.Contains(sys, "claude-mem: setup required") {
			t.Errorf("context header or notices wrong:\n%s", sys)
		}
		// The line telling the person memory loaded is a systemMessage: Claude Code has it
		// (in -p, in the SessionStart hook_response line), the model never sees it.
		const loaded = "observations from 1 session of project loaded"
		if strings.Contains(sys, loaded) {
			t.Errorf("the loaded line reached the model:\n%s", sys)
		}
		if !slices.ContainsFunc(r.lines(t), func(l map[string]any) bool {
			return l["subtype"] == "hook_response" && l["hook_event"] == "SessionStart" && strings.Contains(mustJSON(l), loaded)
		}) {
			t.Errorf("no SessionStart hook_response carries %q", loaded)
		}
	})
	if !ok {
		return
	}

	t.Run("4 with the CLI found nowhere, the next session's request carries the setup notice", func(t *testing.T) {
		defer p.use(t)()
		env := p.userEnv(false)
		// Nothing of the real CLI is left on PATH or in any HOME install location.
		for _, dir := range strings.Split(env["PATH"], ":") {
			if _, err := os.Stat(filepath.Join(dir, "claude")); err == nil {
				t.Fatalf("precondition: %s/claude exists", dir)
			}
		}
		for _, f := range filesUnder(t, p.Home) {
			if filepath.Base(f) == "claude" || filepath.Base(f) == "claude.exe" {
				t.Fatalf("precondition: HOME holds %s", f)
			}
		}
		before := len(p.userRequests())
		// Over 1,000 characters of prompt: a shorter session with no tool use is trivial and
		// starts no observer run (§24), and this one's run must find no claude.
		p.session("anything new? "+strings.Repeat("Tell me what changed in the project since last time. ", 20), env)
		p.quiesce()
		reqs := p.userRequests()
		if len(reqs) <= before {
			t.Fatal("the session made no request")
		}
		sys := reqs[before].MessageText("system")
		if !strings.Contains(sys, setupLine) {
			t.Errorf("the first request lacks %q:\n%s", setupLine, sys)
		}
		if !strings.Contains(sys, obsTitle1) {
			t.Errorf("memory is still injected beside the notice; missing %q:\n%s", obsTitle1, sys)
		}
		if h := p.health(); h.Setup.State != "required" {
			t.Errorf("health setup %+v, want required (the SessionEnd observer found no claude)", h.Setup)
		}
	})
}

// TestProductAuthFailed: the observer's credential is refused (401 to the observer only):
// health records auth failed, the next session's request carries the auth-failed notice,
// and the session's events are still pending, not lost.
func TestProductAuthFailed(t *testing.T) {
	t.Parallel()
	p := newProduct(t)
	p.Mock.Handle(isObserver, mockapi.Error(401))
	p.Mock.Handle(mockapi.Not(isObserver),
		mockapi.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}),
		mockapi.Text("done"))
	p.install()

	_, id := p.session("please run echo hi", p.userEnv(true))
	p.waitFor(`health.json auth.state "failed"`, func() (bool, string) {
		h := p.health()
		return h.Auth.State == "failed", "auth " + mustJSON(h.Auth)
	})
	p.quiesce()
	obsReqs := p.observerRequests()
	if len(obsReqs) == 0 {
		t.Fatal("the observer never reached the mock")
	}
	for _, req := range obsReqs {
		if req.Reply != "error:401" || req.APIKey.Reveal() != dummyKey {
			t.Errorf("observer request %d: reply %s, x-api-key %v; want a 401 to the dummy key", req.Seq, req.Reply, req.APIKey)
		}
	}
	if h := p.health(); h.Auth.Source != "apiKey" {
		t.Errorf("health auth %+v, want source apiKey", h.Auth)
	}
	pending := func(when string) {
		t.Helper()
		evs := p.events()
		if len(evs) != 1 || evs[0].Tool != "Bash" || evs[0].Session != id || evs[0].State != "pending" {
			t.Errorf("%s: events %+v, want the one Bash event, still pending", when, evs)
		}
		if got := p.column(`SELECT title FROM observations`); len(got) != 0 {
			t.Errorf("%s: observations %q stored from a refused run", when, got)
		}
	}
	pending("after the failed run")

	before := len(p.userRequests())
	observerCalls := len(p.observerRequests())
	p.session("still there?", p.userEnv(true))
	p.quiesce()
	reqs := p.userRequests()
	if len(reqs) <= before {
		t.Fatal("the next session made no request")
	}
	sys := reqs[before].MessageText("system")
	const authLine = "claude-mem: auth failed — apiKey: "
	if !strings.Contains(sys, authLine) {
		t.Errorf("the next session's first request lacks %q:\n%s", authLine, sys)
	}
	if n := len(p.observerRequests()); n != observerCalls {
		t.Errorf("the paused observer called the API again (%d → %d requests)", observerCalls, n)
	}
	pending("after the next session")
}
