package doctor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/journal"
	"github.com/claude-mem/claude-mem-go/memory"
	"github.com/claude-mem/claude-mem-go/observer/spawn"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/stats"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// A healthy setup has no findings, and --json says so with an empty list, not null.
func TestFindingsAreAnEmptyListWhenAllIsWell(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		key        string
		wantOK     bool
		wantFindsN bool
	}{
		{"healthy", "sk-ant-api03-doctor-test-key-0000000000", true, false},
		{"control: no credential", "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := settings.Env{"HOME": dir, "CLAUDE_MEM_DATA_DIR": filepath.Join(t.TempDir(), "data"), "CLAUDE_MEM_CLAUDE_PATH": claude, "PATH": ""}
			if tc.key != "" {
				env["ANTHROPIC_API_KEY"] = tc.key
			}
			s, err := settings.Load(env, filepath.Join(dir, "xdg"), runtime.GOOS)
			if err != nil {
				t.Fatal(err)
			}
			r := Build(context.Background(), Inputs{
				Version: "test", Hook: "/x/bin/hook", Settings: s, Memory: memory.Memory{DataDir: s.DataDir}, Env: env, GOOS: runtime.GOOS, Home: dir,
				Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
			})
			b, _ := json.Marshal(r)
			if r.OK != tc.wantOK {
				t.Fatalf("ok = %v, want %v; findings %q", r.OK, tc.wantOK, r.Findings)
			}
			if tc.wantFindsN != (len(r.Findings) > 0) {
				t.Fatalf("findings %q", r.Findings)
			}
			if strings.Contains(string(b), `"findings":null`) {
				t.Fatalf("findings is null in %s", b)
			}
		})
	}
}

// TestOutputScrubbed: the human and the JSON report hold no secret shape, whichever field
// carries it, and the JSON stays valid.
func TestOutputScrubbed(t *testing.T) {
	cs := redacttest.Diagnostic()
	r := &Report{Version: "test", Findings: []string{}}
	for _, c := range cs {
		r.Findings = append(r.Findings, c.Text)
		r.Settings = append(r.Settings, settings.Value{Key: "CLAUDE_MEM_MODEL", Value: c.Text})
	}
	r.Auth.Error = cs[0].Text
	var human, js bytes.Buffer
	Render(&human, r, true, 100)
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string][]byte{"human": human.Bytes(), "json": js.Bytes()} {
		if leaks := redacttest.Leaks(out, cs); len(leaks) > 0 {
			t.Errorf("%s report holds %d canaries, e.g. %+v", name, len(leaks), leaks[0])
		}
	}
	if !json.Valid(js.Bytes()) {
		t.Errorf("scrubbing broke the JSON:\n%s", js.Bytes())
	}
	// The value itself, as the viewer renders it.
	r.scrub()
	b, _ := json.Marshal(r)
	if leaks := redacttest.Leaks([]byte(fmt.Sprintf("%+v %s", r, b)), cs); len(leaks) > 0 {
		t.Errorf("the scrubbed report value holds %d canaries, e.g. %+v", len(leaks), leaks[0])
	}
}

