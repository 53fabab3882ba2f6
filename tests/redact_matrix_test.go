//go:build linux

package tests

// Issues 21 and 31, "Shown by": the matrix of secret shapes × separators × captured fields
// through the built binary. Every cell has a secret of its own (redacttest.Canary.Variant);
// after the prompts, the tool events (Bash input, stdout and stderr; a Read's file path and
// content; an MCP tool's JSON held in a string), the turns' answers (Stop), remember notes
// through `hook mcp`, a Stop that runs the observer,
// and search, export, stats, doctor and the viewer's pages, no cell's secret is in any byte under $WORK (the
// data dir's database, WAL, journal, run files, logs, health.json; the home, where the
// fallback journal is), on the fake claude's stdin or argv, or in any output. The control,
// with CLAUDE_MEM_REDACT_SECRETS=false, finds every cell's secret in the data dir.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
)

// extraShapes are the table's shapes beyond one canary per kind: the forms issue 21 found
// stored (YAML, env suffixes, command lines, aws text output, Basic auth).
var extraShapes = []redacttest.Canary{
	{Kind: "assignment", Text: "database:\n  host: db.internal\n  password: CanaryYamlPassword\n", Secret: "CanaryYamlPassword"},
	{Kind: "assignment", Text: "DB_PASS=CanaryDbPass2024", Secret: "CanaryDbPass2024"},
	{Kind: "assignment", Text: "STRIPE_KEY=CanaryStripeKey77", Secret: "CanaryStripeKey77"},
	{Kind: "cli_password", Text: "mysql -h db -u root -pCanaryMysql9 app", Secret: "CanaryMysql9"},
	{Kind: "cli_password", Text: "sshpass -p 'CanarySsh!Pw7' ssh admin@10.0.0.5", Secret: "CanarySsh!Pw7"},
	{Kind: "aws_secret", Text: "CREDENTIALS\tASIACANARY7Q2W3E4R5T\t2026-12-01T22:00:00+00:00\tCanaryAwsTextSecret0K7MDENGbPxRfiCY01234\tIQoJb3JpZ2luX2VjEHYa",
		Secret: "CanaryAwsTextSecret0K7MDENGbPxRfiCY01234"},
	{Kind: "aws_access_key_id", Text: `"AccessKeyId": "ASIACANARY7Q2W3E4R5Z",`, Secret: "ASIACANARY7Q2W3E4R5Z"},
	{Kind: "bearer", Text: "Authorization: Basic Q2FuYXJ5QmFzaWM6cGFzc3dvcmQxMjM=", Secret: "Q2FuYXJ5QmFzaWM6cGFzc3dvcmQxMjM="},
	// Issue 31: Slack app-level tokens, the AWS console's CSV rows, any *key name with a
	// generated value, a PEM body read without its BEGIN line, a token percent-encoded in a
	// URL and one split by grep --color.
	{Kind: "slack", Text: "SLACK_APP_TOKEN=xapp-1-A0CANARY789-1234567890123-ca0a1b2c3d4e5f6a7b8c1234", Secret: "ca0a1b2c3d4e5f6a7b8c1234"},
	{Kind: "aws_secret", Text: "User name,Password,Access key ID,Secret access key,Console login link\ndeploy,,AKIACANARYCSV7Q2W3E4,CanaryCsvSecret0K7MDENGbPxRfiCY012345678,https://1234.signin.aws.amazon.com/console\n",
		Secret: "CanaryCsvSecret0K7MDENGbPxRfiCY012345678"},
	{Kind: "aws_secret", Text: "Access key ID,Secret access key\nAKIACANARYCSV7Q2W3E5,CanaryCsvKeySecret0MDENGbPxRfiCY01234567\n", Secret: "CanaryCsvKeySecret0MDENGbPxRfiCY01234567"},
	{Kind: "assignment", Text: "encryption_key = 'ca0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c61234'", Secret: "ca0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c61234"},
	{Kind: "private_key", Text: "q8Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pA8sD4fG7hJ1kL3zX5cV9bN\n7mQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX2cV4bN6mQ8wE0rT2yU4iO6pCanary12\n-----END RSA PRIVATE KEY-----\n",
		Secret: "7mQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX2cV4bN6mQ8wE0rT2yU4iO6pCanary12"},
	{Kind: "github", Text: "GET /cb?next=%2Fhome%3Faccess_token%3Dghp_CanaryPct0a1B2c3D4e5F6g7H8i9J0kLm1N2o HTTP/1.1", Secret: "CanaryPct0a1B2c3D4e5F6g7H8i9J0kLm1N2o"},
	{Kind: "github", Text: "config.txt:3:token ghp_CanaryGrep0a1B2\x1b[01;31m\x1b[Kc3D4\x1b[m\x1b[Ke5F6g7H8i9J0kLm1N2o", Secret: "e5F6g7H8i9J0kLm1N2o"},
}

