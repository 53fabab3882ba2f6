package viewer

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/byline"
	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/forget"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/notice"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// pageSize is how many timeline items one page shows.
const pageSize = 50

type server struct {
	cfg    Config
	reader *memory.Reader
	csrf   string
	pages  map[string]*template.Template
}

// New returns the viewer's handler: every page behind the guard.
func New(cfg Config) (http.Handler, error) {
	if !strings.HasSuffix(cfg.Host, ".localhost") || cfg.Port == 0 || cfg.Token == "" {
		return nil, ErrNoHost
	}
	if cfg.Loc == nil {
		cfg.Loc = time.UTC
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	csrf, err := NewToken()
	if err != nil {
		return nil, err
	}
	s := &server{cfg: cfg, reader: cfg.Memory.Reader("viewer"), csrf: csrf, pages: map[string]*template.Template{}}
	if err := s.parse(); err != nil {
		return nil, err
	}
	static, _ := fs.Sub(staticFS, "static")
	mux := http.NewServeMux()
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			s.notFound(w, r, "There is no page here.")
			return
		}
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /{$}", s.projects)
	mux.HandleFunc("GET /timeline", s.timeline)
	mux.HandleFunc("GET /record/{ref}", s.record)
	mux.HandleFunc("GET /context", s.context)
	mux.HandleFunc("GET /session/{id}", s.session)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /live", s.live)
	mux.HandleFunc("GET /live/events", s.liveEvents)
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /cost", s.cost)
	mux.HandleFunc("GET /settings", s.settings)
	mux.HandleFunc("GET /forget", s.forgetConfirm)
	mux.HandleFunc("POST /forget", s.forgetApply)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r, "There is no page here.") })
	return s.guard(mux), nil
}

func (s *server) parse() error {
	funcs := template.FuncMap{
		"day":      func(t time.Time) string { return when.Show(t, s.cfg.Loc, when.LongDay) },
		"clock":    func(t time.Time) string { return when.Show(t, s.cfg.Loc, when.Clock) },
		"datetime": func(t time.Time) string { return s.when(t) },
		"iso":      func(t time.Time) string { return when.Show(t, s.cfg.Loc, when.Instant) },
		"path":     url.PathEscape,
		"record":   func(v any) (string, error) { r, err := refOf(v); return recordURL(r), err },
		"label":    func(v any) (string, error) { r, err := refOf(v); return recordid.Label(r), err },
		"refid":    func(v any) (string, error) { r, err := refOf(v); return recordid.Format(r), err },
		"byline":   byline.Of,
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	for _, n := range names {
		if n == "templates/layout.html" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return err
		}
		s.pages[strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")] = t
	}
	return nil
}

// when is a time in the viewer's zone, with the zone named.
func (s *server) when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return when.Show(t, s.cfg.Loc, when.Zoned)
}

// page is what every template gets.
type page struct {
	Title  string
	Nav    string // the section highlighted in the navigation
	Query  string // the search box's text
	CSRF   string
	Notice string // a problem worth a line above the page (ingestion failed)
	// Command is how the user runs claude-mem (Config.Command), in the commands a page names.
	Command string
	Data    any
}

func (s *server) render(w http.ResponseWriter, status int, name string, p page) {
	p.CSRF, p.Command = s.csrf, cmp.Or(s.cfg.Command, doctor.Name)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	if err := s.pages[name].Execute(&b, p); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<!doctype html><title>Error</title><p>%s", template.HTMLEscapeString(err.Error()))
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func (s *server) refuse(w http.ResponseWriter, r *http.Request, why string) {
	s.render(w, http.StatusForbidden, "message", page{Title: "Not allowed", Data: message{Heading: "Not allowed", Text: why}})
}

func (s *server) notFound(w http.ResponseWriter, r *http.Request, why string) {
	s.render(w, http.StatusNotFound, "message", page{Title: "Not found", Data: message{Heading: "Not found", Text: why}})
}

func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	text := err.Error()
	if errors.Is(err, store.ErrNotFound) {
		s.notFound(w, r, "Nothing with that id is stored (it may have been forgotten).")
		return
	}
	var se *store.SchemaVersionError
	if errors.As(err, &se) {
		text = se.Error()
	}
	s.render(w, http.StatusInternalServerError, "message", page{Title: "Memory unavailable",
		Data: message{Heading: "Memory unavailable", Text: text}})
}