// The plugin section: each registry state gives its finding with the fixing command, and
// fails doctor for not installed (only when this binary is part of a plugin dir Claude
// Code is not running it from), disabled, a missing marketplace and memory tools not
// allowed; a different build and tools the user denied are findings that do not fail.
func TestPluginFindings(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name        string
		installed   bool
		enabled     bool
		marketGone  bool
		otherBuild  bool
		pluginEnv   bool   // run by Claude Code (CLAUDE_PLUGIN_ROOT set)
		tools       string // the settings' permissions ("" allows the memory tools)
		wantFailed  bool
		wantFinding string
	}{
		{"not installed", false, false, false, false, false, "", true, "plugin not installed in Claude Code — run: claude plugin marketplace add PLUGIN && claude plugin install claude-mem@claude-mem-go"},
		{"not installed, but loaded by Claude Code (--plugin-dir)", false, false, false, false, true, "", false, ""},
		{"installed and enabled, this build", true, true, false, false, false, "", false, ""},
		{"disabled", true, false, false, false, false, "", false, "plugin installed but disabled; to turn it back on, run: claude plugin enable claude-mem@claude-mem-go"},
		{"marketplace dir gone", true, true, true, false, false, "", true, "marketplace claude-mem-go directory MARKET is gone (moved or deleted); run: claude plugin marketplace add PLUGIN"},
		{"memory tools not allowed", true, true, false, false, false, `{}`, true, "the memory tools are not allowed — Claude asks at every call (claude -p refuses them); run: PLUGIN/bin/hook allow-tools"},
		{"memory tools denied", true, true, false, false, false, `{"deny":["mcp__plugin_claude-mem_memory"]}`, false, "the memory tools are denied by permissions.deny"},
		{"another build", true, true, false, true, false, "", false, "Claude Code runs MARKET/bin/hook, a different build from this PLUGIN/bin/hook — run: claude plugin marketplace add PLUGIN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home, plugin, market := filepath.Join(dir, "home"), filepath.Join(dir, "plugin"), filepath.Join(dir, "market")
			write(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{}`)
			write(t, filepath.Join(plugin, "bin", "hook"), "BUILD-1")
			if !tc.marketGone {
				write(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), `{"plugins":[{"name":"claude-mem","source":"./"}]}`)
				write(t, filepath.Join(market, "bin", "hook"), map[bool]string{false: "BUILD-1", true: "BUILD-2"}[tc.otherBuild])
				// The other build is the older one here (TestNewerBuildInstalled: the newer).
				old := time.Now().Add(-time.Hour)
				os.Chtimes(filepath.Join(market, "bin", "hook"), old, old)
			}
			if tc.installed {
				write(t, filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), `{"version":2,"plugins":{"claude-mem@claude-mem-go":[{"scope":"user","installPath":"x","version":"1"}]}}`)
				write(t, filepath.Join(home, ".claude", "plugins", "known_marketplaces.json"), `{"claude-mem-go":{"source":{"source":"directory","path":"`+market+`"},"installLocation":"`+market+`"}}`)
				perms := tc.tools
				if perms == "" {
					perms = `{"allow":["mcp__plugin_claude-mem_memory"]}`
				}
				write(t, filepath.Join(home, ".claude", "settings.json"), fmt.Sprintf(`{"enabledPlugins":{"claude-mem@claude-mem-go":%v},"permissions":%s}`, tc.enabled, perms))
			}
			env := settings.Env{"HOME": home}
			if tc.pluginEnv {
				env["CLAUDE_PLUGIN_ROOT"] = plugin
			}
			p, findings, failed := checkPlugin(Inputs{Hook: filepath.Join(plugin, "bin", "hook"), PluginRoot: plugin, Env: env, Home: home})
			want := strings.NewReplacer("PLUGIN", plugin, "MARKET", market).Replace(tc.wantFinding)
			if failed != tc.wantFailed || (want == "") != (len(findings) == 0) || (want != "" && !strings.Contains(findings[0], want)) {
				t.Fatalf("failed %v findings %q; want failed %v and %q (%+v)", failed, findings, tc.wantFailed, want, p)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/.claude/plugins/bin/hook", "/home/u/.claude/plugins/bin/hook"},
		{"my-app_2.0", "my-app_2.0"},
		{"my app", "'my app'"},
		{"it's", `'it'\''s'`},
		{`C:\Users\u\hook.exe`, `'C:\Users\u\hook.exe'`},
		{"$(rm -rf)", "'$(rm -rf)'"},
		{"", "''"},
	}
	for _, tt := range tests {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// buildAt builds a report for env (which names the data dir) at 2026-11-30 10:00 UTC.
func buildAt(t *testing.T, env settings.Env) *Report {
	t.Helper()
	s, err := settings.Load(env, "", runtime.GOOS)
	if err != nil {
		t.Fatal(err)
	}
	return Build(context.Background(), Inputs{
		Version: "test", Hook: "/x/bin/hook", Settings: s, Memory: memory.Memory{DataDir: s.DataDir}, Env: env, GOOS: runtime.GOOS, Home: env["HOME"],
		Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
	})
}

// CLAUDE_MEM_REDACT_SECRETS=false is a warning finding that says how to turn it back on; it
// does not fail doctor (it is a choice), and its text survives the output's scrubbing.
func TestRedactSecretsOffIsAFinding(t *testing.T) {
	const want = "secrets in captured content are stored as is: CLAUDE_MEM_REDACT_SECRETS is false (set it to true, or remove it, to redact them again)"
	for _, off := range []bool{true, false} {
		dir := t.TempDir()
		env := settings.Env{"HOME": dir, envname.DataDir: filepath.Join(dir, "data"), "ANTHROPIC_API_KEY": "sk-ant-api03-doctor-test-key-0000000000",
			envname.MaxConcurrentAgents: "0"}
		if off {
			env[envname.RedactSecrets] = "false"
		}
		r := buildAt(t, env)
		var human, js bytes.Buffer
		Render(&human, r, true, 100)
		if err := JSON(&js, r); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"findings": strings.Join(r.Findings, "\n"), "human": unwrapped(human.String()), "json": js.String()} {
			if strings.Contains(out, want) != off {
				t.Errorf("redaction off=%v: %s holds the finding: %v, want %v\n%s", off, name, !off, off, out)
			}
		}
		if !r.OK {
			t.Errorf("redaction off=%v: doctor failed: %q", off, r.Findings)
		}
	}
}

// Today's and the last 7 local days' redaction counts per kind, from the redactions table:
// a day before the week and a day after today are not counted.
func TestRedactionCounts(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := settings.Env{"HOME": dir, envname.DataDir: data}
	if err := settings.EnsureDataDir(data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, settings.DBFile)
	db, err := memory.Memory{DataDir: data}.OpenWrite() // the schema
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	r := buildAt(t, env)
	var human bytes.Buffer
	Render(&human, r, false, 100)
	if r.Redacted == nil || !strings.Contains(human.String(), "\nredacted     today 0, 7 days 0\n") {
		t.Fatalf("no redactions yet: %+v\n%s", r.Redacted, human.String())
	}
	if strings.Contains(human.String(), "in memory stored before") {
		t.Errorf("an upgrade that found nothing is reported:\n%s", human.String())
	}

	sdb, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if _, err := sdb.Exec(`INSERT INTO redactions VALUES
		('2026-11-30', 'alpha', 'github', 1), ('2026-11-30', 'beta', 'github', 1), ('2026-11-30', 'alpha', 'jwt', 1),
		('2026-11-24', 'alpha', 'aws_secret', 4), ('2026-11-23', 'alpha', 'anthropic', 9), ('2026-12-01', 'alpha', 'slack', 7)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`INSERT INTO stored_redactions VALUES ('github', 5), ('slack', 1)`); err != nil {
		t.Fatal(err)
	}
	r = buildAt(t, env)
	human.Reset()
	Render(&human, r, false, 100)
	if want := "\nredacted     today 3 (github=2 jwt=1), 7 days 7 (github=2 aws_secret=4 jwt=1)\n" +
		"             and 6 (github=5 slack=1) in memory stored before (redacted by the upgrade)\n"; !strings.Contains(human.String(), want) {
		t.Errorf("human report lacks %q:\n%s", want, human.String())
	}
	var js bytes.Buffer
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Redacted map[string]map[string]int `json:"redacted"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{"today": {"github": 2, "jwt": 1}, "last_7_days": {"github": 2, "aws_secret": 4, "jwt": 1},
		"stored_memory": {"github": 5, "slack": 1}}
	if !reflect.DeepEqual(got.Redacted, want) {
		t.Errorf("JSON redacted = %v, want %v", got.Redacted, want)
	}
}

// The capture journal: doctor names its dirs, counts what waits, and turns a record stuck
// 10 minutes and a data dir under 64 MiB free into the SessionStart lines; a fresh record
// and a roomy disk are no finding (the control).
func TestJournalFindings(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		age         time.Duration
		free        uint64
		stuck, full bool
	}{
		{"fresh record, room", time.Minute, 1 << 30, false, false},
		{"stuck record", journal.StuckAfter, 1 << 30, true, false},
		{"disk full", time.Minute, 10 << 20, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			env := settings.Env{"HOME": dir, envname.DataDir: data, envname.MaxConcurrentAgents: "0"}
			s, err := settings.Load(env, "", runtime.GOOS)
			if err != nil {
				t.Fatal(err)
			}
			j := journal.New(data, "", filepath.Join(dir, "cache"), "", "", func() time.Time { return now.Add(-tc.age) })
			if _, err := j.Append(journal.Record{Kind: "prompt", Session: "s1", Project: "p", Text: "hi"}); err != nil {
				t.Fatal(err)
			}
			r := Build(context.Background(), Inputs{
				Version: "test", Hook: "/x/bin/hook", Settings: s, Memory: memory.Memory{DataDir: s.DataDir, Journal: j}, Env: env, GOOS: runtime.GOOS, Home: dir,
				Now:       func() time.Time { return now },
				FreeBytes: func(string) (uint64, error) { return tc.free, nil },
			})
			if r.Journal == nil || r.Journal.Records != 1 || r.Journal.Dir != j.Dir || len(r.Journal.FallbackDirs) != 1 {
				t.Fatalf("journal = %+v, want 1 record in %s with one fallback dir", r.Journal, j.Dir)
			}
			all := strings.Join(r.Findings, "\n")
			if got := strings.Contains(all, "claude-mem: events not stored — 1 waiting in the journal since "); got != tc.stuck {
				t.Errorf("events-not-stored finding %v, want %v: %q", got, tc.stuck, r.Findings)
			}
			if got := strings.Contains(all, "claude-mem: disk full — "+data+" has 10 MiB free"); got != tc.full {
				t.Errorf("disk-full finding %v, want %v: %q", got, tc.full, r.Findings)
			}
			var human bytes.Buffer
			Render(&human, r, false, 100)
			if !strings.Contains(human.String(), "journal      "+j.Dir+": 1 records waiting in 1 files") {
				t.Errorf("human report without the journal line:\n%s", human.String())
			}
		})
	}
}

// Doctor tells states apart: no credential at all is "not signed in yet", a setup step with
// what to do (ok false, not "auth failed"); a credential that exists and cannot be used is
// auth failed (the control). The summary fits a screen; --verbose adds the rest.
func TestSignedOutAndSummary(t *testing.T) {
	for _, tc := range []struct {
		name       string
		env        settings.Env
		wantFirst  string
		wantSigned bool
	}{
		{"no credential anywhere", settings.Env{}, "claude-mem test — not signed in yet: one setup step left", true},
		{"an expired login", settings.Env{"CLAUDE_MEM_AUTH_SOURCE": "credentials"}, "claude-mem test — PROBLEMS FOUND", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			claude := filepath.Join(dir, "bin", "claude")
			os.MkdirAll(filepath.Dir(claude), 0o755)
			os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755)
			env := settings.Env{"HOME": dir, envname.DataDir: filepath.Join(dir, "data"), "CLAUDE_MEM_CLAUDE_PATH": claude}
			for k, v := range tc.env {
				env[k] = v
			}
			r := buildAt(t, env)
			var human, verbose bytes.Buffer
			Render(&human, r, false, 100)
			Render(&verbose, r, true, 100)
			first, _, _ := strings.Cut(human.String(), "\n")
			if first != tc.wantFirst || r.OK || r.SignedOut != tc.wantSigned {
				t.Errorf("first line %q ok %v signed_out %v; want %q, false, %v\n%s", first, r.OK, r.SignedOut, tc.wantFirst, tc.wantSigned, human.String())
			}
			if signIn := strings.Contains(human.String(), "not signed in yet — "); signIn != tc.wantSigned || tc.wantSigned && strings.Contains(human.String(), "auth failed") {
				t.Errorf("the sign-in finding %v, want %v:\n%s", signIn, tc.wantSigned, human.String())
			}
			if n := strings.Count(human.String(), "\n"); n > 30 {
				t.Errorf("the summary is %d lines, want at most 30:\n%s", n, human.String())
			}
			if strings.Contains(human.String(), "CLAUDE_MEM_MODEL") || !strings.Contains(verbose.String(), "CLAUDE_MEM_MODEL") {
				t.Errorf("the settings table belongs to --verbose only")
			}
		})
	}
}