// matrixFields are the captured fields a cell's text goes into.
var matrixFields = []string{"prompt", "tool_input", "stdout", "stderr", "content", "nested JSON", "remember", "file path", "Stop answer"}

// matrixCell is one secret in one place.
type matrixCell struct {
	field, sep string
	c          redacttest.Canary
}

// groupShapes is how many shapes one text holds, one after another.
const groupShapes = 8

// matrixTexts builds, for each field, the texts to capture and the cells they hold: for
// each separator, the shapes one after another (groupShapes to a text), each between the
// separator's two sides; at the start and end of text, a text per shape.
func matrixTexts() (texts map[string][]string, cells []matrixCell) {
	shapes := append(redacttest.Captured(), extraShapes...)
	texts = map[string][]string{}
	for fi, f := range matrixFields {
		for si, sep := range redacttest.Separators {
			var group []string
			flush := func() {
				if len(group) > 0 {
					texts[f] = append(texts[f], "quokka "+strings.Join(group, "\n"))
					group = nil
				}
			}
			for i, sh := range shapes {
				if i%groupShapes == 0 { // a note holds 4,000 characters at most
					flush()
				}
				v := sh.Variant(fi*len(redacttest.Separators) + si)
				cells = append(cells, matrixCell{f, sep.Name, v})
				text := sep.Before + v.Text + sep.After
				if sep.Before == "" {
					texts[f] = append(texts[f], text)
					continue
				}
				group = append(group, text)
			}
			flush()
		}
	}
	return texts, cells
}

// capturedRun is what one scenario left and printed.
type capturedRun struct {
	h     *harness
	files map[string][]byte // every regular file under $WORK (data dir, home, project)
	// stored is every file concatenated and every value of the database (read back too: a
	// row longer than a page is split across overflow pages).
	stored     []byte
	stdin      string // what the fake claude read, all runs together
	observer   string // the fake claude's stdin and argv, every run
	search     string // `hook search --json quokka` stdout
	export     string // `hook export` stdout
	doctorJSON string // `hook doctor --json` stdout
	statsSum   int    // `hook stats --json` total redactions
	outputs    string // every output of the product in the scenario
	viewer     string // the viewer's pages, HTML entities decoded
}

// viewerPages fetches, from a running viewer, the projects, every project's timeline and
// context, every session's page (its prompts whole), a search, and every observation's and
// summary's page: each lands in h.outputs, and all of them are returned.
func viewerPages(t *testing.T, h *harness) string {
	t.Helper()
	db := h.db()
	var pages []string
	for _, q := range []struct{ sql, page string }{
		{`SELECT 'record/' || id FROM observations`, "/%s"},
		{`SELECT 'record/S' || id FROM summaries`, "/%s"},
		{`SELECT id FROM sessions`, "/session/%s"},
		{`SELECT DISTINCT project FROM sessions`, "/timeline?project=%s"},
		{`SELECT DISTINCT project FROM sessions`, "/context?project=%s"},
	} {
		rows, err := db.Query(q.sql)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(v, "record/") {
				v = url.QueryEscape(v)
			}
			pages = append(pages, fmt.Sprintf(q.page, v))
		}
		rows.Close()
	}
	db.Close()
	v := h.startViewer()
	defer v.stop()
	var all strings.Builder
	for _, p := range append(pages, "/", "/search?q=quokka", "/health", "/settings") {
		all.WriteString(v.get(p))
	}
	return all.String()
}