type message struct{ Heading, Text string }

// withDB runs fn with the database as the viewer's reader reads it, pending journals
// stored first, so a database replaced while the viewer runs is the one the next request
// sees. With nothing captured yet db is nil: pages show their empty state. notice is an
// ingestion problem worth showing; reading goes on without what it left waiting.
func (s *server) withDB(w http.ResponseWriter, r *http.Request, fn func(db *store.DB, notice string) error) {
	db, unstored, err := s.reader.Read(r.Context())
	if errors.Is(err, store.ErrNoDatabase) {
		db, err = nil, nil
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	notice := ""
	if unstored != nil {
		notice = "Captured records waiting in journals could not be stored yet: " + unstored.Err.Error()
	}
	if err := fn(db, notice); err != nil {
		s.reader.Drop(err)
		s.fail(w, r, err)
	}
}

// journalDirs are the dirs forget removes a forgotten session's journals from.
func (s *server) journalDirs() []string {
	if s.cfg.Memory.Journal == nil {
		return nil
	}
	return s.cfg.Memory.Journal.Dirs()
}

func (s *server) projects(w http.ResponseWriter, r *http.Request) {
	s.withDB(w, r, func(db *store.DB, notice string) error {
		var ps []store.ProjectStats
		if db != nil {
			var err error
			if ps, err = db.Projects(r.Context()); err != nil {
				return err
			}
		}
		s.render(w, http.StatusOK, "projects", page{Title: "Projects", Nav: "projects", Notice: notice, Data: ps})
		return nil
	})
}

// dayGroup is one local day of a timeline page.
type dayGroup struct {
	Day   time.Time
	Items []store.TimelineItem
}

type timelineData struct {
	Project string
	Type    string
	Types   []string
	Days    []dayGroup
	Next    string // the next page's cursor; "" on the last page
	First   bool
}

func (s *server) timeline(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := timelineData{Project: q.Get("project"), Type: q.Get("type"), Types: append(slices.Clip(vocab.ObservationTypes), store.TypeSummary)}
	if d.Project == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	var after *store.Cursor
	if a := q.Get("after"); a != "" {
		c, err := store.ParseCursor(a)
		if err != nil {
			s.notFound(w, r, "That page of the timeline does not exist.")
			return
		}
		after = &c
	}
	d.First = after == nil
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db != nil {
			items, next, err := db.TimelinePage(r.Context(), d.Project, d.Type, after, pageSize)
			if err != nil {
				return err
			}
			if next != nil {
				d.Next = next.String()
			}
			d.Days = s.byDay(items)
		}
		s.render(w, http.StatusOK, "timeline", page{Title: d.Project, Nav: "projects", Notice: notice, Data: d})
		return nil
	})
}

type contextData struct {
	Project string
	Text    string
	Shown   notice.Shown
	Budget  int
}

// context shows the text the project's next session starts with: the same read and the
// same renderer as SessionStart, without the notices (the health page has them).
func (s *server) context(w http.ResponseWriter, r *http.Request) {
	d := contextData{Project: r.URL.Query().Get("project"), Budget: notice.MaxContext}
	if d.Project == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.withDB(w, r, func(db *store.DB, ingestNote string) error {
		var st store.Story
		if db != nil {
			var err error
			if st, err = db.Story(r.Context(), d.Project, s.cfg.ContextObservations); err != nil {
				return err
			}
		}
		d.Text, d.Shown = notice.Render(notice.Context{Project: d.Project, Story: st, Loc: s.cfg.Loc})
		s.render(w, http.StatusOK, "context", page{Title: d.Project + ": session start", Nav: "projects", Notice: ingestNote, Data: d})
		return nil
	})
}

// byDay groups items (newest first) by their local day.
func (s *server) byDay(items []store.TimelineItem) []dayGroup {
	var days []dayGroup
	for _, it := range items {
		t := it.At().In(s.cfg.Loc)
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, s.cfg.Loc)
		if len(days) == 0 || !days[len(days)-1].Day.Equal(day) {
			days = append(days, dayGroup{Day: day})
		}
		days[len(days)-1].Items = append(days[len(days)-1].Items, it)
	}
	return days
}

