package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/claude-mem/claude-mem-go/reading"
	"github.com/claude-mem/claude-mem-go/store"
)

// memoryCmd is what forget, export and import start with: settings and the log, a context
// a signal cancels, and the database.
type memoryCmd struct {
	st  *envState
	ctx context.Context
	db  *store.DB
}

// openMemory starts a memory command named cmd: it ingests the capture journal first (so
// the command sees what was captured a moment ago), then opens the database (read-only
// when readOnly, unless nothing was captured yet). It reports on stderr why the data dir
// or the database cannot be used and returns false: for a readOnly command also when
// records wait in the journal that the database would not take. close releases what it
// opened.
func openMemory(p *proc, cmd string, readOnly bool) (m memoryCmd, close func(), ok bool) {
	m.st = setup(p)
	ctx, stop := signalContext()
	m.ctx = ctx
	close = func() {
		if m.db != nil {
			m.db.Close()
		}
		stop()
		m.st.closeLog.Close()
	}
	err := m.st.dataDirErr
	if err == nil && readOnly {
		var unstored *reading.UnstoredError
		m.db, unstored, err = memoryOf(p, m.st).OpenAll(ctx, cmd)
		if unstored != nil {
			// What the command writes out (export's file) would lack them, as if complete.
			fmt.Fprintf(p.stderr, "%s %s: %v; nothing written: run it again once the database is free\n", p.prog(), cmd, unstored)
			return m, close, false
		}
	} else if err == nil {
		if ierr := memoryOf(p, m.st).Ingest(ctx); ierr != nil {
			m.st.log.Warn().Err(ierr).Str("command", cmd).Msg("ingesting the capture journal failed; reading without what it holds")
		}
	}
	if err == nil && m.db == nil || errors.Is(err, store.ErrNoDatabase) {
		m.db, err = store.Open(dbPath(m.st.s))
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s %s: %v\n", p.prog(), cmd, err)
		return m, close, false
	}
	return m, close, true
}

// memoryOf is the data dir's memory as every reader reaches it (package reading).
func memoryOf(p *proc, st *envState) reading.Memory {
	return reading.Memory{Journal: journalOf(p, st.s), IngestInto: ingestNoted(p, st), DBPath: dbPath(st.s), Log: st.log}
}

// journalDirs are the dirs a session's pending journal can be in.
func journalDirs(p *proc, st *envState) []string { return journalOf(p, st.s).Dirs() }