// An old copy's doctor that sees Claude Code run a newer build says so and advises nothing
// that would undo the update (re-pointing the marketplace to itself). The control is
// TestPluginFindings' "another build", an older one, whose fix is that command.
func TestNewerBuildInstalled(t *testing.T) {
	dir := t.TempDir()
	home, plugin, market := filepath.Join(dir, "home"), filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for path, content := range map[string]string{
		filepath.Join(plugin, ".claude-plugin", "plugin.json"):               `{}`,
		filepath.Join(plugin, "bin", "hook"):                                 "BUILD-1",
		filepath.Join(market, ".claude-plugin", "marketplace.json"):          `{"plugins":[{"name":"claude-mem","source":"./"}]}`,
		filepath.Join(market, "bin", "hook"):                                 "BUILD-2",
		filepath.Join(home, ".claude", "plugins", "installed_plugins.json"):  `{"version":2,"plugins":{"claude-mem@claude-mem-go":[{"scope":"user","installPath":"x","version":"1"}]}}`,
		filepath.Join(home, ".claude", "plugins", "known_marketplaces.json"): `{"claude-mem-go":{"source":{"source":"directory","path":"` + market + `"},"installLocation":"` + market + `"}}`,
		filepath.Join(home, ".claude", "settings.json"):                      `{"enabledPlugins":{"claude-mem@claude-mem-go":true},"permissions":{"allow":["mcp__plugin_claude-mem_memory"]}}`,
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o755)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(plugin, "bin", "hook"), old, old)
	p, findings, failed := checkPlugin(Inputs{Hook: filepath.Join(plugin, "bin", "hook"), PluginRoot: plugin, Env: settings.Env{"HOME": home}, Home: home})
	if failed || p.HookState != "newer" || len(findings) != 1 || !strings.Contains(findings[0], "a newer build than this") ||
		strings.Contains(findings[0], "marketplace add") {
		t.Errorf("failed %v state %q findings %q", failed, p.HookState, findings)
	}
}

