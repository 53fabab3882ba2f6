package notice

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/store"
)

// Size bounds of the SessionStart context. The whole text stays within about maxContext
// bytes; a single title or summary field is clipped first so that one huge value cannot
// crowd out everything else.
const (
	maxContext = 8000
	maxTitle   = 200
	maxField   = 600
)

// Context is what SessionStart injects for one project.
type Context struct {
	Project      string // "" when the event was refused or is our own: only notices then
	Observations []store.Observation
	Summary      *store.Summary // the latest session summary, if any
	Notices      []string
}

// SearchHint ends a context that has memory: it names the memory tools (mcpserver), which
// reach everything older than the context shows, compact index first.
const SearchHint = "Search older memory with the claude-mem tools: mcp__plugin_claude-mem_memory__search (a compact index), " +
	"then mcp__plugin_claude-mem_memory__get_observations for the records you need."

// Render builds the additionalContext text (DESIGN.md §12): notices first, then the
// project's most recent observations newest first, then the latest summary and how to
// search older memory, within about 8,000 bytes. When the bound bites, the oldest
// observations go first and no line is ever cut.
func Render(c Context) string {
	head := slices.Clone(c.Notices)
	if c.Project == "" {
		return strings.Join(head, "\n")
	}
	if len(c.Observations) == 0 && c.Summary == nil {
		return strings.Join(append(head, "# claude-mem: "+oneLine(c.Project)+" — no memory yet"), "\n")
	}
	head = append(head, "# claude-mem: "+oneLine(c.Project))
	var tail []string
	if c.Summary != nil {
		tail = append(tail, summaryLines(c.Summary)...)
	}
	tail = append(tail, "", SearchHint)

	obs := slices.Clone(c.Observations)
	slices.SortStableFunc(obs, func(a, b store.Observation) int { // newest first
		return cmp.Or(b.At.Compare(a.At), cmp.Compare(b.ID, a.ID))
	})
	budget := maxContext - size(head) - size(tail) - len("\n## Recent observations (newest first)\n")
	var lines []string
	for _, o := range obs {
		l := observationLine(o)
		if budget -= len(l) + 1; budget < 0 {
			break
		}
		lines = append(lines, l)
	}
	out := head
	if len(lines) > 0 {
		out = append(append(out, "", "## Recent observations (newest first)"), lines...)
	}
	return strings.Join(append(out, tail...), "\n")
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

// observationLine is the compact form the model reads: "- #123 2026-11-30 [bugfix] Title".
func observationLine(o store.Observation) string {
	var b strings.Builder
	b.WriteString("- #")
	b.WriteString(strconv.FormatInt(o.ID, 10))
	if !o.At.IsZero() {
		b.WriteString(" " + o.At.Format("2006-01-02"))
	}
	if o.Type != "" {
		b.WriteString(" [" + oneLine(o.Type) + "]")
	}
	b.WriteString(" " + clip(cmp.Or(oneLine(o.Title), oneLine(o.Subtitle), "(untitled)"), maxTitle))
	return b.String()
}

func summaryLines(s *store.Summary) []string {
	title := "## Latest session summary"
	if !s.At.IsZero() {
		title += " (" + s.At.Format("2006-01-02") + ")"
	}
	lines := []string{"", title}
	for _, f := range []struct{ label, text string }{
		{"Request", s.Request},
		{"Investigated", s.Investigated},
		{"Learned", s.Learned},
		{"Completed", s.Completed},
		{"Next steps", s.NextSteps},
		{"Notes", s.Notes},
	} {
		if t := strings.TrimSpace(oneLine(f.text)); t != "" {
			lines = append(lines, "- "+f.label+": "+clip(t, maxField))
		}
	}
	return lines
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
