package main

import (
	"flag"
	"runtime/debug"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/mcpserver"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/selfcapture"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/sync/remote"
)

// mcpCommand is `hook mcp`: the memory tools over stdio (DESIGN.md §19), started by Claude
// Code from the plugin's .mcp.json; it serves until stdin closes.
var mcpCommand = &command{
	Name: "mcp", Internal: true,
	Summary: "the memory tools for the model, an MCP server on stdio (started by Claude Code from the plugin's .mcp.json)",
	Flags: func(*flag.FlagSet) action {
		return func(p *proc, ops []string) int {
			if len(ops) > 0 {
				return p.unexpected("mcp", ops)
			}
			return mcpCmd(p)
		}
	},
}

func mcpCmd(p *proc) int {
	if p.env.Get("GOGC") == "" {
		// Long-lived and mostly idle: a smaller heap matters more than a millisecond a call
		// (peak RSS over 1,000 calls on 100,000 observations: 24.1 MB at 100, 21.8 MB at 50).
		debug.SetGCPercent(50)
	}
	st := setupFor(p, false) // a reader; remember makes the data dir when it first writes
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	s := st.s
	home := settings.Home(p.env, p.goos)
	srv := mcpserver.New(mcpserver.Deps{
		Memory: memoryOf(p, st), Cwd: p.cwd,
		Project: project.Options{Home: home, GOOS: p.goos, Excluded: s.ExcludedProjects,
			Ours: selfcapture.Input{Env: p.env, Home: home, DataDir: s.DataDir, ExecutableDir: exeDir(p.exe)}},
		SessionID: p.env.Get(envname.SessionID),
		Now:       p.now, Loc: p.loc, Log: st.log, Version: version,
		Redact: redactNote(s), Self: remote.Role(s.SyncURL),
	})
	if err := srv.Serve(ctx, p.stdin, p.stdout); err != nil && ctx.Err() == nil {
		st.log.Error().Err(err).Msg("mcp: server stopped")
		return 1
	}
	return 0
}

// redactNote is what the remember tool stores of a note: redacted as captured text is
// (CLAUDE_MEM_REDACT_SECRETS), since a model may quote a secret it saw.
func redactNote(s *settings.Settings) func(string) string {
	if !s.RedactSecrets {
		return nil
	}
	return func(text string) string {
		out, _ := redact.Captured(text)
		return out
	}
}