// A day is a finding when more than 5% of its answers were unusable: 1 of 20 is not (the
// control), 2 of 20 is, named with its date, reasons and the fix for them; today says today.
func TestUnusableAnswersFinding(t *testing.T) {
	day := func(date string, unusable int, reasons map[string]int) stats.Row {
		return stats.Row{Day: date, Answers: map[vocab.Verdict]int{vocab.VerdictStored: 20 - unusable, vocab.VerdictUnusable: unusable},
			Reasons: map[vocab.Verdict]map[string]int{vocab.VerdictUnusable: reasons}}
	}
	got := unusableFindings([]stats.Row{
		day("2026-12-01", 1, map[string]int{"prose_only": 1}),
		day("2026-11-30", 2, map[string]int{"prose_only": 1, "empty": 1}),
		day("2026-11-29", 3, map[string]int{"truncated": 3}),
		{Day: "2026-11-28"}, // no answers
	}, "2026-11-30", "hook")
	if len(got) != 2 {
		t.Fatalf("findings %q, want two (1 of 20 is within 5%%)", got)
	}
	for i, want := range [][]string{
		{"2 of 20 observer answers today were unusable (10%): empty 1, prose_only 1", "set CLAUDE_MEM_MODEL to one that does", "`hook stats`"},
		{"3 of 20 observer answers on 2026-11-29 were unusable (15%): truncated 3", "CLAUDE_CODE_MAX_OUTPUT_TOKENS"},
	} {
		for _, w := range want {
			if !strings.Contains(got[i], w) {
				t.Errorf("finding %q lacks %q", got[i], w)
			}
		}
	}
}

