package viewer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// seeded is a fixture with two projects, a summary, a prompt and an observation whose
// text tries to be markup.
func seeded(t *testing.T) (*fixture, *store.DB) {
	f := newFixture(t)
	db := f.db()
	f.observe(db, "sess-1", "alpha", []store.Observation{
		{Type: "bugfix", Title: "Fixed the flaky lockfile test", Subtitle: "a race on rename",
			Narrative: "The lockfile test raced a rename; the fix waits on the lock instead.",
			Facts:     []string{"rename is atomic on one filesystem"}, Concepts: []string{"gotcha"},
			FilesRead: []string{"lockfile/lock.go"}, FilesModified: []string{"lockfile/lock_test.go"}, At: t0.Add(-2 * time.Hour)},
		{Type: "feature", Title: `<script>alert(1)</script> zebra crossing`, Narrative: "markup <b>zebra</b> stays text", At: t0.Add(-26 * time.Hour)},
	}, &store.Summary{Request: "Make the lockfile tests reliable", Completed: "lockfile fixed", At: t0.Add(-time.Hour)})
	memtest.Prompt(t, db, store.Session{ID: "sess-1", Project: "alpha"},
		store.Prompt{Text: "please look at the zebra tests", At: t0.Add(-3 * time.Hour)})
	f.observe(db, "sess-2", "beta", []store.Observation{{Type: "decision", Title: "Chose SQLite", At: t0.Add(-5 * time.Hour)}}, nil)
	return f, db
}