// recordURL is a record's page: /record/12, /record/S3, /record/P7 (DESIGN §23's ids).
func recordURL(r vocab.Ref) string { return "/record/" + recordid.Format(r) }

// refOf is the ref of a record a template shows.
func refOf(v any) (vocab.Ref, error) {
	switch v := v.(type) {
	case vocab.Ref:
		return v, nil
	case *store.Observation:
		return vocab.Ref{Kind: vocab.KindObservation, ID: v.ID}, nil
	case store.Observation:
		return vocab.Ref{Kind: vocab.KindObservation, ID: v.ID}, nil
	case *store.Summary:
		return vocab.Ref{Kind: vocab.KindSummary, ID: v.ID}, nil
	case store.Summary:
		return vocab.Ref{Kind: vocab.KindSummary, ID: v.ID}, nil
	case store.Prompt:
		return vocab.Ref{Kind: vocab.KindPrompt, ID: v.ID}, nil
	}
	return vocab.Ref{}, fmt.Errorf("viewer: %T is no record", v)
}

type recordData struct {
	Observation *store.Observation // one of the two is set
	Summary     *store.Summary
	Session     *store.Session
}

func (d recordData) sessionID() string {
	if d.Summary != nil {
		return d.Summary.SessionID
	}
	return d.Observation.SessionID
}

// record shows the record the path's {ref} names, with the session it came from; a
// prompt is shown among its session's others. A bad ref is a 404 like an unknown one.
func (s *server) record(w http.ResponseWriter, r *http.Request) {
	ref, err := recordid.Parse(r.PathValue("ref"))
	if err != nil {
		s.notFound(w, r, "Record ids are 12 (an observation), S3 (a summary) or P7 (a prompt).")
		return
	}
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db == nil {
			return store.ErrNotFound
		}
		ctx := r.Context()
		var d recordData
		title := "Session summary"
		switch ref.Kind {
		case vocab.KindPrompt:
			p, err := db.Prompt(ctx, ref.ID)
			if err != nil {
				return err
			}
			http.Redirect(w, r, "/session/"+url.PathEscape(p.SessionID)+"#prompt-"+strconv.FormatInt(ref.ID, 10), http.StatusSeeOther)
			return nil
		case vocab.KindSummary:
			if d.Summary, err = db.Summary(ctx, ref.ID); err != nil {
				return err
			}
		default:
			if d.Observation, err = db.Observation(ctx, ref.ID); err != nil {
				return err
			}
			title = d.Observation.Title
		}
		if d.Session, err = db.SessionByID(ctx, d.sessionID()); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		s.render(w, http.StatusOK, "record", page{Title: title, Nav: "projects", Notice: notice, Data: d})
		return nil
	})
}

// sessionLimit bounds the prompts and observations a session page lists.
const sessionLimit = 500

type sessionData struct {
	Session      *store.Session
	Request      string // as SessionStart heads the session: its latest summary's request, else its first prompt
	NextSteps    string // the latest summary's
	Prompts      []store.Prompt
	Observations []store.Observation
	Summaries    []store.Summary
}

func (s *server) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db == nil {
			return store.ErrNotFound
		}
		ctx := r.Context()
		var d sessionData
		var err error
		if d.Session, err = db.SessionByID(ctx, id); err != nil {
			return err
		}
		if d.Prompts, err = db.SessionPrompts(ctx, id, sessionLimit); err != nil {
			return err
		}
		if d.Observations, err = db.SessionObservations(ctx, id, sessionLimit); err != nil {
			return err
		}
		if d.Summaries, err = db.SessionSummaries(ctx, id); err != nil {
			return err
		}
		head, err := db.SessionStory(ctx, id)
		if err != nil {
			return err
		}
		d.Request = head.Request
		for _, sum := range d.Summaries { // oldest first: the last one with next steps is the latest word
			if strings.TrimSpace(sum.NextSteps) != "" {
				d.NextSteps = sum.NextSteps
			}
		}
		title := "Session " + id
		if d.Request != "" {
			title = d.Request
		}
		s.render(w, http.StatusOK, "session", page{Title: title, Nav: "projects", Notice: notice, Data: d})
		return nil
	})
}

// searchLimit is how many hits the search page shows, as `claude-mem search` does by default.
const searchLimit = 20

