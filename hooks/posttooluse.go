package hooks

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/store"
)

// MaxField is the longest tool input or response stored whole; a longer one keeps its head
// and tail around a marker.
const MaxField = 16 << 10

// Shorten keeps the head and tail of s around a marker when s is longer than max bytes,
// cutting only at UTF-8 boundaries.
func Shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	half := max / 2
	head, tail := half, len(s)-half
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("\n…[claude-mem: %d bytes omitted]…\n", tail-head) + s[tail:]
}

func handlePostToolUse(ctx context.Context, d *Deps, in Input) Result {
	if slices.Contains(d.Settings.SkipTools, in.ToolName) {
		d.Log.Debug().Str("tool", in.ToolName).Msg("tool in CLAUDE_MEM_SKIP_TOOLS not stored")
		return Result{}
	}
	p, ok := admit(d, in)
	if !ok {
		return Result{}
	}
	_ = withStore(d, in.Event, func(db *store.DB) error {
		return db.RecordEvent(ctx, d.session(in, p), store.Event{
			SessionID: in.SessionID, Project: p.Name, Hook: in.Event,
			ToolName: in.ToolName, ToolUseID: in.ToolUseID,
			Input: Shorten(in.ToolInput, MaxField), Response: Shorten(in.ToolResponse, MaxField),
			IsError: in.IsError, Cwd: in.Cwd, At: d.Now(), State: store.StatePending,
		})
	})
	return Result{}
}
