package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/vocab"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/when"
)

// checkQuery bounds a query: a huge one is a tool error, not a slow search.
func checkQuery(q string, required bool) error {
	if required && strings.TrimSpace(q) == "" {
		return errors.New("query is empty: give a few plain words to look for")
	}
	if n := utf8.RuneCountInString(q); n > maxQuery {
		return fmt.Errorf("query is %d characters; at most %d (a few distinctive words work best)", n, maxQuery)
	}
	return nil
}

// intArg is an optional whole-number argument within [lo, hi].
func intArg(name string, v *int, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, fmt.Errorf("%s %d is out of range: use %d to %d", name, *v, lo, hi)
	}
	return *v, nil
}

// typeArg reads search's type: a kind narrows the kinds, an observation type narrows
// observations.
func typeArg(t string) (kinds []string, obsType string, err error) {
	t = strings.ToLower(strings.TrimSpace(t))
	switch t {
	case "":
		return nil, "", nil
	case "observation", "observations":
		return []string{vocab.KindObservation}, "", nil
	case "summary", "summaries":
		return []string{vocab.KindSummary}, "", nil
	case "prompt", "prompts":
		return []string{vocab.KindPrompt}, "", nil
	}
	if slices.Contains(noteTypes(), t) {
		return nil, t, nil
	}
	return nil, "", fmt.Errorf("type %q: use an observation type (%s) or observation, summary, prompt", t, strings.Join(noteTypes(), ", "))
}

// timeArg reads since/until as the CLI reads a DATE (package when): a date is local
// midnight, for until its whole day included.
func timeArg(name, v string, now time.Time, loc *time.Location, until bool) (time.Time, error) {
	if strings.TrimSpace(v) == "" {
		return time.Time{}, nil
	}
	f := when.Start
	if until {
		f = when.End
	}
	t, err := f(v, now, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// parseRef reads one ref: a number (an observation) or a string in the record id grammar
// ("12", "#12", "S3", "P7").
func parseRef(raw json.RawMessage) (vocab.Ref, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		id, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil || id < 1 {
			return vocab.Ref{}, fmt.Errorf("id %s is not a ref: use a whole number ≥ 1 (an observation), or \"S3\" (summary), \"P7\" (prompt)", n)
		}
		return vocab.Ref{Kind: vocab.KindObservation, ID: id}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return vocab.Ref{}, fmt.Errorf("id %s is not a ref: use 12 (observation), \"S3\" (summary) or \"P7\" (prompt)", clip.Head(string(raw), 40))
	}
	ref, err := recordid.Parse(s)
	if err != nil {
		return vocab.Ref{}, fmt.Errorf("id %q is not a ref: use 12 (observation), \"S3\" (summary) or \"P7\" (prompt)", clip.Head(s, 40))
	}
	return ref, nil
}

func offReason(err error) string {
	var re *project.RefusedError
	var ee *project.ExcludedError
	switch {
	case errors.As(err, &re):
		return "not a project: " + re.Reason
	case errors.As(err, &ee):
		return "excluded by CLAUDE_MEM_EXCLUDED_PROJECTS pattern " + strconv.Quote(ee.Pattern)
	}
	return err.Error()
}
