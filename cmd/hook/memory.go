package main

import (
	"context"
	"fmt"

	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
)

// memoryCmd is what forget, export and import start with: settings and the log, a context
// a signal cancels, and the database (nil for a reader of an empty memory).
type memoryCmd struct {
	st  *envState
	ctx context.Context
	db  *store.DB
}

// openMemory starts a memory command named cmd: a reader (readOnly) through
// memory.ReadAny, which makes nothing, a writer through memory.Write, which makes the database when
// missing; both ingest the capture journal first. It reports on stderr why the data dir or
// the database cannot be used and returns false: for a reader also when records wait in
// the journal that the database would not take. close releases what it opened.
func openMemory(p *proc, cmd string, readOnly bool) (m memoryCmd, close func(), ok bool) {
	m.st = setupFor(p, !readOnly)
	ctx, stop := signalContext()
	m.ctx = ctx
	close = func() {
		if m.db != nil {
			m.db.Close()
		}
		stop()
		m.st.closeLog.Close()
	}
	mem := memoryOf(p, m.st)
	var err error
	if readOnly {
		var unstored *memory.UnstoredError
		m.db, unstored, err = mem.ReadAny(ctx, cmd) // nil: an empty memory
		if unstored != nil {
			// What the command writes out (export's file) would lack them, as if complete.
			fmt.Fprintf(p.stderr, "%s %s: %v; nothing written: run it again once the database is free\n", p.prog(), cmd, unstored)
			return m, close, false
		}
	} else {
		m.db, err = mem.Write(ctx, cmd)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s %s: %v\n", p.prog(), cmd, err)
		return m, close, false
	}
	return m, close, true
}

// memoryOf is the data dir's memory as every reader and writer reaches it (package memory).
func memoryOf(p *proc, st *envState) memory.Memory {
	return memory.Memory{DataDir: st.s.DataDir, DataDirErr: st.dataDirErr, Journal: journalOf(p, st.s), IngestInto: ingestNoted(p, st), Log: st.log}
}

// journalDirs are the dirs a session's pending journal can be in.
func journalDirs(p *proc, st *envState) []string { return journalOf(p, st.s).Dirs() }

// ingestNoted stores what waits in the capture journal and records how that ended in
// health.json: every hook and command that ingests runs this.
func ingestNoted(p *proc, st *envState) func(context.Context, *store.DB) error {
	return func(ctx context.Context, db *store.DB) error {
		err := journalOf(p, st.s).IngestNoted(ctx, db, st.log)
		if uerr := health.RecordIngest(st.s.DataDir, p.now(), err); uerr != nil {
			st.log.Warn().Err(uerr).Msg("recording the journal's ingestion in health.json failed")
		}
		return err
	}
}

// journalOf is the capture journal of the data dir, with its fallback dirs.
func journalOf(p *proc, s *settings.Settings) *journal.Journal {
	return journal.New(s.DataDir, p.xdgRuntimeDir, p.xdgCacheHome, p.tempDir, p.uid, p.now)
}
