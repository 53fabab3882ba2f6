package hooks

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/store"
)

// taskNotification matches one <task-notification> block: Claude Code's own message about a
// background agent, not the user's words.
var taskNotification = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<task-notification>.*?</task-notification>`)
})

// maxTagSpace bounds the whitespace between a private tag's parts (`< / private >`), so a
// tag is found by looking back a bounded way from its `>`: the removal stays linear.
const maxTagSpace = 16

// StripPrivate removes <private> spans from a prompt or an answer. A tag is `<private>` or
// `</private>` in any case, with whitespace (newlines too) around its parts: `<private >`,
// `< private\n>`, `</PRIVATE >`. Spans nest (the text after an inner </private> is still
// private), an unclosed <private> hides the rest (privacy must not depend on the user
// closing a tag), and a stray </private> is dropped. What is left holds no tag, not even one
// that removing a span joined (`<priv<private>x</private>ate>` opens a span): every tag
// ends at a `>`, and the kept text is checked for one at each `>` it takes, in one pass.
func StripPrivate(s string) string {
	var out []byte // nil while nothing was removed: the kept text is then s[:i+1]
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if depth > 0 {
			if c == '>' {
				if _, closing, ok := tagBefore(s[:i+1]); ok && closing {
					depth--
				} else if ok {
					depth++
				}
			}
			continue
		}
		if out != nil {
			out = append(out, c)
		}
		if c != '>' {
			continue
		}
		var start int
		var closing, ok bool
		if out != nil {
			start, closing, ok = tagBefore(out)
		} else {
			start, closing, ok = tagBefore(s[:i+1])
		}
		if !ok {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(s))
			out = append(out, s[:start]...)
		} else {
			out = out[:start]
		}
		if !closing {
			depth = 1
		}
	}
	if out == nil {
		return strings.TrimSpace(s) // no tag: no copy of a large prompt
	}
	return strings.TrimSpace(string(out))
}

// tagBefore reports whether b ends with a private tag, where it starts, and whether it is
// a closing one.
func tagBefore[T string | []byte](b T) (start int, closing, ok bool) {
	i := len(b) - 1
	if i < 0 || b[i] != '>' {
		return 0, false, false
	}
	space := func() bool {
		n := 0
		for i > 0 && n <= maxTagSpace && isSpace(b[i-1]) {
			i--
			n++
		}
		return n <= maxTagSpace
	}
	if !space() {
		return 0, false, false
	}
	const name = "private"
	if i < len(name) {
		return 0, false, false
	}
	for k := len(name) - 1; k >= 0; k-- {
		if i--; b[i]|0x20 != name[k] {
			return 0, false, false
		}
	}
	if !space() {
		return 0, false, false
	}
	if i > 0 && b[i-1] == '/' {
		closing = true
		i--
		if !space() {
			return 0, false, false
		}
	}
	if i == 0 || b[i-1] != '<' {
		return 0, false, false
	}
	return i - 1, closing, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
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