// An answer the store could not take waits in a run whose process is gone: doctor is not
// ok and says how many events' answers wait, and "disk full" when the data dir is under
// journal.LowSpace free; a run without an answer is a finding that does not fail it, and
// none is one when nothing is stranded (the control).
func TestStrandedAnswersFinding(t *testing.T) {
	if _, err := spawn.SelfOwner(spawn.OSProcs{}); err != nil {
		t.Skipf("%s reads no process start times (%v): a lease is never judged gone here", runtime.GOOS, err)
	}
	for _, tc := range []struct {
		name     string
		answered bool
		free     uint64
		want     string
		ok       bool
	}{
		{"answer waits, disk full", true, 1 << 20, "2 events' answers wait to be stored: disk full (1 MiB free in ", false},
		{"answer waits, room", true, 1 << 30, "2 events' answers wait to be stored: the next observer run or SessionStart stores them", false},
		{"killed before its answer", false, 1 << 30, "2 events wait in observer runs whose process is gone; the next SessionStart or observer run requeues them", true},
		{"control: nothing stranded", false, 1 << 30, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			env := settings.Env{"HOME": dir, envname.DataDir: data, "ANTHROPIC_API_KEY": "sk-ant-api03-doctor-test-key-0000000000",
				envname.MaxConcurrentAgents: "0"}
			if err := settings.EnsureDataDir(data); err != nil {
				t.Fatal(err)
			}
			db, err := memory.Memory{DataDir: data}.OpenWrite()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			sess := store.Session{ID: "s", Project: "p"}
			for i := range 2 {
				e := store.Event{Hook: "PostToolUse", ToolName: "Bash", Input: `{"command":"ls"}`, At: at, RecordID: fmt.Sprint("e", i)}
				if _, err := db.Ingest(ctx, []store.Captured{{Kind: store.CaptureEvent, Session: sess, At: at, Event: e}}); err != nil {
					t.Fatal(err)
				}
			}
			run := spawn.NewRunID(at)
			if _, err := db.Claim(ctx, "s", run, 10, at); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if tc.want != "" {
				runDir, _ := spawn.RunDir(filepath.Join(data, settings.SessionsDir), run)
				if err := spawn.MakeRunDir(data, runDir); err != nil {
					t.Fatal(err)
				}
				host, _ := os.Hostname()
				// This process's pid under another start time: a pid reused since.
				if err := spawn.WriteOwner(runDir, spawn.Owner{Pid: os.Getpid(), Start: "another-start", Host: host}); err != nil {
					t.Fatal(err)
				}
				if tc.answered {
					os.WriteFile(filepath.Join(runDir, spawn.TranscriptFile), []byte(`{"type":"result","subtype":"success","is_error":false,"result":"<observation><title>t</title></observation>"}`+"\n"), 0o600)
				}
			}
			s, err := settings.Load(env, "", runtime.GOOS)
			if err != nil {
				t.Fatal(err)
			}
			r := Build(ctx, Inputs{Version: "test", Hook: "/x/bin/hook", Settings: s, Memory: memory.Memory{DataDir: s.DataDir}, Env: env, GOOS: runtime.GOOS, Home: dir,
				Now:       func() time.Time { return at.Add(time.Minute) },
				FreeBytes: func(string) (uint64, error) { return tc.free, nil }})
			found := ""
			for _, f := range r.Findings {
				if strings.Contains(f, "wait") && strings.Contains(f, "events") {
					found = f
				}
			}
			if tc.want == "" && found != "" || !strings.HasPrefix(found, tc.want) || r.OK != tc.ok {
				t.Errorf("ok %v, finding %q; want ok %v, %q…", r.OK, found, tc.ok, tc.want)
			}
		})
	}
}

