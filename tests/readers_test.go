//go:build linux

package tests

// Issue 26: every reader reaches memory one way (package reading): what waits in the
// capture journal is stored first, and a database an older claude-mem wrote is upgraded
// first. So each reader (search, stats, export, doctor, the viewer, the MCP server), in
// each state memory can be in, answers (exit 0, HTTP 200, a JSON-RPC result) from the
// waiting or older records, and leaves the schema current and the journal drained. Doctor
// alone stores nothing: it reports the backlog as it is (doctor.Build), so after it the
// journal holds what it held. The controls: a word never captured finds nothing, and no
// reader shows a record where nothing was captured.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/store"
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
	empty     bool // the control: nothing was captured
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
	{name: "older schema", word: "quokka", older: olderSchema, make: func(t *testing.T) *harness {
		h, _ := olderMemory(t)
		return h
	}},
	{name: "journal without a database", word: "wombat", journaled: true, make: func(t *testing.T) *harness {
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
	{name: "nothing captured", word: "wombat", empty: true, make: journalHarness},
}

// reader runs one reader once on h, failing t unless it answers; found is how many records
// its answer shows (for a reader that is asked words, records holding word).
type reader struct {
	name    string
	words   bool // asked words: one never captured must find nothing
	ingests bool
	ask     func(t *testing.T, h *harness, word string) (found int)
}

var readers = []reader{
	{name: "search", words: true, ingests: true, ask: func(t *testing.T, h *harness, word string) int {
		return len(h.search(word, nil))
	}},
	{name: "export", words: true, ingests: true, ask: func(t *testing.T, h *harness, word string) int {
		r := h.runIn(h.work, nil, nil, "export")
		if r.code != 0 {
			t.Fatalf("hook export: exit %d, stderr %q", r.code, r.stderr)
		}
		n := 0
		for l := range strings.Lines(r.stdout) {
			if strings.Contains(l, word) {
				n++
			}
		}
		return n
	}},
	// stats reports observer runs; of captured records it counts their redactions.
	{name: "stats", ingests: true, ask: func(t *testing.T, h *harness, _ string) int {
		r := h.runIn(h.work, nil, nil, "stats", "--json")
		var s struct {
			Total struct {
				Redactions int `json:"redactions"`
			} `json:"total"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &s); r.code != 0 || err != nil {
			t.Fatalf("hook stats --json: exit %d (%v), stderr %q:\n%s", r.code, err, r.stderr, r.stdout)
		}
		return s.Total.Redactions
	}},
	// doctor reports records as counts: waiting in the journal, or events in the queue.
	{name: "doctor", ask: func(t *testing.T, h *harness, _ string) int {
		d, r := h.doctor(nil)
		if r.code != 0 || d.Journal == nil || d.Queue == nil {
			t.Fatalf("hook doctor --json: exit %d, stderr %q, no journal or queue reported:\n%s", r.code, r.stderr, r.stdout)
		}
		return d.Journal.Records + d.Queue.Pending + d.Queue.Processing + d.Queue.Done + d.Queue.Failed
	}},
	{name: "viewer", words: true, ingests: true, ask: func(t *testing.T, h *harness, word string) int {
		v := h.startViewer()
		defer v.stop()
		page := v.get("/search?q=" + word)
		_, hits, ok := strings.Cut(page, `<ol class="hits">`)
		if !ok {
			return 0
		}
		hits, _, _ = strings.Cut(hits, "</ol>")
		return strings.Count(hits, "<li>")
	}},
	{name: "mcp", words: true, ingests: true, ask: func(t *testing.T, h *harness, word string) int {
		s := h.startMCP(h.proj, nil)
		line := s.call("search", map[string]any{"query": word})
		if err := s.close(); err != nil {
			t.Fatalf("hook mcp: %v (stderr %q)", err, s.stderr.String())
		}
		var a struct {
			Result *struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Entries []struct {
						Title string `json:"title"`
					} `json:"entries"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil || a.Result == nil || a.Result.IsError {
			t.Fatalf("hook mcp search %q answered no result (%v):\n%s", word, err, line)
		}
		return len(a.Result.StructuredContent.Entries)
	}},
}

func TestReaders_OlderSchemaAndWaitingJournal(t *testing.T) {
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
				found := r.ask(t, h, st.word)
				switch {
				case st.empty && found != 0:
					t.Errorf("control: %s shows %d records where nothing was captured", r.name, found)
				case !st.empty && found == 0:
					t.Errorf("%s shows none of the records (those holding %q)", r.name, st.word)
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
				case hadDB || r.ingests && !st.empty:
					t.Errorf("no database after %s", r.name)
				}
				if r.words && !st.empty {
					if n := r.ask(t, h, absentWord); n != 0 {
						t.Errorf("control: %s shows %d records holding %q, never captured", r.name, n, absentWord)
					}
				}
			})
		}
	}
}

// currentSchema is the schema version this build's store creates.
func currentSchema(t *testing.T) int {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "claude-mem.db"))
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
