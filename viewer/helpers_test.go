package viewer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/internal/memtest"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// t0 is the tests' clock: Monday 30 November 2026, 10:00 UTC.
var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

const (
	testPort  = 48123
	testToken = "0123456789abcdef0123456789abcdef"
	testName  = "claude-mem-abcdefghijklmnop.localhost"
	testHost  = testName + ":48123" // the Host a browser sends for the printed URL
)

// testCookie is the session cookie the viewer hands out for testHost (what
// TestTokenInURLBecomesCookieAndLeavesTheURL checks it hands out).
func testCookie() *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: session(testToken, testHost)}
}

// fixture is a viewer over a temp data dir.
type fixture struct {
	t       testing.TB
	dir     string
	mem     memory.Memory
	dbPath  string
	h       http.Handler
	ingests atomic.Int32
	runs    int
}

func newFixture(t testing.TB) *fixture { t.Helper(); return newFixtureIn(t, time.UTC) }

// newFixtureIn is a fixture whose viewer shows dates in loc.
func newFixtureIn(t testing.TB, loc *time.Location) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.mem = memory.Memory{DataDir: f.dir, Journal: journal.New(f.dir, "", "", "", "", nil), Log: zerolog.Nop(),
		IngestInto: func(context.Context, *store.DB) error { f.ingests.Add(1); return nil }}
	f.dbPath = f.mem.Path()
	h, err := New(Config{
		Memory: f.mem,
		Report: func(context.Context) *doctor.Report {
			return &doctor.Report{Version: "test", DataDir: f.dir, OK: false,
				Findings: []string{"claude-mem: the observer's credential expired"},
				Settings: []settings.Value{{Key: "CLAUDE_MEM_MODEL", Value: "haiku", Origin: settings.FromEnv}},
				Queue:    &doctor.Queue{Pending: 3}}
		},
		Loc: loc, Now: func() time.Time { return t0 }, Host: testName, Port: testPort, Token: testToken, Poll: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.h = h
	return f
}

// db opens the fixture's database for writing, closed when the test ends.
func (f *fixture) db() *store.DB {
	f.t.Helper()
	db, err := f.mem.OpenWrite()
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { db.Close() })
	return db
}

// waiting leaves a record in the capture journal: every read ingests from then on.
func (f *fixture) waiting() {
	f.t.Helper()
	if err := os.MkdirAll(f.mem.Journal.Dir, 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.mem.Journal.Dir, "s.jsonl"), []byte("{}\n"), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// observe stores observations (and a summary) for a session the way the observer does:
// a captured event, a claimed run, its completion.
func (f *fixture) observe(db *store.DB, sessionID, project string, obs []store.Observation, sum *store.Summary) {
	f.t.Helper()
	ctx := context.Background()
	f.runs++
	s := store.Session{ID: sessionID, Project: project, Cwd: "/work/" + project, StartedAt: t0.Add(-time.Hour)}
	e := store.Event{Hook: "PostToolUse", ToolName: "Bash", ToolUseID: fmt.Sprint("tu-", f.runs),
		Input: `{"command":"ls"}`, Response: `{}`, At: t0.Add(-time.Hour)}
	memtest.Event(f.t, db, s, e)
	run := fmt.Sprint("run-", f.runs)
	if _, err := db.Claim(ctx, sessionID, run, 100, t0); err != nil {
		f.t.Fatal(err)
	}
	memtest.Complete(f.t, db, run, obs, sum)
}

// replaceDB puts another database file in place of the fixture's (as a restore would): a
// new file, one observation titled title in project.
func (f *fixture) replaceDB(project, title string) {
	f.t.Helper()
	other := newFixture(f.t)
	odb := other.db()
	other.observe(odb, "s-"+project, project, []store.Observation{{Type: "change", Title: title, At: t0}}, nil)
	odb.Close()
	if err := os.Rename(other.dbPath, f.dbPath); err != nil {
		f.t.Fatal(err)
	}
	os.Remove(f.dbPath + "-wal")
	os.Remove(f.dbPath + "-shm")
}

// req describes one request; the zero value is a GET from the viewer's own page.
type req struct {
	method, path string
	host         string // default testHost
	noCookie     bool
	form         url.Values
	header       map[string]string
}

// do sends r and returns the status, the body and the response.
func (f *fixture) do(r req) (int, string, *http.Response) {
	f.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	hr.Host = testHost
	if r.host != "" {
		hr.Host = r.host
	}
	if r.form != nil {
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if !r.noCookie {
		hr.AddCookie(testCookie())
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, hr)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res
}

// get is a plain GET with the cookie, which must answer want.
func (f *fixture) get(path string, want int) string {
	f.t.Helper()
	code, body, _ := f.do(req{path: path})
	if code != want {
		f.t.Fatalf("GET %s: %d, want %d\n%s", path, code, want, body)
	}
	return body
}

// csrfOf is the form token a rendered page carries.
func csrfOf(t testing.TB, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `name="csrf" value="`)
	if !ok {
		t.Fatalf("no csrf field in\n%s", body)
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}
