// Package mcpserver is `hook mcp`: a stdio MCP server that gives the model its memory as
// tools, compact first (DESIGN.md §19): search → timeline → get_observations, and
// remember to keep a note.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/store"
)

// Deps is everything the server uses, passed in by cmd/hook.
type Deps struct {
	// Memory is the data dir's memory: the tools read it through one long-lived reader,
	// which stores what waits in the capture journal before every read, so what was captured
	// a moment ago is found; remember writes through it.
	Memory memory.Memory
	// Cwd is the server's working directory: its project (project.Derive with Project) is
	// the tools' default project, and a refused or excluded cwd turns memory off.
	Cwd     string
	Project project.Options
	// SessionID is the Claude Code session the server runs in (CLAUDE_CODE_SESSION_ID);
	// notes are stored under it. Empty: under "model-notes-<project>".
	SessionID string
	Now       func() time.Time // the clock: since/until ages, a note's time
	Loc       *time.Location   // the user's zone: a date in since/until is its local midnight; nil is UTC
	Log       zerolog.Logger
	// Redact scrubs a note's title and text before it is stored. nil: stored as given.
	Redact  func(string) string
	Version string
	// Self is the server role this person syncs as ("" without sync): search's author
	// filter finds their own records by it (rank.AuthorFilter).
	Self string
}

// Server is the memory server: one per process.
type Server struct {
	d       Deps
	proj    project.Project
	projErr error
	mcp     *mcp.Server
	reader  *memory.Reader
}

// New builds the server and its tools. The project is derived once, from d.Cwd.
func New(d Deps) *Server {
	s := &Server{d: d, reader: d.Memory.Reader("mcp")}
	s.proj, s.projErr = project.Derive(d.Cwd, d.Project)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "claude-mem", Title: "claude-mem memory", Version: d.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       slog.New(logHandler{d.Log}),
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		})
	s.addTools()
	s.mcp.AddReceivingMiddleware(inertAnswers, s.guardCalls)
	return s
}

// Close releases the database handle.
func (s *Server) Close() { s.reader.Close() }

// Serve answers MCP over in/out (newline-delimited JSON-RPC) until in is closed or ctx is
// done. Nothing but protocol is written to out.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	defer s.Close()
	if s.projErr != nil {
		s.d.Log.Info().Str("cwd", s.d.Cwd).Str("reason", s.projErr.Error()).Msg("mcp: memory is off in this directory")
	} else {
		s.d.Log.Info().Str("cwd", s.d.Cwd).Str("project", s.proj.Name).Str("session", s.d.SessionID).Msg("mcp: serving memory tools")
	}
	w := newWire(out)
	stopped := make(chan struct{})
	defer close(stopped) // the screen waits for no answer once the server is gone
	frames := screen(in, w, stopped, s.d.Log)
	defer frames.Close() // the screen stops once the server stops reading
	// The screen bounds a frame; the SDK's own bound counts what its decoder reads ahead
	// too, so it is set wide enough never to end the connection on a frame the screen
	// passed.
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: frames, Writer: w, MaxLineLength: 4 * MaxFrame})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	return err
}

// read runs fn on the database, read as memory.Reader reads it (what waits in the capture
// journal stored first). errNoMemory: nothing stored yet.
func (s *Server) read(ctx context.Context, fn func(*store.DB) error) error {
	db, _, err := s.reader.Read(ctx)
	if errors.Is(err, store.ErrNoDatabase) {
		return errNoMemory
	}
	if err != nil {
		s.d.Log.Error().Err(err).Msg("mcp: database unavailable")
		return fmt.Errorf("memory unavailable: %v (details: claude-mem doctor)", err)
	}
	if err := fn(db); err != nil {
		s.reader.Drop(err)
		return err
	}
	return nil
}

var errNoMemory = errors.New("no memory stored yet")

// guardCalls answers a call of a tool that does not exist with a tool error the model
// can read (the SDK's answer is a JSON-RPC error), and turns a handler's panic into one.
func (s *Server) guardCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if ctr, ok := req.(*mcp.CallToolRequest); ok && ctr.Params != nil && !isTool(ctr.Params.Name) {
			return toolError(fmt.Sprintf("unknown tool %q; the memory tools are search, timeline, get_observations and remember", ctr.Params.Name)), nil
		}
		defer func() {
			if r := recover(); r != nil {
				s.d.Log.Error().Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).Msg("mcp: tool panicked")
				res, err = toolError("internal error in claude-mem's memory tool; it was logged (details: claude-mem doctor)"), nil
			}
		}()
		return next(ctx, method, req)
	}
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// logHandler sends the SDK's log records at WARN and above to the hook log.
type logHandler struct{ log zerolog.Logger }

func (h logHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h logHandler) Handle(_ context.Context, r slog.Record) error {
	ev := h.log.Warn()
	switch {
	case normalEnd(r):
		// Claude Code ends every session by closing stdin or by a signal: no problem to log.
		ev = h.log.Info()
	case r.Level >= slog.LevelError:
		ev = h.log.Error()
	}
	r.Attrs(func(a slog.Attr) bool {
		ev = ev.Str(a.Key, a.Value.String())
		return true
	})
	ev.Msg("mcp sdk: " + r.Message)
	return nil
}

// normalEnd reports a record of the session's normal end: its error is the run's context
// cancelled (a signal) or the connection closed (stdin at EOF).
func normalEnd(r slog.Record) bool {
	normal := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "error" {
			normal = errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)
		}
		return true
	})
	return normal
}

func (h logHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h logHandler) WithGroup(string) slog.Handler      { return h }