type searchHit struct {
	rank.Hit
	URL     string
	Label   string // the record id, as `claude-mem search` prints it
	Title   template.HTML
	Snippet template.HTML
}

type searchData struct {
	Query, Project string
	Hits           []searchHit
	Searched       bool
}

func (s *server) search(w http.ResponseWriter, r *http.Request) {
	d := searchData{Query: strings.TrimSpace(r.URL.Query().Get("q")), Project: r.URL.Query().Get("project")}
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db != nil && d.Query != "" {
			d.Searched = true
			hits, err := db.Search(r.Context(), d.Query, d.Project, searchLimit)
			if err != nil {
				return err
			}
			words := queryWords(d.Query)
			for _, h := range hits {
				ref := vocab.Ref{Kind: h.Kind, ID: h.ID}
				d.Hits = append(d.Hits, searchHit{Hit: h, URL: recordURL(ref), Label: recordid.Label(ref),
					Title: highlight(h.Title, words), Snippet: template.HTML(rank.Marked(h.Snippet, h.Marks, "<mark>", "</mark>", template.HTMLEscapeString))})
			}
		}
		d.Searched = d.Query != ""
		s.render(w, http.StatusOK, "search", page{Title: "Search", Nav: "search", Query: d.Query, Notice: notice, Data: d})
		return nil
	})
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	var rep *doctor.Report
	if s.cfg.Report != nil {
		rep = s.cfg.Report(r.Context())
	}
	s.render(w, http.StatusOK, "health", page{Title: "Health", Nav: "health", Data: rep})
}

func (s *server) settings(w http.ResponseWriter, r *http.Request) {
	var rep *doctor.Report
	if s.cfg.Report != nil {
		rep = s.cfg.Report(r.Context())
	}
	s.render(w, http.StatusOK, "settings", page{Title: "Settings", Nav: "settings", Data: rep})
}

// forgetTarget is what a forget form names: one record or a whole session.
type forgetTarget struct {
	Ref     vocab.Ref
	Session string
	Back    string // the page to return to when the person changes their mind
}

func (t forgetTarget) selector() forget.Selector {
	if t.Session != "" {
		return forget.Selector{Session: t.Session}
	}
	return forget.Selector{Refs: []vocab.Ref{t.Ref}}
}

// forgetTargetOf reads the target from a query or form (id=12, S3 or P7, or session=…);
// ok is false when it names none.
func forgetTargetOf(v url.Values) (forgetTarget, bool) {
	t := forgetTarget{Session: v.Get("session")}
	if t.Session != "" {
		t.Back = "/session/" + url.PathEscape(t.Session)
		return t, true
	}
	ref, err := recordid.Parse(v.Get("id"))
	if err != nil {
		return t, false
	}
	t.Ref, t.Back = ref, recordURL(ref)
	return t, true
}

type forgetData struct {
	Target forgetTarget
	Plan   forget.Plan
	Done   bool
}

func (s *server) forgetConfirm(w http.ResponseWriter, r *http.Request) {
	t, ok := forgetTargetOf(r.URL.Query())
	if !ok {
		s.notFound(w, r, "Forget needs a record id (12, S3, P7) or a session.")
		return
	}
	s.withDB(w, r, func(db *store.DB, notice string) error {
		if db == nil {
			return store.ErrNotFound
		}
		plan, err := forget.Preview(r.Context(), db, s.journalDirs(), t.selector())
		if err != nil {
			return err
		}
		if len(plan.Missing) > 0 || plan.Empty() {
			return store.ErrNotFound
		}
		s.render(w, http.StatusOK, "forget", page{Title: "Forget", Nav: "projects", Notice: notice, Data: forgetData{Target: t, Plan: plan}})
		return nil
	})
}

func (s *server) forgetApply(w http.ResponseWriter, r *http.Request) {
	t, ok := forgetTargetOf(r.PostForm)
	if !ok {
		s.notFound(w, r, "Forget needs a record id (12, S3, P7) or a session.")
		return
	}
	db, err := s.cfg.Memory.Write(r.Context(), "viewer")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer db.Close()
	plan, err := forget.Apply(r.Context(), db, s.journalDirs(), t.selector(), r.PostFormValue("vacuum") == "1")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "forget", page{Title: "Forgotten", Nav: "projects", Data: forgetData{Target: t, Plan: plan, Done: true}})
}
