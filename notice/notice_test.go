package notice

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/budget"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/health"
	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
)

const hook = "/home/u/.claude/plugins/cache/claude-mem/bin/hook"

func TestNoticeTexts(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{
			"setup not found", SetupNotFound(hook),
			"claude-mem: setup required — claude CLI not found (set CLAUDE_MEM_CLAUDE_PATH or install Claude Code; details: /home/u/.claude/plugins/cache/claude-mem/bin/hook doctor)",
		},
		{
			"setup unspawnable", SetupUnspawnable("/usr/local/bin/claude", "permission denied", hook),
			"claude-mem: setup required — claude CLI at /usr/local/bin/claude cannot be started: permission denied (details: /home/u/.claude/plugins/cache/claude-mem/bin/hook doctor)",
		},
		{
			"auth failed", AuthFailed("credentials", "credentials.json token expired 2026-11-29 10:00; open Claude Code to refresh your login", hook),
			"claude-mem: auth failed — credentials: credentials.json token expired 2026-11-29 10:00; open Claude Code to refresh your login; observations paused, nothing lost (details: /home/u/.claude/plugins/cache/claude-mem/bin/hook doctor)",
		},
		{
			"settings error", SettingsError("CLAUDE_MEM_MAX_CONCURRENT_AGENTS", "abc", "not a whole number", "2"),
			"claude-mem: settings error — CLAUDE_MEM_MAX_CONCURRENT_AGENTS=abc: not a whole number; using 2",
		},
		{
			"memory unavailable", MemoryUnavailable("open claude-mem.db: database is locked", hook),
			"claude-mem: memory unavailable — open claude-mem.db: database is locked (details: /home/u/.claude/plugins/cache/claude-mem/bin/hook doctor)",
		},
		{
			"multi-line reason folded", AuthFailed("apiKeyHelper", "helper exited 1:\n  error: no key\r\n\n", "/bin/hook"),
			"claude-mem: auth failed — apiKeyHelper: helper exited 1: error: no key; observations paused, nothing lost (details: /bin/hook doctor)",
		},
		{
			"multi-line settings value folded", SettingsError("CLAUDE_MEM_MODEL", "a\nb", "bad", "haiku"),
			"claude-mem: settings error — CLAUDE_MEM_MODEL=a b: bad; using haiku",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", tt.got, tt.want)
			}
		})
	}
}

