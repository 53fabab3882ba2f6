package hooks

import (
	"context"
	"regexp"
	"strings"

	"github.com/claude-mem/claude-mem-go/store"
)

// privateSpan matches <private>…</private>; an unclosed <private> hides the rest, since
// privacy must not depend on the user closing a tag.
var privateSpan = regexp.MustCompile(`(?is)<private>.*?(</private>|\z)`)

// taskNotification matches a prompt that is one <task-notification> block and nothing else:
// Claude Code's own message about a background agent, not the user's words.
var taskNotification = regexp.MustCompile(`(?s)\A\s*<task-notification>.*</task-notification>\s*\z`)

// StripPrivate removes <private> spans from a prompt.
func StripPrivate(s string) string { return strings.TrimSpace(privateSpan.ReplaceAllString(s, "")) }

func handleUserPromptSubmit(ctx context.Context, d *Deps, in Input) Result {
	p, ok := admit(d, in)
	if !ok {
		return Result{}
	}
	if taskNotification.MatchString(in.Prompt) {
		d.Log.Debug().Msg("task-notification prompt not stored")
		return Result{}
	}
	text := StripPrivate(in.Prompt)
	if text == "" {
		d.Log.Debug().Msg("empty prompt (after removing private spans) not stored")
		return Result{}
	}
	_ = withStore(d, in.Event, func(db *store.DB) error {
		return db.RecordPrompt(ctx, d.session(in, p), store.Prompt{SessionID: in.SessionID, Project: p.Name, Text: text, At: d.Now()})
	})
	return Result{}
}
