package sync

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/sync/remote"
	schema "github.com/claude-mem/claude-mem-go/sync/server"
)

// Foreground is `claude-mem sync`: a push then a pull, unbounded in time, waiting for a
// detached run to finish first. On a terminal (progress non-nil) a line is rewritten after
// each batch and cleared at the end; out gets one closing line of what was done.
func Foreground(ctx context.Context, deps Deps, out, progress io.Writer) error {
	var show func(Progress)
	drawn := false
	if progress != nil {
		show = func(p Progress) {
			drawn = true
			fmt.Fprintf(progress, "\r\x1b[K%s", ProgressLine(p))
		}
	}
	res, err := Once(ctx, deps, Both, 0, show)
	if drawn {
		fmt.Fprint(progress, "\r\x1b[K")
	}
	if err != nil {
		return err
	}
	line := ProgressLine(res.Progress)
	if !res.Finished {
		// A push still running on the server held the pull back: say so, or the person
		// takes what arrived for all there is.
		line += "; more waits on the server: run `claude-mem sync` again in a moment"
	}
	fmt.Fprintln(out, line)
	return nil
}

// Message is a failed run's one line for a person: the error, scrubbed, and its fix when
// its kind is known.
func Message(err error) string {
	msg := oneLine(redact.Scrub(err.Error()))
	if f, ok := IsFailure(err); ok && f != Failed {
		msg += "; fix: " + f.Fix()
	}
	return msg
}

// WriteTeams lists teams for a person. Names come from the server: shown escaped.
func WriteTeams(w io.Writer, teams []remote.Team) {
	if len(teams) == 0 {
		fmt.Fprintln(w, "no team: `claude-mem team create NAME` (as a claude_mem_admin role) makes one")
		return
	}
	esc := func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = printable.Text(s)
		}
		return strings.Join(out, ", ")
	}
	for i, t := range teams {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  members  %s\n", printable.Text(t.Name), or(esc(t.Members), "none"))
		if len(t.Shares) == 0 {
			fmt.Fprintln(w, "  shared   nothing yet")
		}
		for j, s := range t.Shares {
			lead := "         "
			if j == 0 {
				lead = "  shared "
			}
			fmt.Fprintf(w, "%s %s (by %s)\n", lead, printable.Text(s.Project), printable.Text(s.Owner))
		}
	}
}

// Installed is sync init's line: what it found on the server (shown without password) and what it did.
func Installed(shown string, done schema.Installed) string {
	line := fmt.Sprintf("sync init: %s has the schema of this build", shown)
	switch {
	case done.From == 0:
		line += " (installed)"
	case done.From < schema.Version:
		line += fmt.Sprintf(" (upgraded from version %d)", done.From)
	}
	if done.Renumbered > 0 {
		line += fmt.Sprintf("; %d restored records renumbered", done.Renumbered)
	}
	return line
}
