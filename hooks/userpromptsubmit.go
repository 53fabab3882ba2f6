package hooks

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
)

// privateTag matches an opening or closing <private> tag, in any case.
var privateTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<(/?)private>`) })

// taskNotification matches one <task-notification> block: Claude Code's own message about a
// background agent, not the user's words.
var taskNotification = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<task-notification>.*?</task-notification>`)
})

// StripPrivate removes <private> spans from a prompt. Spans nest (the text after an inner
// </private> is still private), and an unclosed <private> hides the rest: privacy must not
// depend on the user closing a tag.
func StripPrivate(s string) string {
	var b strings.Builder
	depth, from := 0, 0
	for _, m := range privateTag().FindAllStringSubmatchIndex(s, -1) {
		closing := m[3] > m[2]
		switch {
		case !closing && depth == 0:
			b.WriteString(s[from:m[0]])
			depth = 1
		case !closing:
			depth++
		case depth > 0:
			if depth--; depth == 0 {
				from = m[1]
			}
		}
	}
	if depth == 0 {
		b.WriteString(s[from:])
	}
	return strings.TrimSpace(b.String())
}

// onlyTaskNotifications reports a prompt made of task-notification blocks and nothing else.
func onlyTaskNotifications(s string) bool {
	re := taskNotification()
	return re.MatchString(s) && strings.TrimSpace(re.ReplaceAllString(s, "")) == ""
}

func handleUserPromptSubmit(ctx context.Context, d *Deps, in Input) Result {
	p, ok := admit(d, in)
	if !ok {
		return Result{}
	}
	if onlyTaskNotifications(in.Prompt) {
		d.Log.Debug().Msg("task-notification prompt not stored")
		return Result{}
	}
	text := StripPrivate(in.Prompt)
	if text == "" {
		d.Log.Debug().Msg("empty prompt (after removing private spans) not stored")
		return Result{}
	}
	r := journal.Record{Kind: store.CapturePrompt, Text: text}
	d.redacted(&r, 0, asText(&r.Text))
	d.capture(in, p, r)
	return Result{}
}
