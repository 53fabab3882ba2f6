package hooks

import (
	"context"
	"slices"

	"github.com/claude-mem/claude-mem-go/journal"
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
	r := journal.Record{
		Kind: store.CaptureEvent, Hook: in.Event, Tool: in.ToolName, ToolUseID: in.ToolUseID,
		Input: in.ToolInput, Response: in.ToolResponse, IsError: in.IsError,
	}
	resp := asJSON(&r.Response)
	if in.IsError { // PostToolUseFailure: the error's text
		resp = asText(&r.Response)
	}
	d.redacted(&r, MaxField, asJSON(&r.Input), resp)
	d.capture(in, p, r)
	return Result{}
}
