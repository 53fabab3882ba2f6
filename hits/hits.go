// Package hits shows search hits as `claude-mem search` prints them: two text lines a hit
// (matched words in bold on a terminal), or the documented JSON shape, one object a line.
package hits

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/claude-mem/claude-mem-go/byline"
	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/printable"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/recordid"
	"github.com/claude-mem/claude-mem-go/vocab"
	"github.com/claude-mem/claude-mem-go/when"
)

// Options say how hits are shown.
type Options struct {
	Query string         // what was searched for, named when nothing is found
	JSON  bool           // one JSON object a hit (the JSON type), nothing when none
	Marks bool           // bold the matched words: stdout is a terminal
	Loc   *time.Location // the user's time zone: dates are shown in it (package when)
}

// Write prints hits as o says; with none, the text form says so.
func Write(w io.Writer, list []rank.Hit, o Options) error {
	if o.JSON {
		enc := json.NewEncoder(printable.JSONWriter(w))
		for _, h := range list {
			if err := enc.Encode(ToJSON(h, o.Loc)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, clip.Line(fmt.Sprintf("No results for %q.", o.Query), clip.MaxLine))
		return err
	}
	for _, h := range list {
		if _, err := io.WriteString(w, Lines(h, o.Marks, o.Loc)); err != nil {
			return err
		}
	}
	return nil
}

// WriteNoMemory is what a search of a memory with no database prints: the text form says
// so, the JSON form has no hit to print.
func WriteNoMemory(w io.Writer, o Options) error {
	if o.JSON {
		return nil
	}
	_, err := fmt.Fprintln(w, "No memory stored yet.")
	return err
}

// Lines is one hit as text: the record, its subtitle, how many near-equal records it
// stands for (a prompt: how often and in which sessions it was asked) and its byline
// (package byline: who made a pulled record, on which machine), then the snippet,
// its matched words in bold when marks is set (a terminal shows them; a pipe or file gets
// the plain text). Each line is clipped to clip.MaxLine characters.
func Lines(h rank.Hit, marks bool, loc *time.Location) string {
	kind := h.Kind
	if h.Type != "" {
		kind = h.Type
	}
	head := fmt.Sprintf("%s %s [%s] %s — %s", recordid.Label(vocab.Ref{Kind: h.Kind, ID: h.ID}), when.Show(h.At, loc, when.Date),
		kind, printable.Text(h.Project), printable.Text(h.Title))
	if h.Subtitle != "" {
		head += " · " + printable.Text(h.Subtitle)
	}
	if h.Similar > 0 {
		head += fmt.Sprintf(" (+%d similar)", h.Similar)
	}
	if note := h.AskedNote(); note != "" {
		head += " (" + note + ")"
	}
	if by := byline.Of(h.Author, h.Machine); by != "" {
		head += " · " + printable.Text(by)
	}
	open, close := "", ""
	if marks {
		open, close = "\x1b[1m", "\x1b[0m"
	}
	snippet := rank.Marked(h.Snippet, h.Marks, open, close, printable.Text)
	return clip.Line(head, clip.MaxLine) + "\n" + clip.Line("    "+snippet, clip.MaxLine) + "\n"
}

// JSON is the documented shape of a hit in `claude-mem search --json` (one object a line).
type JSON struct {
	Kind     string   `json:"kind"`
	ID       int64    `json:"id"`
	Ref      string   `json:"ref"` // the record id: "12", "S3", "P7"
	Project  string   `json:"project"`
	Session  string   `json:"session"`
	Type     string   `json:"type,omitempty"`
	Title    string   `json:"title"`
	Subtitle string   `json:"subtitle,omitempty"`
	Snippet  string   `json:"snippet"` // plain text, no marks
	Similar  int      `json:"similar,omitempty"`
	Asked    int      `json:"asked,omitempty"`    // near-equal prompts this hit stands for, itself included
	Sessions []string `json:"sessions,omitempty"` // the sessions they were asked in
	Context  bool     `json:"context,omitempty"`  // found by its session's context only
	Author   string   `json:"author,omitempty"`   // a teammate's record: who made it (their server role)
	Machine  string   `json:"machine,omitempty"`  // a pulled record: the machine it was made on
	Time     string   `json:"time"`               // local time with its offset (when.Instant)
	Rank     float64  `json:"rank"`
}

// ToJSON is h in the JSON shape, its time in loc.
func ToJSON(h rank.Hit, loc *time.Location) JSON {
	return JSON{Kind: h.Kind, ID: h.ID, Ref: recordid.Format(vocab.Ref{Kind: h.Kind, ID: h.ID}), Project: h.Project,
		Session: h.Session, Type: h.Type, Title: h.Title, Subtitle: h.Subtitle, Snippet: h.Snippet, Similar: h.Similar,
		Asked: h.Asked, Sessions: h.Sessions, Context: h.Context, Author: h.Author, Machine: h.Machine, Time: when.Show(h.At, loc, when.Instant), Rank: h.Rank}
}
