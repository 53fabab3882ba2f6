//go:build linux

package tests

// No silent loss (issue 23, DESIGN.md §24): every shape of answer a model really returns,
// through the built binary and the fake claude, is stored, salvaged, skipped or retried,
// and counted with its reason in runs, hook stats and doctor.

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// obsXML is one well-formed observation.
func obsXML(typ, title string) string {
	return "<observation>\n  <type>" + typ + "</type>\n  <title>" + title + "</title>\n  <subtitle>s</subtitle>\n" +
		"  <facts><fact>f</fact></facts>\n  <narrative>About " + title + ".</narrative>\n</observation>"
}

// cutObs is the start of an observation cut at the output limit.
const cutObs = "\n<observation>\n  <type>bugfix</type>\n  <title>Half of a tit"

func reply(text string) fakeproto.Reply { return fakeproto.Reply{Text: text} }

// answerRun is one row of runs as the shape tests read it.
type answerRun struct {
	outcome, answer, reasons string
	events, observations     int
	duplicates, dropped      int
}

func (r answerRun) String() string {
	s := r.answer
	if r.reasons != "" {
		s += " " + r.reasons
	}
	return fmt.Sprintf("%s/%d", s, r.events)
}

func (h *harness) answerRuns() []answerRun {
	h.t.Helper()
	var out []answerRun
	h.eachRow(`SELECT outcome, answer, answer_reasons, events, observations, duplicates, answer_dropped FROM runs ORDER BY started_at, id`,
		func(rows *sql.Rows) error {
			var r answerRun
			err := rows.Scan(&r.outcome, &r.answer, &r.reasons, &r.events, &r.observations, &r.duplicates, &r.dropped)
			out = append(out, r)
			return err
		})
	return out
}

// typedObservations are the stored observations as "type|title", in order.
func (h *harness) typedObservations() []string {
	h.t.Helper()
	return h.texts(`SELECT type || '|' || title FROM observations ORDER BY id`)
}

// scriptAnswers makes the next invocations of the fake answer replies, in order (the
// fake counts its invocations by the records it wrote).
func (h *harness) scriptAnswers(replies ...fakeproto.Reply) {
	h.t.Helper()
	answers := make([]fakeproto.Reply, len(h.records()), len(h.records())+len(replies))
	h.setScenario(fakeproto.Scenario{Answers: append(answers, replies...)})
}

var blockRe = regexp.MustCompile(`(?i)<(observation|summary)[\s>]`)

// silentLosses checks the rule: every answered run has a verdict; every block of every
// answer is stored, a duplicate, or counted as dropped; every event done was completed by
// an answer that was stored, salvaged or skipped; every event not done waits (pending or
// failed) with an attempt counted or for a run. It returns what breaks the rule.
func (h *harness) silentLosses(given []fakeproto.Reply) []string {
	h.t.Helper()
	var losses []string
	runs := h.answerRuns()
	for i, r := range runs {
		if r.outcome == "ok" && r.answer == "" {
			losses = append(losses, fmt.Sprintf("run %d answered without a verdict", i))
		}
		if i >= len(given) {
			continue
		}
		blocks := len(blockRe.FindAllString(given[i].Text+string(given[i].Raw)+strings.Join(given[i].Continue, ""), -1))
		summaries := h.count(`SELECT count(*) FROM summaries WHERE run_id = (SELECT id FROM runs ORDER BY started_at, id LIMIT 1 OFFSET ?)`, i)
		if kept := r.observations + r.duplicates + r.dropped + summaries; kept != blocks {
			losses = append(losses, fmt.Sprintf("run %d (%s): %d blocks given, %d stored, duplicate or counted as dropped", i, r, blocks, kept))
		}
	}
	if n := h.count(`SELECT count(*) FROM events e LEFT JOIN runs r ON r.id = e.run_id
		WHERE e.state = 'done' AND coalesce(r.answer, '') NOT IN ('stored', 'salvaged', 'skipped')`); n > 0 {
		losses = append(losses, fmt.Sprintf("%d events done without an answer that kept or skipped them", n))
	}
	return losses
}

