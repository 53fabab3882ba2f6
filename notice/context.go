package notice

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/byline"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// Size bounds of the SessionStart context. The whole text stays within MaxContext bytes
// (DESIGN.md §12); a single title, request or summary field is clipped first so that one
// huge value cannot crowd out everything else.
const (
	MaxContext  = 8000
	maxTitle    = 160
	maxSubtitle = 120
	maxRequest  = 160
	maxField    = 600
)

// Context is what SessionStart injects for one project.
type Context struct {
	Project string // "" when the event was refused or is our own: only notices then
	Story   store.Story
	Notices []string
	Loc     *time.Location // days and clock times are local to it; nil is UTC
}

// Shown is what a rendered context holds of the memory, for the line that tells the person
// memory loaded.
type Shown struct {
	Observations, Sessions int
}

// SearchHint ends a context that has memory: it names the memory tools (mcpserver), which
// reach everything older than the context shows, compact index first.
const SearchHint = "Search older memory with the claude-mem tools: mcp__plugin_claude-mem_memory__search (a compact index), " +
	"then mcp__plugin_claude-mem_memory__get_observations for the records you need."

// Render builds the additionalContext text (DESIGN.md §12, §24): notices first, then the
// project's story: its sessions grouped by local day, oldest first, each headed by its
// local start time and request, with its observations oldest first; the latest summary's
// learned and next steps under its session; and how to search older memory. The window
// is what fits in MaxContext bytes, newest first: when the budget is short the oldest
// observations go, never a line in part. Near-duplicates (same type, same TitleKey)
// show once, at their newest, with how many times they were recorded. Nothing in the
// text depends on the clock, so an unchanged memory renders byte-identical (Claude
// Code's prompt cache), and no line repeats.
func Render(c Context) (string, Shown) {
	head := make([]string, len(c.Notices))
	for i, n := range c.Notices {
		head[i] = printable.Inert(n) // a path or a reason in it may hold anything
	}
	if c.Project == "" {
		return strings.Join(head, "\n"), Shown{}
	}
	if c.Story.Empty() {
		return strings.Join(append(head, "# claude-mem: "+field(c.Project)+" — no memory yet"), "\n"), Shown{}
	}
	loc := cmp.Or(c.Loc, time.UTC)
	head = append(head, "# claude-mem: "+field(c.Project)+" — memory of past sessions")
	tail := []string{SearchHint}

	st := newStory(c.Story, loc)
	budget := MaxContext - size(head) - size(tail)
	var latest string // the latest summary's session: it is always shown, with its lines
	if len(c.Story.Summaries) > 0 {
		latest = c.Story.Summaries[0].SessionID
		budget -= st.add(latest) + size(st.leftOff)
	}
	for _, it := range st.items {
		cost := st.cost(it)
		if budget -= cost; budget < 0 {
			break
		}
		st.take(it)
	}
	out := append(head, st.lines(latest)...)
	return strings.Join(append(out, tail...), "\n"), st.shown()
}

// story is one rendering's working state.
type story struct {
	src      store.Story
	loc      *time.Location
	start    map[string]time.Time // each session's start: its row's, else its first item's
	items    []item               // observations (collapsed) and summaries, newest first
	leftOff  []string             // the latest summary's learned and next steps
	sessions map[string][]item    // the sessions shown, with their observations shown
	days     map[string]bool      // the local days shown
}

// item is one observation line (obs set) or a summary, which only brings its session in.
type item struct {
	session string
	at      time.Time
	id      int64
	obs     *store.Observation
	times   int // how many near-equal observations this line stands for
}

func newStory(src store.Story, loc *time.Location) *story {
	st := &story{src: src, loc: loc, start: map[string]time.Time{}, sessions: map[string][]item{}, days: map[string]bool{}}
	seen := map[string]int{} // type and normal title → index in items
	for i := range src.Observations {
		o := &src.Observations[i]
		title := store.TitleKey(cmp.Or(o.Title, o.Subtitle))
		key := o.Type + "\x00" + title
		if j, ok := seen[key]; ok && title != "" { // untitled ones are not alike for that
			st.items[j].times++
			continue
		}
		seen[key] = len(st.items)
		st.items = append(st.items, item{session: o.SessionID, at: o.At, id: o.ID, obs: o, times: 1})
	}
	for _, s := range src.Summaries {
		st.items = append(st.items, item{session: s.SessionID, at: s.At, id: s.ID})
	}
	slices.SortStableFunc(st.items, func(a, b item) int {
		return cmp.Or(b.at.Compare(a.at), boolOrder(a.obs == nil, b.obs == nil), cmp.Compare(b.id, a.id))
	})
	for _, it := range st.items {
		if t, ok := st.start[it.session]; !ok || it.at.Before(t) {
			st.start[it.session] = it.at
		}
	}
	for id, s := range src.Sessions {
		if !s.StartedAt.IsZero() {
			st.start[id] = s.StartedAt
		}
	}
	if len(src.Summaries) > 0 {
		s := src.Summaries[0]
		for _, f := range []struct{ label, text string }{{"Learned", s.Learned}, {"Next", s.NextSteps}} {
			if t := strings.TrimSpace(field(f.text)); t != "" {
				st.leftOff = append(st.leftOff, f.label+": "+clip.Head(t, maxField))
			}
		}
	}
	return st
}

// boolOrder puts true (a summary) first at an equal time: it is written after its
// session's observations.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// cost is the bytes taking it adds: its line, and its session's and day's headings when
// they are not shown yet.
func (st *story) cost(it item) int {
	n := 0
	if it.obs != nil {
		n = len(st.observationLine(it)) + 1
	}
	if _, ok := st.sessions[it.session]; !ok {
		n += st.headingCost(it.session)
	}
	return n
}