func idOf(t *testing.T, body, prefix string) string {
	t.Helper()
	m := regexp.MustCompile(prefix + `(\d+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s link in\n%s", prefix, body)
	}
	return m[1]
}

func TestTokenInURLBecomesCookieAndLeavesTheURL(t *testing.T) {
	f := newFixture(t)
	// The answer is a page that navigates on (same-site, so the Strict cookie goes with
	// it even when the browser came from the launcher file), not a redirect.
	code, body, res := f.do(req{path: "/search?q=x&token=" + testToken, noCookie: true})
	if code != http.StatusOK || !strings.Contains(body, `content="0;url=/search?q=x"`) || strings.Contains(body, testToken) {
		t.Fatalf("%d %q, want a page moving on to /search?q=x, without the token", code, body)
	}
	c := res.Cookies()
	if len(c) != 1 || c[0].Name != cookieName || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Path != "/" {
		t.Fatalf("cookie %+v", c)
	}
	// Host-only (no Domain): the browser sends it to the per-launch name alone.
	if c[0].Domain != "" || c[0].Secure {
		t.Errorf("cookie scoped %q (secure %v), want host-only over http", c[0].Domain, c[0].Secure)
	}
	// Not the token, nor anything that holds it, and what the other tests send.
	if strings.Contains(c[0].Value, testToken) || c[0].Value != testCookie().Value {
		t.Errorf("cookie value %q: want the session value, not the token", c[0].Value)
	}
	// A session cookie: the browser drops it when it closes, and the next launch's token
	// differs anyway.
	if c[0].MaxAge != 0 || !c[0].Expires.IsZero() {
		t.Errorf("cookie kept past the session: %+v", c[0])
	}
	// The page stays on the viewer, whatever the path.
	code, body, _ = f.do(req{path: "/%2Fevil.example/x?token=" + testToken, noCookie: true})
	if code != http.StatusOK || !strings.Contains(body, `content="0;url=/evil.example/x"`) {
		t.Fatalf("%d %q, want a path on the viewer", code, body)
	}
	// A wrong token in the URL sets nothing.
	code, _, res = f.do(req{path: "/?token=" + strings.Repeat("0", 32), noCookie: true})
	if code != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Fatalf("wrong token: %d %v", code, res.Cookies())
	}
	// The right token under another Host sets nothing either: 127.0.0.1's cookies go to
	// every port.
	for _, host := range []string{"127.0.0.1:48123", "localhost:48123"} {
		code, _, res = f.do(req{path: "/?token=" + testToken, host: host, noCookie: true})
		if code != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("token at %s: %d %v, want 403 and no cookie", host, code, res.Cookies())
		}
	}
}

// TestCookieIsBoundToThisViewer: what the browser holds opens this viewer, at its own
// name and port, and nothing else; the URL's token is no cookie; another viewer's cookie
// (another name, or another port, even with the same token) opens nothing here.
func TestCookieIsBoundToThisViewer(t *testing.T) {
	f, _ := seeded(t)
	const private = "please look at the zebra tests" // the prompt on sess-1's page
	cookie := func(v string) map[string]string { return map[string]string{"Cookie": cookieName + "=" + v} }
	// Control: the cookie the exchange hands out reads the private page.
	_, _, res := f.do(req{path: "/?token=" + testToken, noCookie: true})
	issued := res.Cookies()[0].Value
	if code, body, _ := f.do(req{path: "/session/sess-1", noCookie: true, header: cookie(issued)}); code != 200 || !strings.Contains(body, private) {
		t.Fatalf("control: the issued cookie reads %d\n%s", code, body)
	}
	other := func(host string, port int) string {
		return session(testToken, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	for _, c := range []struct {
		name string
		r    req
	}{
		{"the URL token as the cookie", req{header: cookie(testToken)}},
		{"the URL token under the old per-port name", req{header: map[string]string{"Cookie": "claude_mem_viewer_48123=" + testToken}}},
		{"the cookie under another name", req{header: map[string]string{"Cookie": "claude_mem_viewer_48123=" + issued}}},
		{"the cookie replayed with Host 127.0.0.1", req{host: "127.0.0.1:48123", header: cookie(issued)}},
		{"the cookie replayed with Host localhost", req{host: "localhost:48123", header: cookie(issued)}},
		{"the cookie replayed with another .localhost name", req{host: "other.localhost:48123", header: cookie(issued)}},
		{"the cookie replayed with another port", req{host: testName + ":48124", header: cookie(issued)}},
		{"another name's cookie, same token", req{header: cookie(other("claude-mem-qrstuvwxyz234567.localhost", testPort))}},
		{"another port's cookie, same token", req{header: cookie(other(testName, testPort+1))}},
		{"127.0.0.1's cookie, same token", req{header: cookie(other("127.0.0.1", testPort))}},
		{"another launch's cookie", req{header: cookie(session(strings.Repeat("f", 32), testHost))}},
		{"the cookie cut short", req{header: cookie(issued[:len(issued)-1])}},
	} {
		c.r.path, c.r.noCookie = "/session/sess-1", true
		if code, body, _ := f.do(c.r); code != http.StatusForbidden || strings.Contains(body, private) {
			t.Errorf("%s: %d, want 403\n%s", c.name, code, body)
		}
	}
	// A cookie of the same name planted beside the real one, in either order, hides
	// nothing.
	for _, h := range []string{cookieName + "=planted; " + cookieName + "=" + issued, cookieName + "=" + issued + "; " + cookieName + "=planted"} {
		if code, _, _ := f.do(req{path: "/session/sess-1", noCookie: true, header: map[string]string{"Cookie": h}}); code != 200 {
			t.Errorf("Cookie: %s: %d, want 200", h, code)
		}
	}
}

// TestNewHost: a fresh name under .localhost at every launch, one DNS label before it;
// New refuses to serve without one (127.0.0.1's cookies go to every port).
func TestNewHost(t *testing.T) {
	a, err := NewHost()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewHost()
	if !regexp.MustCompile(`^claude-mem-[a-z2-7]{16}\.localhost$`).MatchString(a) || a == b {
		t.Fatalf("hosts %q, %q: want two different claude-mem-<16 base32>.localhost", a, b)
	}
	if u := URL(a, 48123, "t&k"); u != "http://"+a+":48123/?token=t%26k" {
		t.Errorf("URL %q", u)
	}
	for _, c := range []Config{{Host: "127.0.0.1", Port: 1, Token: "t"}, {Host: "localhost", Port: 1, Token: "t"},
		{Port: 1, Token: "t"}, {Host: a, Token: "t"}, {Host: a, Port: 1}} {
		if _, err := New(c); !errors.Is(err, ErrNoHost) {
			t.Errorf("New(%q, %d, %q): %v, want ErrNoHost", c.Host, c.Port, c.Token, err)
		}
	}
	if _, err := New(Config{Host: a, Port: 1, Token: "t"}); err != nil {
		t.Errorf("control: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	f, _ := seeded(t)
	for _, c := range []struct {
		name string
		r    req
	}{
		{"no token", req{path: "/", noCookie: true}},
		{"no token, static", req{path: "/static/style.css", noCookie: true}},
		{"no token, stream", req{path: "/live/events", noCookie: true}},
		{"wrong cookie", req{path: "/", noCookie: true, header: map[string]string{"Cookie": cookieName + "=nope"}}},
		{"foreign host", req{path: "/", host: "evil.example:48123"}},
		{"127.0.0.1", req{path: "/", host: "127.0.0.1:48123"}},
		{"localhost", req{path: "/", host: "localhost:48123"}},
		{"another .localhost name", req{path: "/", host: "claude-mem-qrstuvwxyz234567.localhost:48123"}},
		{"a name ending in the viewer's", req{path: "/", host: "x." + testHost}},
		{"trailing dot", req{path: "/", host: testName + ".:48123"}},
		{"other port", req{path: "/", host: testName + ":1"}},
		{"no port", req{path: "/", host: testName}},
		{"cross-origin POST", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "http://evil.example"}}},
		{"cross-origin POST by referer", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Referer": "http://evil.example/page"}}},
		{"POST with neither origin nor referer", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}}}},
		{"POST from an opaque origin, cross-site", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "null", "Sec-Fetch-Site": "cross-site"}}},
		{"POST from an opaque origin, no fetch metadata", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "null"}}},
		{"cross-origin POST on the viewer's port", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "https://" + testHost}}},
		{"POST from 127.0.0.1 on the viewer's port", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "http://127.0.0.1:48123"}}},
		{"same-origin POST without the form token", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}},
			header: map[string]string{"Origin": "http://" + testHost}}},
		{"same-origin POST with a wrong form token", req{method: "POST", path: "/forget", form: url.Values{"id": {"1"}, "csrf": {"x"}},
			header: map[string]string{"Origin": "http://" + testHost}}},
	} {
		code, body, res := f.do(c.r)
		if code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403\n%s", c.name, code, body)
		}
		if !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: no CSP on the refusal", c.name)
		}
	}
	// Control: the same requests, done right, are served.
	if n := len(f.get("/", 200)); n == 0 {
		t.Fatal("empty page")
	}
}

func TestSecurityHeadersOnEveryPage(t *testing.T) {
	f, _ := seeded(t)
	for _, p := range []string{"/", "/static/style.css", "/nope", "/search?q=zebra"} {
		_, _, res := f.do(req{path: p})
		want := map[string]string{
			"Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", p, k, got, v)
			}
		}
	}
}

// TestPathTricksNeverReachFiles: traversal attempts get a redirect to a clean path or a 404
// page, never a file outside the embedded assets and never a 500.
func TestPathTricksNeverReachFiles(t *testing.T) {
	f, _ := seeded(t)
	for _, p := range []string{"/..%2f", "/..%2f..%2fetc%2fpasswd", "/static/../", "/static/..%2fviewer.go",
		"/static/%2e%2e/%2e%2e/go.mod", "/static/..%5c..%5cgo.mod", "/static//etc/passwd", "/static/../../go.mod",
		"/record/..%2f1", "/session/..%2f..%2f", "/%00", "/static/templates/layout.html", "/static/", "/static/index.html"} {
		code, body, res := f.do(req{path: p})
		switch {
		case code == http.StatusNotFound:
		case code >= 300 && code < 400 && !strings.Contains(res.Header.Get("Location"), ".."):
		default:
			t.Errorf("%s: %d (Location %q), want 404 or a redirect to a clean path", p, code, res.Header.Get("Location"))
		}
		for _, leak := range []string{"package viewer", "module github.com", "root:", "{{define", `href="style.css"`} {
			if strings.Contains(body, leak) {
				t.Errorf("%s leaked %q", p, leak)
			}
		}
	}
	// Control: the stylesheet itself is served.
	if body := f.get("/static/style.css", 200); !strings.Contains(body, "prefers-color-scheme") {
		t.Fatal("style.css not served")
	}
}

func TestUnknownIDsAre404Pages(t *testing.T) {
	f, _ := seeded(t)
	for _, p := range []string{"/record/999999", "/record/abc", "/record/-1", "/record/0", "/record/S999999", "/record/P999999",
		"/record/X1", "/record/S", "/observation/1", "/summary/1", "/prompt/1", "/session/no-such-session",
		"/forget?id=999999", "/forget?id=S999999", "/forget?id=P999999", "/forget?id=x", "/forget?session=no-such",
		"/timeline?project=alpha&after=garbage", "/no/such/page"} {
		body := f.get(p, http.StatusNotFound)
		if !strings.Contains(body, "<h1>Not found</h1>") {
			t.Errorf("%s: not the 404 page:\n%s", p, body)
		}
	}
}

func TestProjectsPage(t *testing.T) {
	f, _ := seeded(t)
	f.waiting()
	body := f.get("/", 200)
	for _, want := range []string{`href="/timeline?project=alpha"`, `href="/timeline?project=beta"`, "Mon 30 Nov 2026 09:00 UTC"} {
		if !strings.Contains(body, want) {
			t.Errorf("projects page lacks %q", want)
		}
	}
	if strings.Index(body, "project=alpha") > strings.Index(body, "project=beta") {
		t.Error("alpha (active an hour ago) should come before beta (five hours ago)")
	}
	if f.ingests.Load() == 0 {
		t.Error("journals were not ingested before the read")
	}
}

// TestIngestRunsBeforeTheRead: what ingestion stores is on the very page that ran it, and
// a failed ingestion is a line on the page, not a failed page.
func TestIngestRunsBeforeTheRead(t *testing.T) {
	f := newFixture(t)
	var fail error
	f.waiting()
	m := f.mem
	m.IngestInto = func(ctx context.Context, db *store.DB) error {
		if fail != nil {
			return fail
		}
		f.observe(db, "journaled", "from-journal", []store.Observation{{Type: "change", Title: "ingested", At: t0}}, nil)
		return nil
	}
	h, err := New(Config{Memory: m, Loc: time.UTC, Now: func() time.Time { return t0 }, Host: testName, Port: testPort, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	f.h = h
	if body := f.get("/", 200); !strings.Contains(body, "project=from-journal") {
		t.Errorf("the page did not show what its ingestion stored:\n%s", body)
	}
	fail = fmt.Errorf("database is locked")
	body := f.get("/", 200)
	if !strings.Contains(body, "could not be stored yet: database is locked") || !strings.Contains(body, "project=from-journal") {
		t.Errorf("failed ingestion:\n%s", body)
	}
}

func TestEmptyStatesSayWhatToDo(t *testing.T) {
	f := newFixture(t) // no database at all
	for p, want := range map[string]string{
		"/":                       "Nothing is stored yet",
		"/timeline?project=alpha": "Nothing is stored for alpha",
		"/search?q=zebra":         "Nothing matches",
		"/search":                 "the same search as <code>claude-mem search</code>",
		"/live":                   "Keep this page open",
		"/cost":                   "No observer runs in this period",
	} {
		if body := f.get(p, 200); !strings.Contains(body, want) {
			t.Errorf("%s: lacks %q", p, want)
		}
	}
	if _, err := os.Stat(f.dbPath); !os.IsNotExist(err) {
		t.Errorf("looking created a database: %v", err)
	}
}

func TestTimelineByDayFilterAndPages(t *testing.T) {
	f, db := seeded(t)
	body := f.get("/timeline?project=alpha", 200)
	for _, want := range []string{"Monday 30 November 2026", "Sunday 29 November 2026", "Fixed the flaky lockfile test",
		"Make the lockfile tests reliable", "&lt;script&gt;alert(1)&lt;/script&gt; zebra crossing"} {
		if !strings.Contains(body, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if strings.Contains(body, "Chose SQLite") || strings.Contains(body, "<script>alert") {
		t.Error("timeline shows another project's row or raw markup")
	}
	body = f.get("/timeline?project=alpha&type=bugfix", 200)
	if !strings.Contains(body, "Fixed the flaky") || strings.Contains(body, "zebra crossing") || strings.Contains(body, "reliable") {
		t.Error("type filter bugfix")
	}
	if body := f.get("/timeline?project=alpha&type=decision", 200); !strings.Contains(body, "No <strong>decision</strong> records") {
		t.Error("empty filter state")
	}

	// Pages: 120 more observations make three pages of 50; following "Older" reaches each once.
	var obs []store.Observation
	for i := range 120 {
		obs = append(obs, store.Observation{Type: "change", Title: fmt.Sprintf("paged-%03d", i), At: t0.Add(-time.Duration(i+10) * time.Minute)})
	}
	f.observe(db, "sess-3", "paged", obs, nil)
	seen := map[string]int{}
	next := "/timeline?project=paged"
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		body := f.get(next, 200)
		for _, m := range regexp.MustCompile(`paged-\d{3}`).FindAllString(body, -1) {
			seen[m]++
		}
		next = ""
		if m := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
			if !strings.Contains(next, "after=") || strings.Contains(next, "offset") {
				t.Fatalf("next link %q is not a keyset cursor", next)
			}
		}
	}
	if len(seen) != 120 {
		t.Fatalf("saw %d distinct rows over the pages, want 120", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s shown %d times", k, n)
		}
	}
}

func TestRecordSummaryAndSessionPages(t *testing.T) {
	f, _ := seeded(t)
	tl := f.get("/timeline?project=alpha", 200)
	body := f.get("/record/"+idOf(t, tl, `/record/`), 200)
	for _, want := range []string{"Fixed the flaky lockfile test", "The lockfile test raced a rename", "rename is atomic on one filesystem",
		"gotcha", "lockfile/lock.go", "lockfile/lock_test.go", `href="/session/sess-1"`, "Forget this observation"} {
		if !strings.Contains(body, want) {
			t.Errorf("observation page lacks %q", want)
		}
	}
	body = f.get("/record/S"+idOf(t, tl, `/record/S`), 200)
	if !strings.Contains(body, "Make the lockfile tests reliable") || !strings.Contains(body, "lockfile fixed") || !strings.Contains(body, "Forget this summary") {
		t.Error("summary page")
	}
	body = f.get("/session/sess-1", 200)
	for _, want := range []string{"please look at the zebra tests", "Fixed the flaky lockfile test", "Forget this session", "/work/alpha"} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
}

func TestSearchHighlightsEscapedText(t *testing.T) {
	f, _ := seeded(t)
	body := f.get("/search?q=zebra", 200)
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt; <mark>zebra</mark> crossing") {
		t.Errorf("title not escaped then marked:\n%s", body)
	}
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>zebra") {
		t.Error("stored markup reached the page")
	}
	if !strings.Contains(body, `href="/record/P`) {
		t.Error("the prompt hit is missing")
	}
	// The prompt hit opens its session.
	id := idOf(t, body, `/record/P`)
	code, _, res := f.do(req{path: "/record/P" + id})
	if code != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/session/sess-1#prompt-") {
		t.Errorf("prompt link: %d %q", code, res.Header.Get("Location"))
	}
	if body := f.get("/search?q=zebra&project=beta", 200); strings.Contains(body, "zebra crossing") {
		t.Error("project filter ignored")
	}
}