// The answer-shape table: one batch of four events per shape, one `hook observe`.
func TestAnswers_EveryShapeStoredSalvagedSkippedOrRetried(t *testing.T) {
	track(t)
	t.Parallel()
	full := obsXML("bugfix", "Refunds rounded zero-decimal currencies wrong")
	second := obsXML("decision", "Ledger entries are append-only")
	cases := []struct {
		name    string
		final   bool // observe --final: a summary is asked
		replies []fakeproto.Reply
		stored  []string // type|title, in order
		summary bool     // a summary was stored
		runs    []string // verdict reasons/events of each run
		states  map[string]int
	}{
		{"several observations", false, []fakeproto.Reply{reply(full + "\n" + second)},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong", "decision|Ledger entries are append-only"}, false,
			[]string{"stored/4"}, map[string]int{"done": 4}},
		{"truncated at the output limit: complete kept, the rest re-run in halves", false, []fakeproto.Reply{
			{Text: full + cutObs, Cut: true}, reply(second), reply(obsXML("change", "Second half"))},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong", "decision|Ledger entries are append-only", "change|Second half"}, false,
			[]string{"salvaged truncated/4", "stored/2", "stored/2"}, map[string]int{"done": 4}},
		{"cut at the output limit and continued by the CLI: the parts joined", false, []fakeproto.Reply{
			{Text: full + "\n<observation><type>decision</type><title>Ledger entries", Continue: []string{" are append-only</title></observation>"}}},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong", "decision|Ledger entries are append-only"}, false,
			[]string{"stored/4"}, map[string]int{"done": 4}},
		{"truncated with nothing complete", false, []fakeproto.Reply{
			{Text: cutObs, Cut: true}, reply(full), reply(second)},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong", "decision|Ledger entries are append-only"}, false,
			[]string{"unusable truncated/4", "stored/2", "stored/2"}, map[string]int{"done": 4}},
		{"prose only: retried, attempt counted", false, []fakeproto.Reply{reply("I reviewed the session and nothing stands out.")},
			nil, false, []string{"unusable prose_only/4"}, map[string]int{"pending": 4}},
		{"empty answer: retried", false, []fakeproto.Reply{reply("")},
			nil, false, []string{"unusable empty/4"}, map[string]int{"pending": 4}},
		{"prose around XML", false, []fakeproto.Reply{reply("Here is what I found:\n" + full + "\nLet me know if you need more.")},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong"}, false, []string{"salvaged prose_around/4"}, map[string]int{"done": 4}},
		{"XML in a code fence", false, []fakeproto.Reply{reply("```xml\n" + full + "\n```")},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong"}, false, []string{"salvaged code_fence/4"}, map[string]int{"done": 4}},
		{"unknown type mapped to the nearest", false, []fakeproto.Reply{reply(obsXML("enhancement", "Search got filters") + obsXML("gotcha", "Odd"))},
			[]string{"feature|Search got filters", "change|Odd"}, false, []string{"salvaged unknown_type/4"}, map[string]int{"done": 4}},
		{"missing title", false, []fakeproto.Reply{reply("<observation><type>bugfix</type><subtitle>Refund rounding fixed</subtitle></observation>")},
			[]string{"bugfix|Refund rounding fixed"}, false, []string{"salvaged missing_title/4"}, map[string]int{"done": 4}},
		{"entities and CDATA", false, []fakeproto.Reply{reply("<observation><type>discovery</type><title>Map&lt;K, V&gt; &amp; co</title>" +
			"<narrative><![CDATA[a </narrative> in CDATA]]></narrative></observation>")},
			[]string{"discovery|Map<K, V> & co"}, false, []string{"stored/4"}, map[string]int{"done": 4}},
		{"explicit skip", false, []fakeproto.Reply{reply(`<skip reason="only routine reads"/>`)},
			nil, false, []string{"skipped/4"}, map[string]int{"done": 4}},
		{"a summary where observations were asked", false, []fakeproto.Reply{reply("<summary><request>fix refunds</request><completed>done</completed></summary>")},
			nil, true, []string{"salvaged summary_unasked/4"}, map[string]int{"done": 4}},
		{"observations where a summary was asked", true, []fakeproto.Reply{reply(full)},
			[]string{"bugfix|Refunds rounded zero-decimal currencies wrong"}, false, []string{"salvaged summary_missing/4"}, map[string]int{"done": 4}},
		{"invalid UTF-8", false, []fakeproto.Reply{{Text: "<observation><type>change</type><title>caf", Raw: []byte("\xe9 \xff menu</title></observation>")}},
			[]string{"change|caf\uFFFD \uFFFD menu"}, false, []string{"salvaged invalid_utf8/4"}, map[string]int{"done": 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
			h.scriptAnswers(tc.replies...)
			sid := "shape"
			for i := range 4 {
				h.toolUse(sid, fmt.Sprintf("go test ./refunds -run Case%d", i))
			}
			args := []string{"observe", "--session", sid}
			if tc.final {
				args = append(args, "--final")
			}
			if r := h.runIn(h.work, nil, nil, args...); r.code != 0 {
				t.Fatalf("observe: exit %d, stderr %q", r.code, r.stderr)
			}
			if got := h.typedObservations(); !slices.Equal(got, tc.stored) {
				t.Errorf("stored %q, want %q", got, tc.stored)
			}
			if n := h.count(`SELECT count(*) FROM summaries`); (n == 1) != tc.summary || n > 1 {
				t.Errorf("%d summaries stored, want summary %v", n, tc.summary)
			}
			var got []string
			for _, r := range h.answerRuns() {
				got = append(got, r.String())
			}
			if !slices.Equal(got, tc.runs) {
				t.Errorf("runs %q, want %q", got, tc.runs)
			}
			if st := h.states(sid); fmt.Sprint(st) != fmt.Sprint(tc.states) {
				t.Errorf("events %v, want %v", st, tc.states)
			}
			// Retried means: given back with an attempt counted (unusable), or re-run at
			// once in smaller batches with none (truncated).
			wantAttempts := 0
			if tc.states["pending"] > 0 {
				wantAttempts = 4
			}
			if n := h.count(`SELECT coalesce(sum(attempts), 0) FROM events`); n != wantAttempts {
				t.Errorf("attempts %d, want %d", n, wantAttempts)
			}
			if n := len(h.records()); n != len(tc.runs) {
				t.Errorf("%d observer runs, want %d", n, len(tc.runs))
			}
			if losses := h.silentLosses(tc.replies); len(losses) > 0 {
				t.Errorf("lost silently: %q", losses)
			}
		})
	}
}

// An unusable answer is retried by the next runs; after three it is failed (kept) and
// doctor shows it, with the unusable rate over 5% as a finding; an answer that then works
// completes the events. Control: a day of good answers has no finding.
func TestAnswers_UnusableRetriedThenFailed_DoctorFinding(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	sid := "prose"
	h.toolUse(sid, "go vet ./...")
	h.scriptAnswers(reply(obsXML("change", "Vet is clean")))
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	if d, _ := h.doctor(nil); slices.ContainsFunc(d.Findings, func(f string) bool { return strings.Contains(f, "unusable") }) {
		t.Fatalf("a day of good answers has an unusable finding: %q", d.Findings)
	}
	h.toolUse(sid, "go build ./...")
	h.scriptAnswers(reply("Looks fine."), reply("Still fine."), reply("Fine."))
	for range 3 {
		if r := h.observe(sid, nil); r.code != 0 {
			t.Fatalf("observe: %+v", r)
		}
	}
	if st := h.states(sid); st["failed"] != 1 || st["done"] != 1 {
		t.Fatalf("events %v, want the prose-answered one failed after 3 attempts", st)
	}
	d, r := h.doctor(nil)
	if !slices.ContainsFunc(d.Findings, func(f string) bool {
		return strings.Contains(f, "3 of 4 observer answers today were unusable (75%)") && strings.Contains(f, "prose_only 3")
	}) {
		t.Errorf("doctor findings %q, want the unusable rate with its reasons\n%s", d.Findings, r.stdout)
	}
	st := h.stats("--days", "1")
	if got := fmt.Sprint(st.Total.Answers); got != "map[salvaged:0 skipped:0 stored:1 unusable:3]" {
		t.Errorf("hook stats answers %s", got)
	}
	if got := fmt.Sprint(st.Total.Reasons); got != "map[unusable:map[prose_only:3]]" {
		t.Errorf("hook stats reasons %s", got)
	}
	if tbl := h.runIn(h.work, nil, nil, "stats"); !strings.Contains(tbl.stdout, "unusable: prose_only 3") {
		t.Errorf("hook stats table lacks the reasons:\n%s", tbl.stdout)
	}
}

// A scripted day of 40 batches (8 sessions, 3 new events each batch, one `hook observe`
// per batch) with a mix of the shapes a model returns (26 well-formed, 2 of them continued
// by the CLI after a cut; 3 prose around, 2 fenced, 2 unknown types, 1 missing title, 2
// given up at the output limit, 3 skips, 2 prose only, 1 invalid UTF-8): no answer is lost silently, every
// event ends done, and hook stats gives the count per verdict and reason.
func TestAnswers_ScriptedDay_NothingLostSilently(t *testing.T) {
	track(t)
	t.Parallel()
	h := newHarness(t)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	topics := strings.Fields("ledger refunds webhooks retries idempotency currency rounding payouts invoices taxes " +
		"ratelimit cache migrations indexes locking queue scheduler cron backoff tracing metrics alerts logging " +
		"config secrets rotation tokens sessions cookies cors csrf uploads thumbnails storage buckets cdn dns tls " +
		"healthchecks rollbacks canaries flags experiments")
	word := 0
	clean := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(obsXML([]string{"bugfix", "feature", "discovery", "decision", "change"}[word%5], "How "+topics[word%len(topics)]+" behave in run "+fmt.Sprint(word)))
			b.WriteString("\n")
			word++
		}
		return b.String()
	}
	// The mix: mostly well-formed answers; the rest the shapes models return in the field.
	shapes := map[int]func() fakeproto.Reply{}
	for _, i := range []int{3, 11, 27} {
		shapes[i] = func() fakeproto.Reply { return reply("Here is what I found:\n" + clean(2) + "That is all.") }
	}
	for _, i := range []int{5, 19} {
		shapes[i] = func() fakeproto.Reply { return reply("```xml\n" + clean(1) + "```") }
	}
	for _, i := range []int{7, 23} {
		shapes[i] = func() fakeproto.Reply {
			return reply(obsXML("enhancement", "Enhanced "+topics[word%len(topics)]+" handling "+fmt.Sprint(word)) + clean(1))
		}
	}
	shapes[13] = func() fakeproto.Reply {
		word++
		return reply("<observation><type>bugfix</type><subtitle>Fixed " + topics[word%len(topics)] + " " + fmt.Sprint(word) + "</subtitle></observation>")
	}
	for _, i := range []int{9, 21} {
		shapes[i] = func() fakeproto.Reply { return fakeproto.Reply{Text: clean(2) + cutObs, Cut: true} }
	}
	for _, i := range []int{4, 15, 29} {
		shapes[i] = func() fakeproto.Reply { return reply(`<skip reason="only routine reads"/>`) }
	}
	for _, i := range []int{6, 17} { // their sessions' next batches take the events again
		shapes[i] = func() fakeproto.Reply { return reply("The session ran some tests; nothing notable.") }
	}
	shapes[25] = func() fakeproto.Reply {
		word++
		return fakeproto.Reply{Text: "<observation><type>change</type><title>Caf", Raw: []byte(fmt.Sprintf("\xe9 menu %d\xff</title></observation>", word))}
	}

	for _, i := range []int{31, 35} { // cut and continued by the CLI: one answer in two parts
		shapes[i] = func() fakeproto.Reply {
			body := clean(2)
			return fakeproto.Reply{Text: body[:len(body)/2], Continue: []string{body[len(body)/2:]}}
		}
	}

	var given []fakeproto.Reply // what each invocation answered, in order
	seq := 0
	for i := range 40 {
		sid := fmt.Sprintf("day-%d", i%8)
		for range 3 {
			seq++
			h.toolUse(sid, fmt.Sprintf("go test ./pkg%d", seq))
		}
		first := fakeproto.Reply{Text: clean(1 + i%3)}
		if s, ok := shapes[i]; ok {
			first = s()
		}
		script := []fakeproto.Reply{first}
		for range 8 { // the re-runs of a cut answer
			script = append(script, fakeproto.Reply{Text: clean(1)})
		}
		before := len(h.records())
		h.scriptAnswers(script...)
		if r := h.observe(sid, nil); r.code != 0 {
			t.Fatalf("batch %d: observe exit %d, stderr %q", i, r.code, r.stderr)
		}
		given = append(given, script[:len(h.records())-before]...)
	}

	if losses := h.silentLosses(given); len(losses) > 0 {
		t.Errorf("lost silently: %q", losses)
	}
	st := h.states("")
	if st["done"] != 120 || len(st) != 1 {
		t.Errorf("events %v, want all 120 done", st)
	}
	rep := h.stats("--days", "1")
	tot := rep.Total
	if tot.Events != 120 {
		t.Errorf("hook stats counts %d events done, want 120 (none given back counted)", tot.Events)
	}
	if tot.Answered() != len(given) || tot.Runs != len(given) {
		t.Errorf("%d runs, %d answers counted, %d given", tot.Runs, tot.Answered(), len(given))
	}
	want := "map[salvaged:map[code_fence:2 invalid_utf8:1 missing_title:1 prose_around:3 truncated:2 unknown_type:2] unusable:map[prose_only:2]]"
	if got := fmt.Sprint(tot.Reasons); got != want {
		t.Errorf("reasons %s\nwant %s", got, want)
	}
	// Each cut batch of 3 events is run again as 3 batches of 1 (half of 3, rounded down).
	if len(given) != 40+2*3 {
		t.Errorf("%d answers, want 46: 40 batches and 3 re-runs of each of the 2 cut ones", len(given))
	}
	if got := fmt.Sprint(tot.Answers); got != "map[salvaged:11 skipped:3 stored:30 unusable:2]" {
		t.Errorf("answers %s", got)
	}
	t.Logf("hook stats:\n%s", h.runIn(h.work, nil, nil, "stats", "--days", "1").stdout)
	t.Logf("scripted day: %d batches, %d observer answers: %s; reasons %s; %d observations stored, %d duplicates, events %v; lost silently: %d",
		40, len(given), fmt.Sprint(tot.Answers), tot.ReasonsLine(), tot.Observations, tot.Duplicates, st, len(h.silentLosses(given)))
}