func TestCollect(t *testing.T) {
	notFound := &claudebin.NotFoundError{Probed: []claudebin.Probe{{Path: "/usr/local/bin/claude", Reason: "not found"}}}
	unspawnable := &claudebin.UnspawnableError{Path: "/opt/claude", Err: fs.ErrPermission}
	namedBySetting := &claudebin.UnspawnableError{Path: "/x/claude", Setting: claudebin.ViaClaudeMemPath, Err: errors.New("is a directory")}
	authFailed := health.Health{Auth: health.Auth{State: "failed", Source: "credentials", Reason: "token expired"}}
	staleSetup := health.Health{Setup: health.Setup{State: "required", Reason: "claude CLI not found"}}
	badAgents := &settings.Error{Key: "CLAUDE_MEM_MAX_CONCURRENT_AGENTS", Value: "abc", Problem: "not a whole number", Default: "2"}
	badTimeout := &settings.Error{Key: "CLAUDE_MEM_OBSERVER_TIMEOUT", Value: "5m", Problem: "not a whole number", Default: "300"}

	lineNotFound := SetupNotFound(hook)
	lineUnspawnable := SetupUnspawnable("/opt/claude", "permission denied", hook)
	lineAuth := AuthFailed("credentials", "token expired", hook)
	lineAgents := SettingsError("CLAUDE_MEM_MAX_CONCURRENT_AGENTS", "abc", "not a whole number", "2")
	lineTimeout := SettingsError("CLAUDE_MEM_OBSERVER_TIMEOUT", "5m", "not a whole number", "300")
	lineStore := MemoryUnavailable("database disk image is malformed", hook)

	tests := []struct {
		name string
		in   Inputs
		want []string
	}{
		{name: "all well", in: Inputs{ObserverEnabled: true}},
		{name: "not found", in: Inputs{ObserverEnabled: true, Binary: notFound}, want: []string{lineNotFound}},
		{name: "wrapped not found", in: Inputs{ObserverEnabled: true, Binary: fmt.Errorf("resolve: %w", notFound)}, want: []string{lineNotFound}},
		{name: "unspawnable", in: Inputs{ObserverEnabled: true, Binary: unspawnable}, want: []string{lineUnspawnable}},
		{
			name: "unspawnable named by a setting", in: Inputs{ObserverEnabled: true, Binary: namedBySetting},
			want: []string{SetupUnspawnable("/x/claude", "is a directory (set by CLAUDE_MEM_CLAUDE_PATH)", hook)},
		},
		{
			name: "untyped binary error", in: Inputs{ObserverEnabled: true, Binary: errors.New("stat ~/.local/bin: input/output error")},
			want: []string{"claude-mem: setup required — stat ~/.local/bin: input/output error (details: " + hook + " doctor)"},
		},
		{name: "stale health setup, binary found live: cleared", in: Inputs{ObserverEnabled: true, Health: staleSetup}},
		{name: "live check wins over health setup", in: Inputs{ObserverEnabled: true, Binary: unspawnable, Health: staleSetup}, want: []string{lineUnspawnable}},
		{name: "auth failed", in: Inputs{ObserverEnabled: true, Health: authFailed}, want: []string{lineAuth}},
		{
			name: "auth failed without source or reason", in: Inputs{ObserverEnabled: true, Health: health.Health{Auth: health.Auth{State: "failed"}}},
			want: []string{AuthFailed("no usable source", "unknown reason", hook)},
		},
		{name: "auth ok", in: Inputs{ObserverEnabled: true, Health: health.Health{Auth: health.Auth{State: "ok", Reason: "old failure"}}}},
		{name: "auth unknown", in: Inputs{ObserverEnabled: true, Health: health.Health{Auth: health.Auth{State: "unknown"}}}},
		{
			name: "settings errors in key order, deduplicated, nil skipped",
			in:   Inputs{ObserverEnabled: true, SettingsErrors: []*settings.Error{badTimeout, nil, badAgents, badTimeout}},
			want: []string{lineAgents, lineTimeout},
		},
		{name: "store error", in: Inputs{ObserverEnabled: true, StoreErr: errors.New("database disk image is malformed")}, want: []string{lineStore}},
		{
			name: "everything, most severe first",
			in: Inputs{
				ObserverEnabled: true, Binary: notFound, Health: authFailed,
				SettingsErrors: []*settings.Error{badTimeout, badAgents}, StoreErr: errors.New("database disk image is malformed"),
			},
			want: []string{lineStore, lineNotFound, lineAuth, lineAgents, lineTimeout},
		},
		{
			name: "observer off: no setup or auth, settings and memory still",
			in: Inputs{
				ObserverEnabled: false, Binary: notFound, Health: authFailed,
				SettingsErrors: []*settings.Error{badAgents}, StoreErr: errors.New("database disk image is malformed"),
			},
			want: []string{lineStore, lineAgents},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Hook = hook
			if got := Collect(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Collect =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSystemMessage(t *testing.T) {
	loaded := "claude-mem: 3 observations from 1 session of web loaded"
	tests := []struct {
		notices []string
		loaded  string
		want    string
	}{
		{nil, "", ""},
		{[]string{}, "", ""},
		{[]string{"a"}, "", "a"},
		{[]string{"a", "b"}, "", "a\nb"},
		{nil, loaded, loaded},
		{[]string{"a", "b"}, loaded, "a\nb\n" + loaded}, // problems first, the loaded line last
	}
	for _, tt := range tests {
		notices := slices.Clip(slices.Clone(tt.notices))
		if got := SystemMessage(notices, tt.loaded); got != tt.want {
			t.Errorf("SystemMessage(%q, %q) = %q, want %q", tt.notices, tt.loaded, got, tt.want)
		}
		if !slices.Equal(notices, tt.notices) {
			t.Errorf("SystemMessage changed its notices to %q", notices)
		}
	}
}

func TestSettingsErrorNeverShowsACredential(t *testing.T) {
	line := SettingsError("CLAUDE_MEM_AUTH_SOURCE", "sk-ant-api03-PASTEDINTOTHEWRONGKEY", "must be one of auto, env", "auto")
	if strings.Contains(line, "PASTEDINTOTHEWRONGKEY") {
		t.Fatalf("settings error notice shows the credential: %s", line)
	}
}

// TestNoticesScrubEveryValue: a reason quoting any secret shape reaches no notice.
func TestNoticesScrubEveryValue(t *testing.T) {
	cs := redacttest.Diagnostic()
	var all []string
	for _, c := range cs {
		all = append(all, AuthFailed("env", c.Text, hook), SetupUnspawnable(c.Text, c.Text, hook),
			SettingsError("CLAUDE_MEM_MODEL", c.Text, c.Text, "haiku"), MemoryUnavailable(c.Text, hook))
	}
	if leaks := redacttest.Leaks([]byte(strings.Join(all, "\n")), cs); len(leaks) > 0 {
		t.Errorf("notices hold %d canaries, e.g. %+v", len(leaks), leaks[0])
	}
}

func TestBudgetNotice(t *testing.T) {
	until := time.Date(2026, 12, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))
	in := Inputs{Hook: "/p/bin/hook", ObserverEnabled: true, Budget: budget.Budget{Spent: 5.004, Limit: 5, Until: until}}
	want := "claude-mem: observer budget reached — $5.00 of $5.00 today; observations paused until 2026-12-01 00:00 CET, nothing lost (details: /p/bin/hook doctor)"
	if got := Collect(in); len(got) != 1 || got[0] != want {
		t.Fatalf("notices %q\nwant %q", got, want)
	}
	in.Budget.Spent = 4.99 // under the budget, and the next day's zero: no notice
	if got := Collect(in); len(got) != 0 {
		t.Fatalf("under budget: %q", got)
	}
}

// TestRefusedNotice: a data dir, or a file in it, that another user could have written is
// one Refused line with its fix, in place of "memory unavailable" or "settings error"; the
// control is the same errors without a refusal, said as before.
func TestRefusedNotice(t *testing.T) {
	dir := &private.Error{Path: "/shared/claude-mem", Problem: "writable by group or others (mode 0777)", Fix: "chmod 700 /shared/claude-mem"}
	want := "claude-mem: refused /shared/claude-mem — writable by group or others (mode 0777); another user could have written it, so nothing in it is read or run (fix: chmod 700 /shared/claude-mem; details: " + hook + " doctor)"
	if got := Refused(dir, hook); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	file := &private.Error{Path: "/d/settings.json", Problem: "owned by uid 65534, not by you (uid 1000)", Fix: "rm /d/settings.json"}
	got := Collect(Inputs{
		Hook:     hook,
		StoreErr: fmt.Errorf("store: database unavailable: %w", dir),
		SettingsErrors: []*settings.Error{
			{Key: "settings.json", Value: file.Path, Problem: file.Error(), Default: "defaults for every key", Err: file},
			{Key: "settings.json", Value: file.Path, Problem: file.Error(), Default: "defaults for every key", Err: file},
		},
	})
	if len(got) != 2 || got[0] != want || got[1] != Refused(file, hook) {
		t.Fatalf("got %q", got)
	}
	control := Collect(Inputs{
		Hook: hook, StoreErr: errors.New("disk I/O error"),
		SettingsErrors: []*settings.Error{{Key: "settings.json", Value: file.Path, Problem: "not a JSON object", Default: "defaults for every key"}},
	})
	if len(control) != 2 || !strings.HasPrefix(control[0], "claude-mem: memory unavailable") || !strings.HasPrefix(control[1], "claude-mem: settings error") {
		t.Fatalf("control: %q", control)
	}
}

// A sync failing for a day is one line, whatever the observer does; its message is one
// line, scrubbed, even when the server's text is not (a server's error is not ours).
func TestCollectSync(t *testing.T) {
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	failing := &health.Sync{Server: "db.example/mem", LastError: "FATAL:\nrole \"bob\" sk-ant-api03-" + strings.Repeat("a", 90),
		LastErrorKind: "auth", FailingSince: now.Add(-25 * time.Hour), LastErrorAt: now}
	for _, c := range []struct {
		name string
		s    *health.Sync
		want bool
	}{{"failing a day", failing, true}, {"never synced", nil, false}, {"failing an hour", &health.Sync{Server: "s", LastError: "x", FailingSince: now.Add(-time.Hour)}, false}} {
		lines := Collect(Inputs{Now: now, Health: health.Health{Sync: c.s}})
		got := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "sync with") })
		if (got >= 0) != c.want {
			t.Fatalf("%s: %q", c.name, lines)
		}
		if got >= 0 && (strings.Contains(lines[got], "\n") || strings.Contains(lines[got], "aaaaaaaaaa")) {
			t.Fatalf("%s: the line is not one scrubbed line: %q", c.name, lines[got])
		}
	}
}