func TestHighlight(t *testing.T) {
	words := queryWords("Zebra, <b>")
	got := string(highlight(`a <b>zebra</b> & ZEBRAS zebra`, words))
	want := `a &lt;<mark>b</mark>&gt;<mark>zebra</mark>&lt;/<mark>b</mark>&gt; &amp; ZEBRAS <mark>zebra</mark>`
	if got != want {
		t.Errorf("highlight:\n got %s\nwant %s", got, want)
	}
}

func TestHealthAndSettingsPages(t *testing.T) {
	f, _ := seeded(t)
	body := f.get("/health", 200)
	for _, want := range []string{"needs attention", "the observer&#39;s credential expired", "<dt>Pending</dt><dd>3</dd>"} {
		if !strings.Contains(body, want) {
			t.Errorf("health lacks %q", want)
		}
	}
	body = f.get("/settings", 200)
	if !strings.Contains(body, "CLAUDE_MEM_MODEL") || !strings.Contains(body, "haiku") || !strings.Contains(body, ">env<") {
		t.Errorf("settings page:\n%s", body)
	}
}

// TestCostPage: runs recorded by the observer become the table of hook stats and one bar
// per local day, the tallest for the costliest day.
func TestCostPage(t *testing.T) {
	f, db := seeded(t)
	ctx := context.Background()
	for i, r := range []store.RunRecord{
		{Project: "alpha", StartedAt: t0.Add(-time.Hour), Usage: store.Usage{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.25},
			Answer: vocab.VerdictSalvaged, Reasons: []string{"code_fence"}},
		{Project: "beta", StartedAt: t0.Add(-2 * time.Hour), Usage: store.Usage{CostUSD: 0.5}, Answer: vocab.VerdictUnusable, Reasons: []string{"prose_only"}},
		{Project: "alpha", StartedAt: t0.Add(-48 * time.Hour), Usage: store.Usage{CostUSD: 0.25}, Answer: vocab.VerdictStored},
	} {
		r.ID, r.Outcome, r.Events = fmt.Sprint("cost-run-", i), "ok", 4
		if err := db.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	body := f.get("/cost?days=7", 200)
	for _, want := range []string{"last 7 days", "Today <strong>$0.7500</strong>", "<td>2026-11-30</td><td>alpha</td>", "<td>2026-11-28</td><td>alpha</td>", "$1.0000",
		// The answers table: per day and project, the verdicts, the unusable share (over 5%
		// marked) and the reasons; the total last.
		`<th class="num">stored</th><th class="num">salvaged</th><th class="num">skipped</th><th class="num">unusable</th>`,
		`<tr><td>2026-11-30</td><td>alpha</td><td class="num">0</td><td class="num">1</td><td class="num">0</td><td class="num">0</td><td class="num">0.0%</td><td>salvaged: code_fence 1</td></tr>`,
		`<tr class="over"><td>2026-11-30</td><td>beta</td><td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num">1</td><td class="num">100.0%</td><td>unusable: prose_only 1</td></tr>`,
		`<tr class="over"><th colspan="2">Total</th><td class="num">1</td><td class="num">1</td><td class="num">0</td><td class="num">1</td><td class="num">33.3%</td><td>salvaged: code_fence 1; unusable: prose_only 1</td></tr>`} {
		if !strings.Contains(body, want) {
			t.Errorf("cost page lacks %q", want)
		}
	}
	bars := regexp.MustCompile(`<rect class="bar" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"><title>(\S+):`).FindAllStringSubmatch(body, -1)
	if len(bars) != 7 {
		t.Fatalf("%d bars, want one per day of 7", len(bars))
	}
	h := map[string]float64{}
	for _, b := range bars {
		h[b[2]], _ = strconv.ParseFloat(b[1], 64)
	}
	if !(h["2026-11-30"] > h["2026-11-28"] && h["2026-11-28"] > 0 && h["2026-11-29"] == 0) {
		t.Errorf("bar heights %v", h)
	}
}

func TestForgetConfirmThenApply(t *testing.T) {
	f, _ := seeded(t)
	tl := f.get("/timeline?project=alpha", 200)
	id := idOf(t, tl, `/record/`)
	confirm := f.get("/forget?id="+id, 200)
	if !strings.Contains(confirm, "Fixed the flaky lockfile test") || !strings.Contains(confirm, `method="post"`) {
		t.Fatalf("confirmation page:\n%s", confirm)
	}
	f.get("/record/"+id, 200) // a GET changed nothing
	code, body, _ := f.do(req{method: "POST", path: "/forget", form: url.Values{"id": {id}, "csrf": {csrfOf(t, confirm)}},
		header: map[string]string{"Origin": "http://" + testHost}})
	if code != 200 || !strings.Contains(body, "Forgotten") {
		t.Fatalf("POST forget: %d\n%s", code, body)
	}
	f.get("/record/"+id, 404)
	if body := f.get("/search?q=flaky", 200); strings.Contains(body, "Fixed the flaky") {
		t.Error("a forgotten observation is still found")
	}
	// A session, posted as Chromium posts under Referrer-Policy: no-referrer.
	confirm = f.get("/forget?session=sess-2", 200)
	code, _, _ = f.do(req{method: "POST", path: "/forget", form: url.Values{"session": {"sess-2"}, "csrf": {csrfOf(t, confirm)}},
		header: map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-origin"}})
	if code != 200 {
		t.Fatalf("POST forget session: %d", code)
	}
	if body := f.get("/", 200); strings.Contains(body, "project=beta") {
		t.Error("project beta still listed after its only session was forgotten")
	}
}

// TestPagesSurviveTheDatabaseBeingReplaced: a viewer left open sees the file that is there
// now, not the one it first opened.
func TestPagesSurviveTheDatabaseBeingReplaced(t *testing.T) {
	f, db := seeded(t)
	f.get("/", 200)
	db.Close()
	f.replaceDB("gamma", "from the new file")
	body := f.get("/", 200)
	if !strings.Contains(body, "project=gamma") || strings.Contains(body, "project=alpha") {
		t.Fatalf("after replacing the file:\n%s", body)
	}
}

// TestLiveStreamSendsNewObservations reads the server-sent events over a real connection:
// an observation stored after the page was rendered arrives; a replaced database file
// ends the stream with "reset", as the ids of the old file mean nothing in the new one.
func TestLiveStreamSendsNewObservations(t *testing.T) {
	f, db := seeded(t)
	lns, port, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Memory: f.mem, Loc: time.UTC, Now: time.Now, Host: testName, Port: port, Token: testToken, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lns, h)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	latest, _ := db.LatestObservations(ctx, 1)
	r, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/live/events?after="+strconv.FormatInt(latest[0].ID, 10), nil)
	r.Host = net.JoinHostPort(testName, strconv.Itoa(port)) // srv.URL names 127.0.0.1, which the viewer refuses
	r.AddCookie(&http.Cookie{Name: cookieName, Value: session(testToken, r.Host)})
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(res.Body)
	// next reads events until one carries want; an old row arriving fails.
	next := func(want string) {
		t.Helper()
		for lines.Scan() {
			l := lines.Text()
			if l == want {
				return
			}
			if strings.HasPrefix(l, "data: ") {
				if strings.Contains(l, want) {
					return
				}
				t.Fatalf("unexpected event %s", l)
			}
		}
		t.Fatalf("stream ended before %q: %v", want, lines.Err())
	}
	f.observe(db, "sess-1", "alpha", []store.Observation{{Type: "discovery", Title: "arrives live", At: time.Now()}}, nil)
	next("arrives live")

	// Replace the file: the stream tells the page to start again.
	db.Close()
	f.replaceDB("gamma", "already there")
	next("event: reset")
	for lines.Scan() { // the server ends the stream: Scan stops at EOF, not at the deadline
		if strings.HasPrefix(lines.Text(), "event: observation") {
			t.Fatal("the stream went on after reset")
		}
	}
	if ctx.Err() != nil {
		t.Fatal("the stream did not end after reset")
	}
}

// serve runs Serve on lns until the test ends, which must then return nil.
func serve(t *testing.T, lns Loopback, h http.Handler) {
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, lns, h) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// TestListenHoldsBothLoopbacks: a browser tries ::1 before 127.0.0.1 for a .localhost
// name, so the viewer holds its port on both, and the page is served on both; a port
// another program holds on ::1 is refused, and nothing is left held on 127.0.0.1.
func TestListenHoldsBothLoopbacks(t *testing.T) {
	probe, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		// Without ::1 nothing can take it: one listener, on 127.0.0.1.
		lns, _, err := Listen(0)
		if err != nil || len(lns) != 1 {
			t.Fatalf("no ::1 here: %d listeners, %v", len(lns), err)
		}
		lns.Close()
		return
	}
	// A port someone holds on ::1 only.
	taken := probe.Addr().(*net.TCPAddr).Port
	if _, _, err := Listen(taken); !errors.Is(err, ErrPortTaken) {
		t.Errorf("Listen(%d) with [::1]:%d held: %v, want ErrPortTaken", taken, taken, err)
	}
	if ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(taken))); err != nil {
		t.Errorf("127.0.0.1:%d is still held after the refusal: %v", taken, err)
	} else {
		ln.Close()
	}
	probe.Close()

	lns, port, err := Listen(0)
	if err != nil || len(lns) != 2 {
		t.Fatalf("Listen(0): %d listeners, %v; want 127.0.0.1 and ::1", len(lns), err)
	}
	for _, addr := range []string{"127.0.0.1", "::1"} {
		if ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port))); err == nil {
			ln.Close()
			t.Errorf("another program could take %s:%d", addr, port)
		}
	}
	f, _ := seeded(t)
	h, err := New(Config{Memory: f.mem, Loc: time.UTC, Now: time.Now, Host: testName, Port: port, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lns, h)
	for _, addr := range []string{"127.0.0.1", "::1"} {
		r, _ := http.NewRequest("GET", "http://"+net.JoinHostPort(addr, strconv.Itoa(port))+"/", nil)
		r.Host = net.JoinHostPort(testName, strconv.Itoa(port))
		r.AddCookie(&http.Cookie{Name: cookieName, Value: session(testToken, r.Host)})
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("on %s: %s", addr, res.Status)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		h    map[string]string
		want bool
	}{
		{map[string]string{"Origin": "http://" + testHost}, true},
		{map[string]string{"Origin": "http://127.0.0.1:48123"}, false},
		{map[string]string{"Origin": "http://localhost:48123"}, false},
		{map[string]string{"Origin": "http://" + testName + ":48124"}, false},
		{map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"}, false},
		{map[string]string{"Referer": "http://" + testHost + "/forget?id=1"}, true},
		{map[string]string{"Referer": "http://" + testName + ".evil.example:48123/"}, false},
		{map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-origin"}, true},
		{map[string]string{"Origin": "null", "Sec-Fetch-Site": "same-site"}, false},
		{map[string]string{}, false},
	} {
		r := httptest.NewRequest("POST", "/forget", nil)
		for k, v := range c.h {
			r.Header.Set(k, v)
		}
		if got := sameOrigin(r, testHost); got != c.want {
			t.Errorf("%v: %v, want %v", c.h, got, c.want)
		}
	}
}

func TestOpener(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	u := "http://127.0.0.1:1/?token=a&b"
	for _, c := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", nil, "[]"},
		{"linux", map[string]string{"DISPLAY": ":0"}, "[xdg-open " + u + "]"},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "[xdg-open " + u + "]"},
		{"darwin", nil, "[open " + u + "]"},
		{"windows", nil, "[rundll32 url.dll,FileProtocolHandler " + u + "]"},
	} {
		if got := fmt.Sprint(Opener(c.goos, env(c.env), u)); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.goos, c.env, got, c.want)
		}
	}
}

