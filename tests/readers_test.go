//go:build linux

package tests

// Issues 26 and 33: every reader reaches memory one way (package memory): what waits in
// the capture journal is stored first, and a database an older claude-mem wrote is
// upgraded first. So each reader (search and search --json, stats, export, doctor, the
// viewer's pages, the MCP server's search, timeline and get_observations), in each state
// memory can be in, answers (exit 0, HTTP 200, a JSON-RPC result) from the waiting or
// older records, and leaves the schema current and the journal drained. Doctor alone
// stores nothing: it reports the backlog as it is (doctor.Build), so after it the journal
// holds what it held. Where nothing was captured (no data dir, an empty one) every reader
// answers an empty memory and makes nothing: not the data dir, not a database, not a
// journal dir; where the data dir is refused (open to other users) every reader fails,
// saying why, shows none of what it holds, and makes nothing either. The controls: a word
// never captured finds nothing, and no reader shows a record where nothing was captured.

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// absentWord is in no state's records.
const absentWord = "zebrafinch"

// readerState is memory as a reader may meet it: make builds it, and word is in its
// records (in the prompts' text).
type readerState struct {
	name      string
	word      string
	older     int  // the schema version it is at, when older than this build's
	journaled bool // records wait in the capture journal
	empty     bool // nothing was captured: the reader answers an empty memory, makes nothing
	refused   bool // the data dir is open to other users: the reader fails, makes nothing
	make      func(t *testing.T) *harness
}

// captureWaiting captures in hook mode the two kinds of record: a prompt holding word and a
// canary (redacted, so stats counts it once stored) and a tool event. Without a Stop
// nothing ingests them: they wait in the journal.
func captureWaiting(h *harness, word string) {
	h.t.Helper()
	h.prompt("readers-waiting", word+" journal notes\n"+redacttest.Captured()[0].Text)
	h.toolUse("readers-waiting", "grep -rn "+word+" .")
}

var readerStates = []readerState{
	{name: "no data dir", word: "wombat", empty: true, make: journalHarness},
	{name: "empty data dir", word: "wombat", empty: true, make: func(t *testing.T) *harness {
		h := journalHarness(t)
		if err := os.Mkdir(h.data, 0o700); err != nil {
			t.Fatal(err)
		}
		return h
	}},
	{name: "data dir unusable", word: "kiwi", refused: true, make: func(t *testing.T) *harness {
		h := journalHarness(t)
		captureWaiting(h, "kiwi")
		h.ingest()
		if err := os.Chmod(h.data, 0o777); err != nil {
			t.Fatal(err)
		}
		return h
	}},
	{name: "older schema", word: "quokka", older: olderSchema, make: func(t *testing.T) *harness {
		h, _ := olderMemory(t)
		return h
	}},
	{name: "journal waiting", word: "wombat", journaled: true, make: func(t *testing.T) *harness {
		h := journalHarness(t)
		captureWaiting(h, "wombat")
		if _, err := os.Stat(filepath.Join(h.data, "claude-mem.db")); err == nil {
			t.Fatal("control: hook mode made a database; this state wants none before a reader")
		}
		return h
	}},
	{name: "journal on a database", word: "wombat", journaled: true, make: func(t *testing.T) *harness {
		h := journalHarness(t)
		h.prompt("readers-stored", "numbat stored notes")
		h.ingest()
		captureWaiting(h, "wombat")
		return h
	}},
	{name: "journal on an older schema", word: "wombat", older: olderSchema, journaled: true, make: func(t *testing.T) *harness {
		h, _ := olderMemory(t)
		captureWaiting(h, "wombat")
		return h
	}},
	// The previous release's schema: only the light migration 8 owed, which any opener runs.
	{name: "schema 7", word: "kiwi", older: 7, make: func(t *testing.T) *harness {
		h := journalHarness(t)
		captureWaiting(h, "kiwi")
		h.ingest()
		downgrade(t, h.data, dropFilterIndexes, 7)
		return h
	}},
	{name: "normal", word: "kiwi", make: func(t *testing.T) *harness {
		h := journalHarness(t)
		captureWaiting(h, "kiwi")
		h.ingest()
		return h
	}},
}

// answer is what one reader answered: found is how many records it shows (for a reader
// that is asked words, records holding the word); failed, when it refused to answer
// (exit 1, a tool error, HTTP 500, doctor not OK), why; text is what it printed.
type answer struct {
	found  int
	failed string
	text   string
}

// reader runs one reader once on h, failing t unless it answers or fails as readers do.
type reader struct {
	name    string
	words   bool // asked words: one never captured must find nothing
	ingests bool
	// empty is a line its answer holds for an empty memory ("" when it shows none).
	empty string
	ask   func(t *testing.T, h *harness, word string) answer
}

