// Command gen writes the coding-memory retrieval set (testdata/codingmem): memory.jsonl, a
// claude-mem export of three projects' sessions, prompts, observations and summaries, and
// queries.jsonl, the questions asked of it with the records that answer each. The text
// lives in this program's tables; the committed JSONL is the data the tests read.
//
//	go run ./internal/codingmem/gen -o testdata/codingmem
//
// Every record has a key: <session>.o<n> (its n-th observation), <session>.p<n> (prompt),
// <session>.s (its summary). A query names its answers by key; the file carries each
// answer's kind, time and title too, so a hit is matched by what search prints.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/archive"
	"github.com/claude-mem/claude-mem-go/internal/codingmem"
)

// project is one software project of the set.
type project struct {
	name, cwd string
	sessions  []session
}

// session is one Claude Code session: its prompts, the observations it produced, in order,
// and its summary.
type session struct {
	key     string
	start   string   // "2026-03-02 09:10", UTC
	prompts []string // the user's prompts, the first being the request
	obs     []string // "type|title|subtitle|narrative|fact; fact|concept, concept|read, read|modified, modified"
	sum     [6]string
}

// sessionID is a UUID-shaped id derived from the key, as Claude Code's are UUIDs.
func sessionID(key string) string {
	h := sha256.Sum256([]byte("codingmem/" + key))
	x := fmt.Sprintf("%x", h[:16])
	return x[0:8] + "-" + x[8:12] + "-4" + x[13:16] + "-a" + x[17:20] + "-" + x[20:32]
}

func list(s string, sep string) []string {
	out := []string{}
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// record is one line of memory.jsonl and what a query's answer says of it.
type record struct {
	line   any
	answer codingmem.Answer
}

func main() {
	out := flag.String("o", "testdata/codingmem", "directory to write memory.jsonl and queries.jsonl into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	projects := []project{payments, storefront, pipeline}
	var lines []any
	lines = append(lines, archive.Header{Kind: archive.KindHeader, Format: archive.Format, Product: archive.Product,
		Version: "codingmem", ExportedAt: "2026-11-30T12:00:00Z"})
	keys := map[string]codingmem.Answer{}
	seen := map[string]string{} // second-precision time → key: search prints seconds
	var sessions, rows []any
	add := func(key string, r record) error {
		if _, dup := keys[key]; dup {
			return fmt.Errorf("key %s twice", key)
		}
		sec := r.answer.At[:19]
		if other, dup := seen[sec]; dup {
			return fmt.Errorf("%s and %s share the second %s", key, other, sec)
		}
		seen[sec] = key
		r.answer.Key = key
		keys[key] = r.answer
		rows = append(rows, r.line)
		return nil
	}
	for _, p := range projects {
		for _, s := range p.sessions {
			start, err := time.Parse("2006-01-02 15:04", s.start)
			if err != nil {
				return fmt.Errorf("%s: %v", s.key, err)
			}
			id := sessionID(s.key)
			for i, text := range s.prompts {
				at := start.Add(time.Duration(i)*9*time.Minute + 5*time.Second)
				line := map[string]any{"kind": archive.KindPrompt, "session": id, "project": p.name, "at": stamp(at), "text": text}
				title, _, _ := strings.Cut(text, "\n")
				if err := add(fmt.Sprintf("%s.p%d", s.key, i+1), record{line, codingmem.Answer{Kind: archive.KindPrompt, Session: id, At: stamp(at), Title: title}}); err != nil {
					return err
				}
			}
			for i, o := range s.obs {
				f := strings.Split(o, "|")
				if len(f) != 8 {
					return fmt.Errorf("%s.o%d has %d fields, not 8", s.key, i+1, len(f))
				}
				at := start.Add(time.Duration(i+1)*4*time.Minute + 17*time.Second)
				line := map[string]any{"kind": archive.KindObservation, "session": id, "project": p.name, "at": stamp(at),
					"type": f[0], "title": f[1], "subtitle": f[2], "narrative": f[3], "facts": list(f[4], ";"),
					"concepts": list(f[5], ","), "files_read": list(f[6], ","), "files_modified": list(f[7], ",")}
				if err := add(fmt.Sprintf("%s.o%d", s.key, i+1), record{line, codingmem.Answer{Kind: archive.KindObservation, Session: id, At: stamp(at), Title: f[1]}}); err != nil {
					return err
				}
			}
			end := start.Add(time.Duration(len(s.obs)+1)*4*time.Minute + 30*time.Second)
			if s.sum[0] != "" {
				line := map[string]any{"kind": archive.KindSummary, "session": id, "project": p.name, "at": stamp(end),
					"request": s.sum[0], "investigated": s.sum[1], "learned": s.sum[2], "completed": s.sum[3], "next_steps": s.sum[4], "notes": s.sum[5]}
				if err := add(s.key+".s", record{line, codingmem.Answer{Kind: archive.KindSummary, Session: id, At: stamp(end), Title: s.sum[0]}}); err != nil {
					return err
				}
			}
			sessions = append(sessions, map[string]any{"kind": archive.KindSession, "id": id, "project": p.name,
				"cwd": p.cwd, "started_at": stamp(start), "ended_at": stamp(end.Add(time.Minute))})
		}
	}
	lines = append(lines, sessions...)
	lines = append(lines, rows...)
	if err := writeJSONL(filepath.Join(dir, "memory.jsonl"), lines); err != nil {
		return err
	}
	var qs []any
	ids := map[string]bool{}
	for _, q := range queries {
		if ids[q.ID] {
			return fmt.Errorf("query %s twice", q.ID)
		}
		ids[q.ID] = true
		for _, k := range q.keys {
			a, ok := keys[k]
			if !ok {
				return fmt.Errorf("query %s: no record %s", q.ID, k)
			}
			q.Answers = append(q.Answers, a)
		}
		qs = append(qs, q.Query)
	}
	if err := writeJSONL(filepath.Join(dir, "queries.jsonl"), qs); err != nil {
		return err
	}
	count := map[string]int{}
	for _, a := range keys {
		count[a.Kind]++
	}
	kinds := make([]string, 0, len(count))
	for k := range count {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Printf("%s: %d\n", k, count[k])
	}
	fmt.Printf("queries: %d\n", len(qs))
	return nil
}

// query is one question with the keys of the records that answer it.
type query struct {
	codingmem.Query
	keys []string
}

func q(id, project, form, text string, keys ...string) query {
	return query{Query: codingmem.Query{ID: id, Project: project, Form: form, Text: text}, keys: keys}
}

func writeJSONL(path string, lines []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