// Secrets a model writes that no captured text held: it decodes a base64 blob it read, and
// joins a token whose halves came in two events. ghpHalves are the two halves.
const (
	answerGitHub  = "ghp_AnswerGitHub0a1B2c3D4e5F6g7H8i9J0kLmN"
	answerAWSID   = "AKIAANSWERDECODE7Q2W"
	answerAWSKey  = "AnswerAwsSecret/K7MDENG+bPxRfiCY0123456789"
	answerJWT     = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbnN3ZXIifQ.AnswerJwtSig_4kT9mW2xQ7vB5nL8pR3sY6"
	answerJoined  = "ghp_JoinedHalvesX0a1B2c3D4e5F6g7H8i9J0kLm"
	answerJoinedA = "JoinedHalvesX0a1B2c3D4e5F6" // what the events held: halves no rule takes
	answerJoinedB = "g7H8i9J0kLm"
)

// answerSecrets are the byte strings no sink may hold.
var answerSecrets = []string{answerGitHub, answerAWSID, answerAWSKey, answerJWT, answerJoined}

// leakyAnswer is an answer with a secret in every field of an observation and a summary.
func leakyAnswer() string {
	return "<observation><type>discovery</type><title>Deploy token " + answerGitHub + "</title>" +
		"<subtitle>joined: " + answerJoined + "</subtitle>" +
		"<facts><fact>decoded key id " + answerAWSID + "</fact><fact>aws_secret_access_key = " + answerAWSKey + "</fact></facts>" +
		"<narrative>The config decodes to aws_secret_access_key=" + answerAWSKey + " and the session uses " + answerJWT + ".</narrative>" +
		"<concepts><concept>" + answerGitHub + "</concept></concepts>" +
		"<files_read><file>/tmp/" + answerJWT + "</file></files_read><files_modified><file>" + answerJoined + "</file></files_modified>" +
		"</observation>" +
		"<summary><request>Rotate " + answerGitHub + "</request><investigated>" + answerJoined + "</investigated>" +
		"<learned>" + answerJWT + "</learned><completed>aws_secret_access_key: " + answerAWSKey + "</completed>" +
		"<next_steps>revoke " + answerAWSID + "</next_steps><notes>token " + answerGitHub + "</notes></summary>"
}

