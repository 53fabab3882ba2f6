package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// Usage is what one observer run cost, from the stream-json result line (§17).
type Usage struct {
	InputTokens, OutputTokens, CacheCreationTokens, CacheReadTokens int64
	CostUSD                                                         float64
	DurationMS, DurationAPIMS                                       int64
}

// Add sums u and v (a day's or a report's totals).
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CacheCreationTokens: u.CacheCreationTokens + v.CacheCreationTokens, CacheReadTokens: u.CacheReadTokens + v.CacheReadTokens,
		CostUSD: u.CostUSD + v.CostUSD, DurationMS: u.DurationMS + v.DurationMS, DurationAPIMS: u.DurationAPIMS + v.DurationAPIMS,
	}
}

// RunRecord is one observer run as stored in runs: what it was given, what it wrote, what it
// skipped as duplicates, and what it cost (zero when no result line came).
type RunRecord struct {
	ID, SessionID, Project, Model    string
	Outcome                          vocab.Outcome
	StartedAt, EndedAt               time.Time
	Events, Observations, Duplicates int
	Usage
	// Answer is the verdict on the run's answer ("" when the run gave none: a failed run);
	// Reasons why it was salvaged or unusable; Dropped the blocks of it that were not kept.
	// Requeued: its events went back to pending, answer or not (a later run completes them).
	Answer   vocab.Verdict
	Reasons  []string
	Dropped  int
	Requeued bool
}

// DuplicateWindow is how far back an observation of the project with the same type and
// title key (TitleKey) makes a new one a duplicate that is counted, not stored (§24).
const DuplicateWindow = 7 * 24 * time.Hour

