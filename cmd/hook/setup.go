package main

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/logfile"
	"github.com/claude-mem/claude-mem-go/settings"
)

// envState is what setup found: settings, the data dir's state and the log.
type envState struct {
	s          *settings.Settings
	dataDirErr error
	log        zerolog.Logger
	closeLog   io.Closer
}

// setup is a writer's start: it makes the data dir (settings.EnsureDataDir).
func setup(p *proc) *envState { return setupFor(p, true) }

// setupFor loads the settings and opens the log. A reader's (write false) makes no data dir
// (package memory's rule: a reader creates nothing): where none exists yet there is nothing
// to read, and nothing to log in. An existing one it checks as a writer's does.
func setupFor(p *proc, write bool) *envState {
	st := &envState{}
	st.s, st.dataDirErr = settings.Load(p.env, p.xdgDataHome, p.goos)
	_, statErr := os.Lstat(st.s.DataDir)
	use := write || !errors.Is(statErr, fs.ErrNotExist) // a writer's, or one that exists
	if st.dataDirErr == nil && use {
		st.dataDirErr = settings.EnsureDataDir(st.s.DataDir)
	}
	logDir := st.s.DataDir
	if st.dataDirErr != nil || !use {
		logDir = ""
	}
	st.log, st.closeLog = logfile.Open(logDir, st.s.LogLevel, p.pid, p.now)
	for _, e := range st.s.Errors {
		st.log.Warn().Str("key", e.Key).Str("problem", e.Problem).Str("using", e.Default).Msg("settings error")
	}
	for _, k := range st.s.DotEnvIgnored {
		st.log.Warn().Str("key", k).Msg(".env key not allowed; ignored")
	}
	return st
}