// answerSinks runs one session whose observer answers leakyAnswer, then a second batch, and
// returns every byte each sink holds: the database and its WAL (read raw), search, export,
// MCP get_observations and search, and the second batch's stdin (its earlier titles).
func answerSinks(t *testing.T, env map[string]string) (sinks map[string]string, redactions int) {
	t.Helper()
	h := newHarness(t)
	lineageTerminal.setup(h)
	h.env["CLAUDE_CODE_OAUTH_TOKEN"] = secretEnvToken
	for k, v := range env {
		h.env[k] = v
	}
	sid := "answer-leak"
	h.prompt(sid, "Rotate the deploy token")
	h.toolUse(sid, "echo "+answerJoinedA)
	h.toolUse(sid, "echo "+answerJoinedB)
	h.scriptAnswers(reply(leakyAnswer()), reply(obsXML("change", "Second batch")+"<summary><request>push</request></summary>"))
	if r := h.observe(sid, nil); r.code != 0 {
		t.Fatalf("observe exit %d: %s", r.code, r.stderr)
	}
	h.toolUse(sid, "git push")
	if r := h.runIn(h.work, nil, nil, "observe", "--session", sid, "--final"); r.code != 0 {
		t.Fatalf("final observe exit %d: %s", r.code, r.stderr)
	}
	recs := h.records()
	if len(recs) != 2 {
		t.Fatalf("%d observer runs, want 2", len(recs))
	}
	if n := h.count(`SELECT count(*) FROM summaries`) + h.count(`SELECT count(*) FROM observations`); n < 3 {
		t.Fatalf("%d rows stored, want the leaky observation and summary and the second batch's", n)
	}
	sinks = map[string]string{"second batch's stdin": recs[1].Stdin}
	for _, f := range []string{"claude-mem.db", "claude-mem.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(h.data, f))
		sinks[f] = string(b)
	}
	sinks["search"] = h.runIn(h.work, nil, nil, "search", "--json", "deploy").stdout
	sinks["export"] = h.runIn(h.work, nil, nil, "export").stdout
	s := h.startMCP(h.work, nil)
	sinks["mcp"] = s.call("search", map[string]any{"query": "token"}) + s.call("get_observations", map[string]any{"ids": []int{1, 2, 3}})
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	return sinks, h.stats().Total.Redactions
}

