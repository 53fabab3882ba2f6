package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/lockfile"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
)

// runLockFile is spawn.RunLockFile (spawn imports store): a run dir whose lock is
// held belongs to a live run, whose files are being written.
const runLockFile = "run.lock"

// redactedTable is a table whose stored text the redaction migration reads again.
type redactedTable struct {
	name string
	text []string // columns of plain text
	json []string // columns holding a JSON document
}

var redactedTables = []redactedTable{
	{name: "prompts", text: []string{"text"}},
	{name: "events", json: []string{"input", "response"}},
	{name: "observations", text: []string{"title", "subtitle", "narrative"},
		json: []string{"facts", "concepts", "files_read", "files_modified"}},
	{name: "summaries", text: []string{"request", "investigated", "learned", "completed", "next_steps", "notes"}},
}

// redactionKey is a row of the redactions table.
type redactionKey struct{ day, project, kind string }

// redactStored is the migration that redacts memory stored before the redactor read text
// as it reads (issue 21): every prompt, event, observation and summary goes through the
// capture rules again, and a row that changes is updated (its FTS row with it, by the
// triggers). What it finds is counted twice: in redactions, on the UTC day of the row's
// capture time and under its project (the store has no local zone; hook stats counts them
// with the day's captures), and in stored_redactions, per kind, which doctor reports.
// The observer's run files are scrubbed by the same rules. The framework vacuums after the
// commit (the step is heavy), so the replaced text is not left in free pages.
func redactStored(ctx context.Context, tx *sql.Tx, dataDir string) error {
	if _, err := tx.ExecContext(ctx, `
-- Secrets found in memory stored before a change of the redactor, per kind: what a
-- redaction migration replaced (in the database and the observer's run files).
CREATE TABLE IF NOT EXISTS stored_redactions (
	kind  TEXT PRIMARY KEY,
	count INTEGER NOT NULL
) STRICT`); err != nil {
		return err
	}
	found := map[redactionKey]int{}
	for _, t := range redactedTables {
		if err := redactTable(ctx, tx, t, found); err != nil {
			return fmt.Errorf("redacting %s: %w", t.name, err)
		}
	}
	total, err := scrubRunFiles(settings.Layout(dataDir).Runs())
	if err != nil {
		return fmt.Errorf("scrubbing the observer's run files: %w", err)
	}
	for k, n := range found {
		total.Add(redact.Counts{k.kind: n})
		if _, err := tx.ExecContext(ctx, sqlAddRedactions, k.day, k.project, k.kind, n); err != nil {
			return err
		}
	}
	for kind, n := range total {
		if _, err := tx.ExecContext(ctx, `
INSERT INTO stored_redactions (kind, count) VALUES (?, ?)
ON CONFLICT (kind) DO UPDATE SET count = count + excluded.count`, kind, n); err != nil {
			return err
		}
	}
	return nil
}

// redactTable redacts t's rows, adding what it found to found. Rows are read whole first
// and the few that change updated after, so no update runs under an open cursor.
func redactTable(ctx context.Context, tx *sql.Tx, t redactedTable, found map[redactionKey]int) error {
	cols := append(append([]string{}, t.text...), t.json...)
	rows, err := tx.QueryContext(ctx, fmt.Sprintf("SELECT id, project, at, %s FROM %s", strings.Join(cols, ", "), t.name))
	if err != nil {
		return err
	}
	type change struct {
		id   int64
		vals []any
	}
	var changes []change
	err = scanAll(rows, func(r *sql.Rows) error {
		var id, at int64
		var project string
		vals := make([]string, len(cols))
		dest := []any{&id, &project, &at}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		var c redact.Counts
		for i := range vals {
			var n redact.Counts
			if i < len(t.text) {
				vals[i], n = redact.Captured(vals[i])
			} else {
				vals[i], n = redact.CapturedJSON(vals[i])
			}
			c.Add(n)
		}
		if c == nil {
			return nil
		}
		day := time.Unix(0, at).UTC().Format(time.DateOnly)
		for kind, n := range c {
			found[redactionKey{day, project, kind}] += n
		}
		ch := change{id: id}
		for _, v := range vals {
			ch.vals = append(ch.vals, v)
		}
		changes = append(changes, ch)
		return nil
	})
	if err != nil || len(changes) == 0 {
		return err
	}
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = ?"
	}
	upd, err := tx.PrepareContext(ctx, fmt.Sprintf("UPDATE %s SET %s WHERE id = ?", t.name, strings.Join(set, ", ")))
	if err != nil {
		return err
	}
	defer upd.Close()
	for _, ch := range changes {
		if _, err := upd.ExecContext(ctx, append(ch.vals, ch.id)...); err != nil {
			return err
		}
	}
	// The triggers replaced the FTS rows; the old terms stay in the index until the
	// clean-up after the commit merges it (Vacuum).
	return nil
}

// scrubRunFiles rewrites, by the capture rules, every file of the observer's run dirs
// under sessionsDir (transcript, stderr, settings) that holds a secret, skipping the dirs
// of live runs. A missing dir is nothing to do.
func scrubRunFiles(sessionsDir string) (redact.Counts, error) {
	runs, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var total redact.Counts
	var errs []error
	for _, run := range runs {
		dir := filepath.Join(sessionsDir, run.Name())
		if !run.IsDir() {
			continue
		}
		if busy, err := lockfile.Busy(filepath.Join(dir, runLockFile)); busy || err != nil {
			continue
		}
		files, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			if !f.Type().IsRegular() || f.Name() == runLockFile {
				continue
			}
			c, err := scrubFile(filepath.Join(dir, f.Name()))
			if err != nil {
				errs = append(errs, err)
			}
			total.Add(c)
		}
	}
	return total, errors.Join(errs...)
}

// scrubFile rewrites path (replaced whole, by a rename, 0600) when the capture rules find
// a secret in it.
func scrubFile(path string) (redact.Counts, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, c := scrubRunText(b)
	if c == nil {
		return nil, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".scrub-*")
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return c, nil
}

// scrubRunText redacts a run file: JSON lines (the transcript) each by its strings, a line
// that is not JSON (a clipped one) as text; any other file whole (a JSON document by its
// strings, stderr as text, so a PEM block across lines is seen).
func scrubRunText(b []byte) (string, redact.Counts) {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if json.Valid(b) || !slices.ContainsFunc(lines, func(l []byte) bool { return json.Valid(bytes.TrimRight(l, "\r\n")) }) {
		return redact.CapturedJSON(string(b))
	}
	var out strings.Builder
	var total redact.Counts
	for _, l := range lines {
		body := bytes.TrimRight(l, "\r\n")
		s, c := redact.CapturedJSON(string(body))
		out.WriteString(s)
		out.Write(l[len(body):])
		total.Add(c)
	}
	return out.String(), total
}
