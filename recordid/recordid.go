// Package recordid is the one grammar of record ids (DESIGN §23): `12` is observation 12,
// `S3` summary 3, `P7` prompt 7. `hook search`, the MCP tools and the viewer print ids in
// it, and `hook forget`, the MCP tools and the viewer's URLs read it back, so an id a
// person copies from one names the same record in every other.
package recordid

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/claude-mem/claude-mem-go/vocab"
)

// The letter before the number of each kind; an observation has none.
const (
	summaryLetter = "S"
	promptLetter  = "P"
)

// Format is r's id: "12", "S3", "P7".
func Format(r vocab.Ref) string {
	n := strconv.FormatInt(r.ID, 10)
	switch r.Kind {
	case vocab.KindSummary:
		return summaryLetter + n
	case vocab.KindPrompt:
		return promptLetter + n
	}
	return n
}

// Label is r's id as lists print it, "#12", "#S3", "#P7"; Parse reads it too.
func Label(r vocab.Ref) string { return "#" + Format(r) }

// SyntaxError: the text is no record id.
type SyntaxError struct{ Text string }

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%q is not a record id: use 12 (observation), S3 (summary) or P7 (prompt)", e.Text)
}

// Parse reads an id as Format or Label writes it, the letter in either case: "12", "#12",
// "S3", "s3", "#P7". The number is a whole number from 1.
func Parse(s string) (vocab.Ref, error) {
	rest := strings.TrimPrefix(strings.TrimSpace(s), "#")
	r := vocab.Ref{Kind: vocab.KindObservation}
	if rest != "" {
		switch strings.ToUpper(rest[:1]) {
		case summaryLetter:
			r.Kind, rest = vocab.KindSummary, rest[1:]
		case promptLetter:
			r.Kind, rest = vocab.KindPrompt, rest[1:]
		}
	}
	// Digits only: ParseInt would take a sign.
	if rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
		return vocab.Ref{}, &SyntaxError{s}
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id < 1 {
		return vocab.Ref{}, &SyntaxError{s}
	}
	r.ID = id
	return r, nil
}