// unwrapped is a rendered report with its lines joined and spaces collapsed: a finding
// wrapped at the width reads as one text again.
func unwrapped(s string) string { return strings.Join(strings.Fields(s), " ") }

// Sync's findings: a failed run is a problem with its fix, held-back records a note, a
// server set but never synced a note; the URL's password shows nowhere. Without a server
// (the control) doctor says nothing of sync, whatever health holds.
func TestSyncFindings(t *testing.T) {
	for _, on := range []bool{true, false} {
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		env := settings.Env{"HOME": dir, envname.DataDir: data, envname.MaxConcurrentAgents: "0"}
		if on {
			env[envname.SyncURL] = "postgres://bob:hunter2hunter2@db.example.com/mem"
		}
		if err := settings.EnsureDataDir(data); err != nil {
			t.Fatal(err)
		}
		r := buildAt(t, env)
		if got := strings.Contains(strings.Join(r.Findings, "\n"), "@db.example.com/mem has not run yet"); got != on {
			t.Fatalf("sync on=%v: never-run note %v: %q", on, got, r.Findings)
		}
		err := health.Update(data, time.Now(), func(h *health.Health) {
			h.Sync = &health.Sync{Server: "db.example.com/mem", LastError: "password authentication failed for user \"bob\"",
				LastErrorKind: "auth", LastErrorAt: time.Now(), FailingSince: time.Now(), Held: 3}
		})
		if err != nil {
			t.Fatal(err)
		}
		r = buildAt(t, env)
		var human bytes.Buffer
		Render(&human, r, true, 100)
		all := strings.Join(r.Findings, "\n")
		if got := r.Problems > 0 && strings.Contains(all, "sync with db.example.com/mem failed") && strings.Contains(all, "~/.pgpass"); got != on {
			t.Fatalf("sync on=%v: failure finding %v: %q", on, got, r.Findings)
		}
		if got := strings.Contains(all, "3 record(s) held back"); got != on {
			t.Fatalf("sync on=%v: held-back note %v", on, got)
		}
		if strings.Contains(human.String(), "hunter2") {
			t.Fatal("doctor shows the sync password")
		}
	}
}
