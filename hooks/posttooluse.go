package hooks

import (
	"context"
	"slices"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/store"
)

// MaxField is the longest tool input or response stored whole; a longer one keeps its head
// and tail around a marker.
const MaxField = 16 << 10

func handlePostToolUse(ctx context.Context, d *Deps, in Input) Result {
	if slices.Contains(d.Settings.SkipTools, in.ToolName) {
		d.Log.Debug().Str("tool", in.ToolName).Msg("tool in CLAUDE_MEM_SKIP_TOOLS not stored")
		return Result{}
	}
	if d.Settings.SkipSubagents && in.AgentID != "" {
		d.Log.Debug().Str("tool", in.ToolName).Msg("tool event inside a subagent not stored (CLAUDE_MEM_SKIP_SUBAGENTS)")
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
			Input: clip.HeadTail(in.ToolInput, MaxField), Response: clip.HeadTail(in.ToolResponse, MaxField),
			IsError: in.IsError, Cwd: in.Cwd, At: d.Now(), State: store.StatePending,
		})
	})
	return Result{}
}