// exited is a command's answer: exit 0 counts with count, exit 1 is a failure.
func exited(t *testing.T, r result, args []string, count func(string) int) answer {
	t.Helper()
	switch r.code {
	case 0:
		return answer{found: count(r.stdout), text: r.stdout}
	case 1:
		if r.stderr == "" {
			t.Fatalf("hook %v: exit 1 saying nothing", args)
		}
		return answer{failed: r.stderr, text: r.stdout}
	}
	t.Fatalf("hook %v: exit %d, stderr %q", args, r.code, r.stderr)
	return answer{}
}

// linesWith counts the lines of out holding word.
func linesWith(out, word string) int {
	n := 0
	for l := range strings.Lines(out) {
		if strings.Contains(strings.ToLower(l), word) {
			n++
		}
	}
	return n
}

// command is a reader that is a command: args, then what its stdout shows.
func command(name string, words, ingests bool, empty string, args func(word string) []string, count func(out, word string) int) reader {
	return reader{name: name, words: words, ingests: ingests, empty: empty, ask: func(t *testing.T, h *harness, word string) answer {
		a := args(word)
		return exited(t, h.runIn(h.work, nil, nil, a...), a, func(out string) int { return count(out, word) })
	}}
}

// mcpTool is a reader that is one MCP tool, called as the model calls it: get_observations
// with the refs search gave.
func mcpTool(tool, empty string) reader {
	return reader{name: "mcp " + tool, words: true, ingests: true, empty: empty, ask: func(t *testing.T, h *harness, word string) answer {
		s := h.startMCP(h.proj, nil)
		defer func() {
			if err := s.close(); err != nil {
				t.Fatalf("hook mcp: %v (stderr %q)", err, s.stderr.String())
			}
		}()
		call := func(tool string, args map[string]any) (text string, isError bool, content json.RawMessage) {
			line := s.call(tool, args)
			var a struct {
				Result *struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &a); err != nil || a.Result == nil || len(a.Result.Content) == 0 {
				t.Fatalf("hook mcp %s %v answered no result (%v):\n%s", tool, args, err, line)
			}
			return a.Result.Content[0].Text, a.Result.IsError, a.Result.StructuredContent
		}
		var index struct {
			Entries []struct {
				Ref   string `json:"ref"`
				Title string `json:"title"`
			} `json:"entries"`
		}
		text, isError, content := call("search", map[string]any{"query": word})
		if tool == "search" || isError {
			if isError {
				return answer{failed: text, text: text}
			}
			json.Unmarshal(content, &index)
			return answer{found: len(index.Entries), text: text}
		}
		json.Unmarshal(content, &index)
		if tool == "timeline" {
			text, isError, content = call("timeline", map[string]any{"query": word})
			if isError {
				return answer{failed: text, text: text}
			}
			index.Entries = nil
			json.Unmarshal(content, &index)
			n := 0
			for _, e := range index.Entries {
				if strings.Contains(strings.ToLower(e.Title), word) {
					n++
				}
			}
			return answer{found: n, text: text}
		}
		var refs []string
		for _, e := range index.Entries[:min(len(index.Entries), 20)] { // at most 20 a call
			refs = append(refs, e.Ref)
		}
		if refs == nil {
			refs = []string{"1"} // asked of a memory with none too
		}
		text, isError, content = call("get_observations", map[string]any{"ids": refs})
		if isError && strings.Contains(text, "memory unavailable") {
			return answer{failed: text, text: text}
		}
		var recs struct {
			Records []json.RawMessage `json:"records"`
		}
		json.Unmarshal(content, &recs)
		n := 0
		for _, r := range recs.Records {
			if strings.Contains(strings.ToLower(string(r)), word) {
				n++
			}
		}
		return answer{found: n, text: text}
	}}
}

// readerPages are the viewer's pages that read memory; the last one is asked words.
var readerPages = []string{"/", "/live", "/cost", "/context", "/search?q="}