// TestRecordIDs: the viewer's record URLs are the record id grammar (12, S3, P7), as
// `claude-mem search` prints it: search links each hit by its id, a URL takes the id in either
// case and with the # lists print, and forgetting a summary by its id removes that summary
// and never the observation with the same number.
func TestRecordIDs(t *testing.T) {
	f, _ := seeded(t)
	body := f.get("/search?q=lockfile", 200)
	for _, want := range []string{`href="/record/1"`, `href="/record/S1"`, "#1 ·", "#S1 ·"} {
		if !strings.Contains(body, want) {
			t.Errorf("search page lacks %q:\n%s", want, body)
		}
	}
	if body := f.get("/search?q=zebra", 200); !strings.Contains(body, `href="/record/P1"`) || !strings.Contains(body, "#P1 ·") {
		t.Errorf("the prompt hit is not linked by its id:\n%s", body)
	}
	for _, p := range []string{"/record/S1", "/record/s1", "/record/%23S1"} {
		if body := f.get(p, 200); !strings.Contains(body, "Make the lockfile tests reliable") || !strings.Contains(body, "#S1 ·") {
			t.Errorf("%s is not summary 1's page", p)
		}
	}
	if body := f.get("/record/1", 200); !strings.Contains(body, "Fixed the flaky lockfile test") || !strings.Contains(body, "#1 ·") {
		t.Error("/record/1 is not observation 1's page")
	}

	confirm := f.get("/forget?id=S1", 200)
	if !strings.Contains(confirm, "Forget summary #S1?") || !strings.Contains(confirm, `name="id" value="S1"`) ||
		!strings.Contains(confirm, "Make the lockfile tests reliable") || strings.Contains(confirm, "Fixed the flaky lockfile test") {
		t.Fatalf("confirmation page:\n%s", confirm)
	}
	code, body, _ := f.do(req{method: "POST", path: "/forget", form: url.Values{"id": {"S1"}, "csrf": {csrfOf(t, confirm)}},
		header: map[string]string{"Origin": "http://" + testHost}})
	if code != 200 || !strings.Contains(body, "Removed 0 observation(s), 1 summary(ies)") {
		t.Fatalf("POST forget S1: %d\n%s", code, body)
	}
	f.get("/record/S1", 404)
	if body := f.get("/record/1", 200); !strings.Contains(body, "Fixed the flaky lockfile test") {
		t.Error("forgetting summary 1 took observation 1")
	}
	// A prompt's id forgets the prompt.
	confirm = f.get("/forget?id=P1", 200)
	code, _, _ = f.do(req{method: "POST", path: "/forget", form: url.Values{"id": {"P1"}, "csrf": {csrfOf(t, confirm)}},
		header: map[string]string{"Origin": "http://" + testHost}})
	if code != 200 {
		t.Fatalf("POST forget P1: %d", code)
	}
	f.get("/record/P1", 404)
	if body := f.get("/search?q=zebra", 200); strings.Contains(body, "/record/P1") || !strings.Contains(body, `href="/record/2"`) {
		t.Errorf("after forgetting P1:\n%s", body)
	}
}