const (
	sqlRecordRun = `
INSERT INTO runs (id, session_id, project, model, outcome, started_at, ended_at, events,
	observations, duplicates, input_tokens, output_tokens, cache_creation_tokens,
	cache_read_tokens, cost_usd, duration_ms, duration_api_ms, answer, answer_reasons, answer_dropped, requeued)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlCostBetween = `SELECT coalesce(sum(cost_usd), 0) FROM runs WHERE started_at >= ? AND started_at < ?`
	sqlRunsBetween = `
SELECT project, started_at, outcome, events, observations, duplicates, input_tokens,
	output_tokens, cache_creation_tokens, cache_read_tokens, cost_usd, duration_ms, duration_api_ms,
	answer, answer_reasons, requeued
FROM runs WHERE started_at >= ?1 AND started_at < ?2 AND (?3 = '' OR project = ?3)`
	sqlRedactionsBetween = `
SELECT day, project, sum(count) FROM redactions
WHERE day >= ?1 AND day < ?2 AND (?3 = '' OR project = ?3) GROUP BY day, project`
	sqlPendingOf = `SELECT count(*), min(at) FROM events WHERE state = 'pending' AND session_id = ?`
	sqlSameType  = `SELECT title FROM observations WHERE project = ? AND at >= ? AND type = ?`
)

// RecordRun stores one observer run. A run id is recorded once: a second record of the same
// id is an error (its cost would count twice).
func (db *DB) RecordRun(ctx context.Context, r RunRecord) error {
	if r.ID == "" || r.StartedAt.IsZero() || r.Outcome == "" {
		return db.fail("record run", fmt.Errorf("run %q outcome %q started %v: %w", r.ID, r.Outcome, r.StartedAt, ErrInvalidArgument))
	}
	ended := r.EndedAt
	if ended.IsZero() {
		ended = r.StartedAt
	}
	return db.fail("record run", db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, sqlRecordRun, r.ID, r.SessionID, r.Project, r.Model, r.Outcome,
			r.StartedAt.UnixNano(), ended.UnixNano(), r.Events, r.Observations, r.Duplicates,
			r.InputTokens, r.OutputTokens, r.CacheCreationTokens, r.CacheReadTokens, r.CostUSD,
			r.DurationMS, r.DurationAPIMS, string(r.Answer), strings.Join(r.Reasons, " "), r.Dropped, r.Requeued)
		return err
	}))
}

// CostBetween is the recorded cost of the runs started in [from, to): the budget's "today".
// One indexed range read, so Stop can afford it.
func (db *DB) CostBetween(ctx context.Context, from, to time.Time) (float64, error) {
	var c float64
	err := db.sql.QueryRowContext(ctx, sqlCostBetween, from.UnixNano(), to.UnixNano()).Scan(&c)
	return c, db.fail("cost between", err)
}

// DayStats is one local day's observer activity for one project.
type DayStats struct {
	Day     string // local date YYYY-MM-DD
	Project string
	// Runs counts every run; Events are the events of the runs that succeeded and kept
	// them (a failed run's events, or those an answer gave back, come back in a later run
	// and are counted then).
	Runs, Events, Observations, Duplicates, Redactions int
	// Unrecorded counts the runs of vocab.OutcomeUnrecorded: their cost is not in Usage.
	Unrecorded int
	Usage
	// Answers counts the runs' answers per verdict; Reasons counts, per verdict, the
	// answers that gave each reason (an answer may give several).
	Answers map[vocab.Verdict]int
	Reasons map[vocab.Verdict]map[string]int
}

// DailyStats returns one row per local day and project in [from, to) that had a run or a
// redaction, days taken in loc, newest day first, projects by name within a day. project ""
// means all projects.
func (db *DB) DailyStats(ctx context.Context, from, to time.Time, loc *time.Location, project string) ([]DayStats, error) {
	type key struct{ day, project string }
	rows := map[key]*DayStats{}
	get := func(day, project string) *DayStats {
		k := key{day, project}
		if rows[k] == nil {
			rows[k] = &DayStats{Day: day, Project: project}
		}
		return rows[k]
	}
	rs, err := db.sql.QueryContext(ctx, sqlRunsBetween, from.UnixNano(), to.UnixNano(), project)
	if err != nil {
		return nil, db.fail("daily stats", err)
	}
	err = scanAll(rs, func(r *sql.Rows) error {
		var (
			proj, answer, reasons            string
			outcome                          vocab.Outcome
			started                          int64
			events, observations, duplicates int
			requeued                         bool
			u                                Usage
		)
		if err := r.Scan(&proj, &started, &outcome, &events, &observations, &duplicates, &u.InputTokens,
			&u.OutputTokens, &u.CacheCreationTokens, &u.CacheReadTokens, &u.CostUSD, &u.DurationMS, &u.DurationAPIMS,
			&answer, &reasons, &requeued); err != nil {
			return err
		}
		d := get(when.Show(time.Unix(0, started), loc, when.Date), proj)
		d.Runs++
		if outcome == vocab.OutcomeUnrecorded {
			d.Unrecorded++
		}
		if outcome == vocab.OutcomeOK && !requeued {
			d.Events += events
		}
		d.Observations += observations
		d.Duplicates += duplicates
		d.Usage = d.Usage.Add(u)
		if answer != "" {
			d.addAnswer(vocab.Verdict(answer), strings.Fields(reasons))
		}
		return nil
	})
	if err != nil {
		return nil, db.fail("daily stats", err)
	}
	// Redactions are kept per local date already; [from, to) in dates is [day of from,
	// day of to) unless to is past its day's midnight.
	lo, hi := from.In(loc).Format(time.DateOnly), to.In(loc).Format(time.DateOnly)
	if t := to.In(loc); t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
		hi = t.AddDate(0, 0, 1).Format(time.DateOnly)
	}
	rs, err = db.sql.QueryContext(ctx, sqlRedactionsBetween, lo, hi, project)
	if err != nil {
		return nil, db.fail("daily stats", err)
	}
	err = scanAll(rs, func(r *sql.Rows) error {
		var day, proj string
		var n int
		if err := r.Scan(&day, &proj, &n); err != nil {
			return err
		}
		get(day, proj).Redactions += n
		return nil
	})
	if err != nil {
		return nil, db.fail("daily stats", err)
	}
	out := make([]DayStats, 0, len(rows))
	for _, d := range rows {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day > out[j].Day
		}
		return out[i].Project < out[j].Project
	})
	return out, nil
}

func (d *DayStats) addAnswer(v vocab.Verdict, reasons []string) {
	if d.Answers == nil {
		d.Answers, d.Reasons = map[vocab.Verdict]int{}, map[vocab.Verdict]map[string]int{}
	}
	d.Answers[v]++
	for _, r := range reasons {
		if d.Reasons[v] == nil {
			d.Reasons[v] = map[string]int{}
		}
		d.Reasons[v][r]++
	}
}

// PendingOf is how many events of the session wait for the observer and when the oldest of
// them was captured (zero when none): what Stop's batch rule reads.
func (db *DB) PendingOf(ctx context.Context, sessionID string) (n int, oldest time.Time, err error) {
	var min sql.NullInt64
	err = db.sql.QueryRowContext(ctx, sqlPendingOf, sessionID).Scan(&n, &min)
	return n, fromNanos(min), db.fail("pending of", err)
}

// duplicate reports whether the project has an observation of o's type whose title has
// o's TitleKey, stored at or after since. The titles are compared in Go (the key is not a
// column): a week of one type of a project's observations is a short read.
func duplicate(ctx context.Context, tx *sql.Tx, project string, since int64, o Observation) (bool, error) {
	rows, err := tx.QueryContext(ctx, sqlSameType, project, since, o.Type)
	if err != nil {
		return false, err
	}
	key, dup := TitleKey(o.Title), false
	if key == "" {
		return false, rows.Close() // a title with no word says nothing to compare
	}
	err = scanAll(rows, func(r *sql.Rows) error {
		var title string
		err := r.Scan(&title)
		dup = dup || TitleKey(title) == key
		return err
	})
	return dup, err
}

// trivial: w is left out of a title key, an article, which a rewording adds or drops.
func trivial(w string) bool { return w == "a" || w == "an" || w == "the" }

// TitleKey is what two titles that say the same thing have in common: lower case,
// punctuation and symbols as spaces, runs of space as one, the articles a, an and the left
// out, and a plural's final s dropped (a word of four or more letters not ending in ss).
// "Fix the flaky tests." and "fix flaky test" have one key; "Fixed" and "Fix" do not.
func TitleKey(title string) string {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	out := words[:0]
	for _, w := range words {
		if trivial(w) {
			continue
		}
		if utf8.RuneCountInString(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}
