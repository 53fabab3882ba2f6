// Package forget decides what `hook forget` and the viewer's forget page remove: the
// selected memory, the sessions it leaves empty and their pending capture journals, and the
// transcripts of the observer runs that read or wrote it, shown before it goes (DESIGN §20).
package forget

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// MaxTitles is how many titles a Plan lists.
const MaxTitles = 20

// ErrEmptySelector: a selector with no field would select everything; forgetting all
// memory must be asked for by some field (a project, a time).
var ErrEmptySelector = errors.New("forget: nothing selected: give record ids, a session, a project or a time")

// Selector says what to forget. Fields combined intersect.
type Selector struct {
	Refs    []vocab.Ref // records: observations, summaries, prompts (recordid reads them)
	Session string
	Project string
	Before  time.Time // zero: no bound
}

// Empty reports whether the selector has no field (and so selects nothing).
func (sel Selector) Empty() bool { return sel.scope().Empty() }

// Plan is what goes (Preview) or went (Apply).
type Plan struct {
	Observations, Summaries, Prompts, Answers, Events, Journals int
	Sessions                                                    int         // sessions left with nothing, removed
	Transcripts                                                 int         // observer run dirs (transcript, stderr) that held the removed text
	Titles                                                      []string    // titles of observations (and summary requests) that go, at most MaxTitles
	More                                                        int         // titles not listed
	Missing                                                     []vocab.Ref // refs asked for that name no record (reported, not an error)
}

// Empty reports whether the plan removes nothing.
func (p Plan) Empty() bool {
	return p.Observations+p.Summaries+p.Prompts+p.Answers+p.Events+p.Journals+p.Sessions+p.Transcripts == 0
}

// Preview reports what Apply would remove, removing nothing. Journals counts the pending
// journal files, in journalDirs, of the sessions that would be removed.
func Preview(ctx context.Context, db *store.DB, journalDirs []string, sel Selector) (Plan, error) {
	if sel.Empty() {
		return Plan{}, ErrEmptySelector
	}
	f, err := db.ForgetPreview(ctx, sel.scope(), MaxTitles)
	if err != nil {
		return Plan{}, err
	}
	p := plan(f)
	for _, path := range files(db, journalDirs, f) {
		if _, err := os.Lstat(path.name); err == nil {
			path.count(&p)
		}
	}
	return p, nil
}

// Apply removes what Preview shows, in one transaction, with the pending journals of the
// sessions it removes and the run dirs of the runs that saw the removed text. The files go
// before the transaction commits, so a crash between the two can never let a journal bring
// a forgotten session back (a failed commit leaves the rows, to be forgotten again).
// vacuum then rewrites the database so the deleted text is in no free page, full-text
// segment or WAL frame.
func Apply(ctx context.Context, db *store.DB, journalDirs []string, sel Selector, vacuum bool) (Plan, error) {
	if sel.Empty() {
		return Plan{}, ErrEmptySelector
	}
	var removed Plan
	f, err := db.Forget(ctx, sel.scope(), MaxTitles, func(f store.Forgotten) error {
		for _, path := range files(db, journalDirs, f) {
			if _, err := os.Lstat(path.name); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err := os.RemoveAll(path.name); err != nil {
				return fmt.Errorf("forget: %w", err)
			}
			path.count(&removed)
		}
		return nil
	})
	if err != nil {
		return Plan{}, err
	}
	p := plan(f)
	p.Journals, p.Transcripts = removed.Journals, removed.Transcripts
	if vacuum {
		if err := db.Vacuum(ctx); err != nil {
			return p, err
		}
	}
	return p, nil
}

// scope is the selector as the store reads it; a project of "*" is every project, as in
// every command that takes one (project.All).
func (sel Selector) scope() store.ForgetScope {
	s := store.ForgetScope{Refs: sel.Refs, Session: sel.Session, Project: project.Filter(sel.Project), Before: sel.Before}
	s.AllProjects = sel.Project != "" && s.Project == ""
	return s
}

func plan(f store.Forgotten) Plan {
	return Plan{
		Observations: f.Observations, Summaries: f.Summaries, Prompts: f.Prompts, Answers: f.Answers, Events: f.Events,
		Sessions: len(f.Sessions), Titles: f.Titles, More: f.Titled - len(f.Titles), Missing: f.Missing,
	}
}

// file is a journal or a run dir that goes with forgotten rows.
type file struct {
	name       string
	transcript bool
}

func (f file) count(p *Plan) {
	if f.transcript {
		p.Transcripts++
	} else {
		p.Journals++
	}
}

// files are the pending journals of the removed sessions and the run dirs of the runs that
// read or wrote a removed row: <data>/observer-sessions beside the database.
func files(db *store.DB, journalDirs []string, f store.Forgotten) []file {
	var out []file
	for _, s := range f.Sessions {
		for _, path := range journal.SessionFiles(journalDirs, s) {
			out = append(out, file{path, false})
		}
	}
	runs := settings.Layout(filepath.Dir(db.Path())).Runs()
	for _, id := range f.Runs {
		if dir, ok := spawn.RunDir(runs, id); ok {
			out = append(out, file{dir, true})
		}
	}
	return out
}