// TestAnswers_ObserverAnswerRedactedBeforeStored: an answer holding a GitHub token, a
// decoded AWS key pair, a JWT and a token joined from two events' halves, in every field
// of an observation and a summary, leaves none of them in the database or its WAL, search,
// export, MCP or the next batch's prompt, and the redactions are counted; with
// CLAUDE_MEM_REDACT_SECRETS=false every sink holds them (the control).
func TestAnswers_ObserverAnswerRedactedBeforeStored(t *testing.T) {
	track(t)
	t.Parallel()
	for _, redactOn := range []bool{true, false} {
		env := map[string]string{}
		if !redactOn {
			env["CLAUDE_MEM_REDACT_SECRETS"] = "false"
		}
		sinks, counted := answerSinks(t, env)
		leaks, cells := 0, 0
		for name, b := range sinks {
			held := 0
			for _, s := range answerSecrets {
				cells++
				if strings.Contains(b, s) {
					held++
					if redactOn {
						t.Errorf("%s holds %q", name, s)
					}
				}
			}
			leaks += held
			// The control: each sink shows what it was given (the WAL may be checkpointed
			// into the file; the next batch is shown the title alone).
			want := 1
			switch name {
			case "claude-mem.db":
				want = len(answerSecrets)
			case "claude-mem.db-wal":
				want = 0
			}
			if !redactOn && held < want {
				t.Errorf("control: %s holds %d of the secrets with redaction off, want %d: the check there cannot fail", name, held, want)
			}
		}
		t.Logf("redaction %v: %d of %d sink×secret cells hold the secret; %d redactions counted", redactOn, leaks, cells, counted)
		if redactOn && counted < 15 {
			t.Errorf("%d redactions counted, want the answer's 15 at least", counted)
		} else if !redactOn && counted != 0 {
			t.Errorf("control: %d redactions counted with redaction off", counted)
		}
	}
}