// runCaptured feeds a fresh harness with extra settings, ends the session with a Stop that
// runs the observer, asks search, export, stats and doctor, and collects every byte.
func runCaptured(t *testing.T, env map[string]string, sid string, feed func(h *harness)) *capturedRun {
	t.Helper()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	h.env["TZ"] = "UTC"
	h.env["CLAUDE_MEM_LOG_LEVEL"] = "debug" // the most the log may say
	for k, v := range env {
		h.env[k] = v
	}
	feed(h)
	out, procs, err := h.startReaped(fixtureEvent(t, "Stop-basic.json", h.base(sid)), nil)()
	if err != nil {
		t.Fatal(err)
	}
	if out != "" || len(procs) != 1 || !isObserveFor(procs[0], sid) {
		t.Fatalf("Stop printed %q and left %+v, want one `hook observe --session %s`", out, procs, sid)
	}
	r := &capturedRun{h: h}
	recs := h.records()
	if len(recs) == 0 {
		t.Fatal("the observer never ran the fake claude")
	}
	for _, rec := range recs {
		r.stdin += rec.Stdin
		r.observer += rec.Stdin + "\n" + strings.Join(rec.Argv, "\n") + "\n"
	}
	sr := h.runIn(h.work, nil, nil, "search", "--json", "quokka")
	if sr.code != 0 || !strings.Contains(sr.stdout, "quokka") {
		t.Fatalf("hook search --json quokka: exit %d, stdout %.300q, stderr %q: the prompt is not found", sr.code, sr.stdout, sr.stderr)
	}
	ex := h.runIn(h.work, nil, nil, "export")
	if ex.code != 0 || !strings.Contains(ex.stdout, `"prompt"`) || !strings.Contains(ex.stdout, "quokka") {
		t.Fatalf("hook export: exit %d, stderr %q, no prompt in:\n%.2000s", ex.code, ex.stderr, ex.stdout)
	}
	r.statsSum = h.stats().Total.Redactions
	dr := h.runIn(h.work, nil, nil, "doctor", "--json")
	if !json.Valid([]byte(dr.stdout)) {
		t.Fatalf("hook doctor --json (exit %d): %.300q", dr.code, dr.stdout)
	}
	r.search, r.export, r.doctorJSON = sr.stdout, ex.stdout, dr.stdout
	r.viewer = html.UnescapeString(viewerPages(t, h)) // as a browser shows it
	h.mu.Lock()
	r.outputs = strings.Join(h.outputs, "\n")
	h.mu.Unlock()
	r.files = workFiles(t, h.work)
	var all bytes.Buffer
	for _, b := range r.files {
		all.Write(b)
		all.WriteByte(0)
	}
	db := h.db()
	defer db.Close()
	tables, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		if err := tables.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tables.Close()
	for _, n := range names {
		rows, err := db.Query(`SELECT * FROM "` + n + `"`)
		if err != nil {
			continue // an FTS index's internal table that does not read back
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		for rows.Next() {
			if err := rows.Scan(vals...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				fmt.Fprintf(&all, "%s\x00", *v.(*any))
			}
		}
		rows.Close()
	}
	r.stored = all.Bytes()
	return r
}

// feedMatrix captures texts: per text index, a prompt, a Bash event (input, stdout,
// stderr), a Read event (content), an MCP tool event (JSON in a string); and one `hook mcp`
// session remembering each remember text.
func feedMatrix(t *testing.T, h *harness, sid string, texts map[string][]string) {
	for i := range texts["prompt"] {
		h.prompt(sid, texts["prompt"][i])
		tool := func(fixture, name string, input, response any) {
			f := h.base(sid)
			f["tool_use_id"] = fmt.Sprintf("toolu_matrix_%s_%d", name, i)
			f["tool_name"], f["tool_input"], f["tool_response"] = name, input, response
			if out := h.hookMode(nodeJSON(fixtureEvent(t, fixture, f)), nil); out != "" {
				t.Fatalf("PostToolUse printed %q", out)
			}
		}
		tool("PostToolUse-Bash.json", "Bash", map[string]any{"command": texts["tool_input"][i], "description": "quokka check"},
			map[string]any{"stdout": texts["stdout"][i], "stderr": texts["stderr"][i], "interrupted": false, "isImage": false, "noOutputExpected": false})
		path := h.proj + "/" + texts["file path"][i]
		tool("PostToolUse-Read.json", "Read", map[string]any{"file_path": path},
			map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": texts["content"][i], "numLines": 3, "startLine": 1, "totalLines": 3}})
		inner, err := json.Marshal(map[string]any{"rows": []any{map[string]any{"id": i, "note": texts["nested JSON"][i]}}, "count": 1})
		if err != nil {
			t.Fatal(err)
		}
		tool("PostToolUse-Bash.json", "mcp__db__query", map[string]any{"sql": "select note from notes"},
			[]any{map[string]any{"type": "text", "text": string(nodeJSON(inner))}})
		// The turn's answer; no batch is due before the scenario's own Stop.
		f := h.base(sid)
		f["last_assistant_message"] = texts["Stop answer"][i]
		if out := h.hookMode(nodeJSON(fixtureEvent(t, "Stop-basic.json", f)), map[string]string{"CLAUDE_MEM_BATCH_EVENTS": "10000", "CLAUDE_MEM_BATCH_WAIT": "86400"}); out != "" {
			t.Fatalf("Stop printed %q", out)
		}
	}
	remember(t, h, sid, texts["remember"])
}

// remember stores each text as a note through one `hook mcp` session, a request at a time.
func remember(t *testing.T, h *harness, sid string, notes []string) {
	s := h.startMCP(h.proj, map[string]string{"CLAUDE_CODE_SESSION_ID": sid})
	for i, text := range notes {
		s.call("remember", map[string]any{"title": fmt.Sprintf("quokka note %d", i), "text": text})
	}
	err := s.close()
	if n := strings.Count(s.out.String(), `"structuredContent":{"id":`); err != nil || n != len(notes) {
		t.Fatalf("hook mcp (%v) remembered %d of %d notes (stderr %q):\n%.2000s", err, n, len(notes), s.stderr.String(), s.out.String())
	}
}

func TestRedactMatrix_NoCellStoredSentOrShown(t *testing.T) {
	track(t)
	t.Parallel()
	texts, cells := matrixTexts()
	r := runCaptured(t, nil, "matrix", func(h *harness) { feedMatrix(t, h, "matrix", texts) })
	leaks, leaking := 0, 0
	byPlace := map[string]int{} // leaking cells by shape and separator
	for _, c := range cells {
		leaked := false
		for where, b := range map[string][]byte{"a file under $WORK": r.stored, "the observer's stdin or argv": []byte(r.observer), "an output": []byte(r.outputs), "the viewer's pages": []byte(r.viewer)} {
			if bytes.Contains(b, []byte(c.c.Secret)) {
				leaked = true
				if leaks++; leaks <= 20 {
					t.Errorf("%s holds the secret of cell %s × %s × %s: %q", where, c.c.Kind, c.sep, c.field, c.c.Secret)
				}
			}
		}
		if leaked {
			leaking++
			byPlace[c.c.Kind+" × "+c.sep]++
		}
	}
	if leaks > 0 {
		for _, k := range slices.Sorted(maps.Keys(byPlace)) {
			t.Logf("leaking: %s: %d cells", k, byPlace[k])
		}
		t.Errorf("%d of %d cells leak (%d leaks)", leaking, len(cells), leaks)
	}
	if !bytes.Contains(r.stored, []byte("[REDACTED:")) || !strings.Contains(r.observer, "[REDACTED:") {
		t.Error("no [REDACTED: marker stored or sent to the observer: the scenario did not capture")
	}
	t.Logf("%d cells (%d shapes × %d separators × %d fields): no secret in %d bytes stored, %d bytes to the observer, %d bytes of output",
		len(cells), len(redacttest.Captured())+len(extraShapes), len(redacttest.Separators), len(matrixFields), len(r.stored), len(r.observer), len(r.outputs))
}

func TestRedactMatrix_Control_RedactionOffStoresEveryCell(t *testing.T) {
	track(t)
	t.Parallel()
	texts, cells := matrixTexts()
	r := runCaptured(t, map[string]string{"CLAUDE_MEM_REDACT_SECRETS": "false"}, "matrix", func(h *harness) { feedMatrix(t, h, "matrix", texts) })
	found, missing := 0, 0
	for _, c := range cells {
		if bytes.Contains(r.stored, []byte(c.c.Secret)) {
			found++
		} else if missing++; missing <= 20 {
			t.Errorf("with redaction off the data dir lacks cell %s × %s × %s: %q", c.c.Kind, c.sep, c.field, c.c.Secret)
		}
	}
	if found != len(cells) {
		t.Errorf("with redaction off the data dir holds %d of %d cells' secrets: the scan cannot see a leak", found, len(cells))
	}
	// The viewer's pages are a sink that can show a leak: they show every prompt whole.
	shown, prompts := 0, 0
	for _, c := range cells {
		if c.field == "prompt" {
			prompts++
			if strings.Contains(r.viewer, c.c.Secret) {
				shown++
			}
		}
	}
	if shown != prompts {
		t.Errorf("with redaction off the viewer's pages show %d of %d prompt cells' secrets", shown, prompts)
	}
	t.Logf("control: %d of %d cells' secrets stored as is; the viewer shows %d of %d prompt cells", found, len(cells), shown, prompts)
}