// headingCost is the bytes of a session's heading, and of its day's when that is new.
func (st *story) headingCost(session string) int {
	n := len(st.sessionLine(session)) + 1
	if !st.days[st.dayLine(session)] {
		n += len(st.dayLine(session)) + 1
	}
	return n
}

// add shows a session (without observations) and returns what its headings cost.
func (st *story) add(session string) int {
	if _, ok := st.sessions[session]; ok {
		return 0
	}
	n := st.headingCost(session)
	st.sessions[session] = nil
	st.days[st.dayLine(session)] = true
	return n
}

func (st *story) take(it item) {
	st.add(it.session)
	if it.obs != nil {
		st.sessions[it.session] = append(st.sessions[it.session], it)
	}
}

func (st *story) shown() Shown {
	s := Shown{Sessions: len(st.sessions)}
	for _, obs := range st.sessions {
		s.Observations += len(obs)
	}
	return s
}

// lines lays out what was taken: days oldest first, their sessions by start, each
// session's observations oldest first, and the left-off lines under latest's session.
func (st *story) lines(latest string) []string {
	ids := make([]string, 0, len(st.sessions))
	for id := range st.sessions {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(st.start[a].Compare(st.start[b]), cmp.Compare(a, b)) })
	var out []string
	day := ""
	for _, id := range ids {
		if d := st.dayLine(id); d != day {
			day = d
			out = append(out, d)
		}
		out = append(out, st.sessionLine(id))
		obs := st.sessions[id]
		slices.SortFunc(obs, func(a, b item) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.id, b.id)) })
		for _, it := range obs {
			out = append(out, st.observationLine(it))
		}
		if id == latest {
			out = append(out, st.leftOff...)
		}
	}
	return out
}

// dayLine is the heading of a session's local start day: "## Tue 1 Dec 2026".
func (st *story) dayLine(session string) string {
	return "## " + when.Show(st.start[session], st.loc, when.Heading)
}

// sessionLine is a session's heading: "### 09:12 Fix the flaky refund test (session
// 3f2a9c1e)", with its byline when it was pulled: "(session 3f2a9c1e, by alice on desk)".
func (st *story) sessionLine(session string) string {
	s := st.src.Sessions[session]
	request := cmp.Or(clip.Head(field(s.Request), maxRequest), "(no request recorded)")
	about := "session " + ShortSession(session)
	if by := byline.Of(s.Author, s.Machine); by != "" {
		about += ", " + field(by)
	}
	return "### " + when.Show(st.start[session], st.loc, when.Clock) + " " + request + " (" + about + ")"
}

// observationLine is "- 12 14:05 [bugfix] title — subtitle", the time with its date when
// it is not on its session's start day, and "(×3)" for a title recorded three times.
func (st *story) observationLine(it item) string {
	o := it.obs
	var b strings.Builder
	b.WriteString("- " + recordid.Format(vocab.Ref{Kind: vocab.KindObservation, ID: o.ID}) + " ")
	clock := when.Clock
	if t, s := o.At.In(st.loc), st.start[it.session].In(st.loc); t.YearDay() != s.YearDay() || t.Year() != s.Year() {
		clock = when.DayClock
	}
	b.WriteString(when.Show(o.At, st.loc, clock))
	if o.Type != "" {
		b.WriteString(" [" + field(o.Type) + "]")
	}
	title, sub := field(o.Title), field(o.Subtitle)
	if title == "" {
		title, sub = sub, ""
	}
	b.WriteString(" " + cmp.Or(clip.Head(title, maxTitle), "(untitled)"))
	if sub != "" && store.TitleKey(sub) != store.TitleKey(title) {
		b.WriteString(" — " + clip.Head(sub, maxSubtitle))
	}
	if it.times > 1 {
		fmt.Fprintf(&b, " (×%d)", it.times)
	}
	return b.String()
}

// ShortSession is how the story names a session: a Claude Code session id (a UUID) by its
// first 8 characters, as a git hash is shortened, and any other id whole. It is always
// written after the word "session", and a short form made only of digits is written whole
// too, so it never reads as a record id ("12", "S3", "P7").
func ShortSession(id string) string {
	id = field(id)
	if len(id) != 36 || strings.Trim(id, "0123456789abcdefABCDEF-") != "" {
		return id
	}
	if strings.Trim(id[:8], "0123456789") == "" {
		return id
	}
	return id[:8]
}

// Loaded is the one line that tells the person memory loaded: "claude-mem: 48
// observations from 12 sessions of payments-api loaded"; "" when nothing was shown.
func Loaded(project string, s Shown) string {
	switch {
	case s.Sessions == 0:
		return ""
	case s.Observations == 0:
		return "claude-mem: " + count(s.Sessions, "session") + " of " + field(project) + " loaded"
	}
	return "claude-mem: " + count(s.Observations, "observation") + " from " + count(s.Sessions, "session") +
		" of " + field(project) + " loaded"
}

// field is a stored value as the story shows it: scrubbed and on one line (oneLine: a
// newline in a title would let it start a heading or a block of its own), then inert
// (printable.Inert: no control or hidden character, and no tag that could close the
// wrapper Claude Code puts the context in, or open another). A value is escaped before
// its line is measured, so the byte budget holds for what is sent.
func field(s string) string { return printable.Inert(oneLine(s)) }

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// size is the length of lines joined by newlines, plus the newline that joins them to the
// rest.
func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}
