package hits

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/clip"
	"github.com/claude-mem/claude-mem-go/rank"
	"github.com/claude-mem/claude-mem-go/vocab"
)

func hit() rank.Hit {
	return rank.Hit{Kind: vocab.KindObservation, ID: 7, Project: "web", Session: "s1", Type: "bugfix", Title: "Login fixed",
		Subtitle: "cookie path", Snippet: "the cookie was dropped", Marks: []rank.Span{{Start: 4, End: 10}}, Similar: 2,
		At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Rank: -1.5}
}

func write(t *testing.T, list []rank.Hit, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, list, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Options → output, as `claude-mem search` prints it; each case differs from the plain
// one in one option, so each is the others' control.
func TestWrite(t *testing.T) {
	prompt := rank.Hit{Kind: vocab.KindPrompt, ID: 3, Project: "api", Title: "why is CI red", Snippet: "why is CI red",
		Repeats: rank.Repeats{Asked: 3, Sessions: []string{"6bd7b57a-1111", "c18e24bf-2222"}}, At: time.Date(2026, 12, 1, 23, 30, 0, 0, time.UTC)}
	pst := time.FixedZone("PST", -8*3600)
	teammate := hit()
	teammate.Origin = rank.Origin{Author: "alice", Machine: "desk\x1b[2J"}
	for _, tc := range []struct {
		name string
		list []rank.Hit
		o    Options
		want string
	}{
		{"plain", []rank.Hit{hit()}, Options{Loc: time.UTC},
			"#7 2026-11-30 [bugfix] web — Login fixed · cookie path (+2 similar)\n    the cookie was dropped\n"},
		{"marks on a terminal", []rank.Hit{hit()}, Options{Loc: time.UTC, Marks: true},
			"#7 2026-11-30 [bugfix] web — Login fixed · cookie path (+2 similar)\n    the \x1b[1mcookie\x1b[0m was dropped\n"},
		// The date is the user's: 1 Dec 23:30 UTC is 1 Dec at UTC−8, and 2 Dec at UTC+9.
		{"a prompt asked 3 times, at UTC−8", []rank.Hit{prompt}, Options{Loc: pst},
			"#P3 2026-12-01 [prompt] api — why is CI red (asked 3 times, in sessions 6bd7b57a, c18e24bf)\n    why is CI red\n"},
		{"at UTC+9", []rank.Hit{prompt}, Options{Loc: time.FixedZone("JST", 9*3600)},
			"#P3 2026-12-02 [prompt] api — why is CI red (asked 3 times, in sessions 6bd7b57a, c18e24bf)\n    why is CI red\n"},
		{"a teammate's, pulled", []rank.Hit{teammate}, Options{Loc: time.UTC},
			"#7 2026-11-30 [bugfix] web — Login fixed · cookie path (+2 similar) · by alice on desk\\x1b[2J\n    the cookie was dropped\n"},
		{"a teammate's as JSON", []rank.Hit{teammate}, Options{JSON: true, Loc: time.UTC},
			`{"kind":"observation","id":7,"ref":"7","project":"web","session":"s1","type":"bugfix","title":"Login fixed","subtitle":"cookie path","snippet":"the cookie was dropped","similar":2,"author":"alice","machine":"desk\u001b[2J","time":"2026-11-30T09:00:00Z","rank":-1.5}` + "\n"},
		{"none", nil, Options{Query: "flaky test", Loc: time.UTC}, "No results for \"flaky test\".\n"},
		{"none as JSON", nil, Options{Query: "flaky test", JSON: true, Loc: time.UTC}, ""},
		{"JSON", []rank.Hit{hit(), prompt}, Options{JSON: true, Marks: true, Loc: pst},
			`{"kind":"observation","id":7,"ref":"7","project":"web","session":"s1","type":"bugfix","title":"Login fixed","subtitle":"cookie path","snippet":"the cookie was dropped","similar":2,"time":"2026-11-30T01:00:00-08:00","rank":-1.5}` + "\n" +
				`{"kind":"prompt","id":3,"ref":"P3","project":"api","session":"","title":"why is CI red","snippet":"why is CI red","asked":3,"sessions":["6bd7b57a-1111","c18e24bf-2222"],"time":"2026-12-01T15:30:00-08:00","rank":0}` + "\n"},
	} {
		if got := write(t, tc.list, tc.o); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// What a hit's text holds is the user's to see, never the terminal's to obey: control
// characters are shown, not sent; the control is the same hit without them.
func TestWriteEscapesStoredText(t *testing.T) {
	h := hit()
	h.Title, h.Marks = "Login\x1b]0;pwned\x07 fixed", nil
	got := write(t, []rank.Hit{h}, Options{Loc: time.UTC})
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("a control character reached the output: %q", got)
	}
	if !strings.Contains(write(t, []rank.Hit{hit()}, Options{Loc: time.UTC}), "Login fixed") {
		t.Error("control: the plain title is not shown")
	}
}

// A line is clipped at clip.MaxLine whatever the title's length.
func TestLinesClipped(t *testing.T) {
	h := hit()
	h.Title = strings.Repeat("long ", 200)
	for _, l := range strings.Split(strings.TrimSuffix(Lines(h, false, time.UTC), "\n"), "\n") {
		if n := len([]rune(l)); n > clip.MaxLine {
			t.Errorf("a line of %d characters: %q", n, l)
		}
	}
	if n := len([]rune(strings.Split(Lines(h, false, time.UTC), "\n")[0])); n < 100 {
		t.Errorf("control: the head is %d characters, too short to show clipping", n)
	}
}

// No database: the text form says no memory is stored, the JSON form prints no object.
func TestWriteNoMemory(t *testing.T) {
	for _, tc := range []struct {
		json bool
		want string
	}{{false, "No memory stored yet.\n"}, {true, ""}} {
		var b bytes.Buffer
		if err := WriteNoMemory(&b, Options{JSON: tc.json}); err != nil || b.String() != tc.want {
			t.Errorf("json %v: %q, %v; want %q", tc.json, b.String(), err, tc.want)
		}
	}
}