var readers = []reader{
	command("search", true, true, "No memory stored yet.", func(w string) []string { return []string{"search", w} },
		func(out, word string) int {
			n := 0
			for l := range strings.Lines(out) { // a hit is its head, then its snippet indented
				if strings.HasPrefix(l, "    ") && strings.Contains(strings.ToLower(l), word) {
					n++
				}
			}
			return n
		}),
	command("search --json", true, true, "", func(w string) []string { return []string{"search", "--json", w} }, linesWith),
	command("export", true, true, "", func(string) []string { return []string{"export"} }, linesWith),
	// stats reports observer runs; of captured records it counts their redactions.
	command("stats", false, true, "", func(string) []string { return []string{"stats", "--json"} }, func(out, _ string) int {
		var s struct {
			Total struct {
				Redactions int `json:"redactions"`
			} `json:"total"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			return -1 // no report: counted as a record shown, which no state passes
		}
		return s.Total.Redactions
	}),
	// doctor reports records as counts: waiting in the journal, or events in the queue.
	{name: "doctor", ask: func(t *testing.T, h *harness, _ string) answer {
		d, r := h.doctor(nil)
		switch {
		case r.code == 1 && !d.OK && len(d.Findings) > 0:
			return answer{failed: strings.Join(d.Findings, "\n"), text: r.stdout}
		case r.code != 0 || d.Journal == nil || d.Queue == nil:
			t.Fatalf("hook doctor --json: exit %d, stderr %q, no journal or queue reported:\n%s", r.code, r.stderr, r.stdout)
		}
		return answer{found: d.Journal.Records + d.Queue.Pending + d.Queue.Processing + d.Queue.Done + d.Queue.Failed, text: r.stdout}
	}},
	{name: "viewer", words: true, ingests: true, ask: func(t *testing.T, h *harness, word string) answer {
		v, url := h.launchViewer()
		defer v.stop()
		v.fetchStatus(url) // the token becomes the cookie, whatever the page says
		var failed []string
		var a answer
		for _, p := range readerPages {
			if strings.HasSuffix(p, "=") {
				p += word
			}
			code, page := v.fetchStatus(v.base + p)
			switch {
			case code == http.StatusInternalServerError && strings.Contains(page, "Memory unavailable"):
				failed = append(failed, p)
				a.failed += page
			case code != http.StatusOK:
				t.Fatalf("GET %s: HTTP %d:\n%.2000s", p, code, page)
			}
			if _, hits, ok := strings.Cut(page, `<ol class="hits">`); ok {
				hits, _, _ = strings.Cut(hits, "</ol>")
				a.found += strings.Count(hits, "<li>")
			}
		}
		if len(failed) > 0 && len(failed) < len(readerPages) {
			t.Fatalf("viewer: pages %v failed, the others answered: one rule reads memory for all", failed)
		}
		return a
	}},
	mcpTool("search", "No memory stored yet."),
	mcpTool("timeline", "No memory stored yet."),
	mcpTool("get_observations", "Not found: #1"), // the ref asked of every memory
}

// made lists every path under h's root, except the log (logs/ in the data dir, which any
// command appends to where a data dir exists): what a reader of an empty memory leaves as
// it found it.
func made(t *testing.T, h *harness) []string {
	t.Helper()
	var out []string
	logs := filepath.Join(h.data, "logs")
	err := filepath.WalkDir(h.root, func(path string, _ fs.DirEntry, err error) error {
		if path == logs {
			return filepath.SkipDir
		}
		out = append(out, path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReaders_States(t *testing.T) {
	track(t)
	t.Parallel()
	current := currentSchema(t)
	for _, st := range readerStates {
		for _, r := range readers {
			t.Run(st.name+"/"+r.name, func(t *testing.T) {
				t.Parallel()
				h := st.make(t)
				waiting := h.journalRecords()
				if st.journaled != (waiting > 0) {
					t.Fatalf("control: %d records wait in the journal before %s", waiting, r.name)
				}
				hadDB := h.hasDB()
				if st.older != 0 && schemaVersion(t, h.data) != st.older {
					t.Fatalf("control: user_version %d before %s, want %d", schemaVersion(t, h.data), r.name, st.older)
				}
				before := made(t, h)
				a := r.ask(t, h, st.word)
				switch {
				case st.refused && (a.failed == "" || a.found != 0):
					t.Errorf("%s in a refused data dir: shows %d records, failure %q; want a failure saying why, and none shown", r.name, a.found, a.failed)
				case !st.refused && a.failed != "":
					t.Errorf("%s failed: %s", r.name, a.failed)
				case st.empty && a.found != 0:
					t.Errorf("control: %s shows %d records where nothing was captured", r.name, a.found)
				case !st.empty && !st.refused && a.found == 0:
					t.Errorf("%s shows none of the records (those holding %q):\n%.3000s", r.name, st.word, a.text)
				}
				if st.empty && !strings.Contains(a.text, r.empty) {
					t.Errorf("%s of an empty memory: %q, want it to say %q", r.name, a.text, r.empty)
				}
				if st.empty || st.refused {
					if after := made(t, h); !slices.Equal(before, after) {
						t.Errorf("%s made %v", r.name, newPaths(before, after))
					}
					return
				}
				left := h.journalRecords()
				switch {
				case r.ingests && left != 0:
					t.Errorf("%d records still wait in the journal after %s", left, r.name)
				case !r.ingests && left != waiting:
					t.Errorf("%d records wait in the journal after %s, which stores nothing; %d did before", left, r.name, waiting)
				}
				switch {
				case h.hasDB():
					if v := schemaVersion(t, h.data); v != current {
						t.Errorf("user_version %d after %s, want %d", v, r.name, current)
					}
				case hadDB || r.ingests:
					t.Errorf("no database after %s", r.name)
				}
				if r.words {
					if n := r.ask(t, h, absentWord); n.found != 0 || n.failed != "" {
						t.Errorf("control: %s shows %d records holding %q, never captured (failure %q)", r.name, n.found, absentWord, n.failed)
					}
				}
			})
		}
	}
}

// newPaths are the paths of after not in before.
func newPaths(before, after []string) []string {
	var out []string
	for _, p := range after {
		if !slices.Contains(before, p) {
			out = append(out, p)
		}
	}
	return out
}

// currentSchema is the schema version this build's store creates.
func currentSchema(t *testing.T) int {
	t.Helper()
	dir := t.TempDir()
	db, err := memory.Memory{DataDir: dir}.OpenWrite()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return schemaVersion(t, dir)
}

// journalRecords counts the records waiting in h's journal dirs.
func (h *harness) journalRecords() int {
	h.t.Helper()
	n := 0
	for _, lines := range h.journalLines() {
		n += len(lines)
	}
	return n
}

func (h *harness) hasDB() bool {
	_, err := os.Stat(filepath.Join(h.data, "claude-mem.db"))
	return err == nil
}

// TestReaders_HeldLock: another process holds the database's write lock (BEGIN EXCLUSIVE)
// while a prompt waits in the capture journal, so no reader can store it first. `export`
// then fails after its bounded wait (exit 1, the waiting record and the lock named, no
// file at -o, nothing on stdout) instead of writing a file without it as if complete;
// `search` still answers from the database but says, on stderr, that a record waits and
// was not searched, instead of a bare "No results" for a prompt that was captured. The
// control: once the lock is released, export holds the prompt and search finds it.
func TestReaders_HeldLock(t *testing.T) {
	track(t)
	t.Parallel()
	h := journalHarness(t)
	h.prompt("held-stored", "numbat stored notes")
	h.ingest()
	h.prompt("held-waiting", "capybara waiting notes")
	if h.journalRecords() == 0 {
		t.Fatal("control: the prompt does not wait in the journal")
	}
	release := lockDB(t, filepath.Join(h.data, "claude-mem.db"))
	out := filepath.Join(t.TempDir(), "export.jsonl")
	for _, args := range [][]string{{"export", "-o", out}, {"export"}} {
		r := h.runIn(h.work, nil, nil, args...)
		t.Logf("%v under the lock: exit %d, stderr %q, %d bytes on stdout", args, r.code, r.stderr, len(r.stdout))
		if r.code != 1 || !strings.Contains(r.stderr, "1 captured record waits") || !strings.Contains(r.stderr, "locked") || r.stdout != "" {
			t.Errorf("%v under the lock: exit %d, stderr %q, stdout %.200q; want exit 1 naming the waiting record and the lock, stdout empty", args, r.code, r.stderr, r.stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("export -o under the lock left %s", out)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(left) > 0 {
		t.Errorf("export -o under the lock left %v", left)
	}
	r := h.runIn(h.work, nil, nil, "search", "capybara")
	t.Logf("search under the lock: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	if r.code != 0 || !strings.Contains(r.stderr, "1 captured record waits") || !strings.Contains(r.stderr, "not searched") {
		t.Errorf("search under the lock: exit %d, stderr %q; want exit 0 and a line saying a record waits, not searched", r.code, r.stderr)
	}
	if r := h.runIn(h.work, nil, nil, "search", "--json", "numbat"); r.code != 0 || !strings.Contains(r.stdout, "numbat") || strings.Contains(r.stdout, "waits") {
		t.Errorf("search --json under the lock: exit %d, stdout %q; want the stored hit, JSON only", r.code, r.stdout)
	}

	release()
	r = h.runIn(h.work, nil, nil, "export", "-o", out)
	data, err := os.ReadFile(out)
	if r.code != 0 || err != nil || !strings.Contains(string(data), "capybara") || !strings.Contains(string(data), "numbat") {
		t.Errorf("control: export after the lock: exit %d (%v), stderr %q; want both prompts in the file", r.code, err, r.stderr)
	}
	if hits := h.search("capybara", nil); len(hits) != 1 {
		t.Errorf("control: search after the lock found %d hits for the prompt; want 1", len(hits))
	}
}
