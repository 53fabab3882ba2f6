package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/private"
)

func load(t *testing.T, env Env, file, dotenv string) *Settings {
	t.Helper()
	dir := t.TempDir()
	env = copyEnv(env)
	env[envname.DataDir] = dir
	if file != "" {
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if dotenv != "" {
		if err := os.WriteFile(filepath.Join(dir, DotEnvFile), []byte(dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(env, "/unused", "linux")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func copyEnv(e Env) Env {
	out := Env{}
	for k, v := range e {
		out[k] = v
	}
	return out
}

func TestDefaults(t *testing.T) {
	s := load(t, nil, "", "")
	if len(s.Errors) != 0 {
		t.Fatalf("errors with defaults: %v", s.Errors)
	}
	if s.MaxConcurrentAgents != 2 || s.Model != "haiku" || s.AuthSource != "auto" || !s.PreserveProxy ||
		s.ContextObservations != 200 || s.ObserverTimeout != 300*time.Second || s.ObserverRetention != 50 || s.LogLevel != "info" ||
		!s.RedactSecrets || !s.LoadedMessage {
		t.Fatalf("defaults wrong: %+v", s)
	}
	if want := []string{"TodoWrite", "AskUserQuestion", "ListMcpResourcesTool", "Skill"}; !reflect.DeepEqual(s.SkipTools, want) {
		t.Fatalf("SkipTools = %v", s.SkipTools)
	}
	for _, v := range s.Values {
		if v.Origin != FromDefault {
			t.Errorf("%s origin %s", v.Key, v.Origin)
		}
	}
	if len(s.Values) != len(keys) {
		t.Fatalf("Values has %d keys, want %d", len(s.Values), len(keys))
	}
}

func TestStrictParsing(t *testing.T) {
	for _, tc := range []struct {
		key, val string
		bad      bool
		check    func(*Settings) bool
	}{
		{envname.MaxConcurrentAgents, "0", false, func(s *Settings) bool { return s.MaxConcurrentAgents == 0 }},
		{envname.MaxConcurrentAgents, " 3 ", false, func(s *Settings) bool { return s.MaxConcurrentAgents == 3 }},
		{envname.MaxConcurrentAgents, "abc", true, func(s *Settings) bool { return s.MaxConcurrentAgents == 2 }},
		{envname.MaxConcurrentAgents, "2.5", true, func(s *Settings) bool { return s.MaxConcurrentAgents == 2 }},
		{envname.MaxConcurrentAgents, "-1", true, func(s *Settings) bool { return s.MaxConcurrentAgents == 2 }},
		{envname.MaxConcurrentAgents, "", true, func(s *Settings) bool { return s.MaxConcurrentAgents == 2 }},
		{envname.ContextObservations, "0", false, func(s *Settings) bool { return s.ContextObservations == 0 }},
		{envname.ObserverTimeout, "0", true, func(s *Settings) bool { return s.ObserverTimeout == 300*time.Second }},
		{envname.ObserverTimeout, "45", false, func(s *Settings) bool { return s.ObserverTimeout == 45*time.Second }},
		{envname.ObserverRetention, "0", true, func(s *Settings) bool { return s.ObserverRetention == 50 }},
		// Upper bounds: 10000000000 s overflowed time.Duration into a negative timeout.
		{envname.ObserverTimeout, "10000000000", true, func(s *Settings) bool { return s.ObserverTimeout == 300*time.Second }},
		{envname.ObserverTimeout, "99999999999999999999", true, func(s *Settings) bool { return s.ObserverTimeout == 300*time.Second }},
		{envname.ObserverTimeout, "3600", false, func(s *Settings) bool { return s.ObserverTimeout == time.Hour }},
		{envname.ObserverTimeout, "3601", true, func(s *Settings) bool { return s.ObserverTimeout == 300*time.Second }},
		{envname.ObserverRetention, "10001", true, func(s *Settings) bool { return s.ObserverRetention == 50 }},
		{envname.MaxConcurrentAgents, "16", false, func(s *Settings) bool { return s.MaxConcurrentAgents == 16 }},
		{envname.MaxConcurrentAgents, "17", true, func(s *Settings) bool { return s.MaxConcurrentAgents == 2 }},
		{envname.ContextObservations, "1001", true, func(s *Settings) bool { return s.ContextObservations == 200 }},
		{envname.PreserveProxy, "false", false, func(s *Settings) bool { return !s.PreserveProxy }},
		{envname.PreserveProxy, "0", false, func(s *Settings) bool { return !s.PreserveProxy }},
		{envname.PreserveProxy, "maybe", true, func(s *Settings) bool { return s.PreserveProxy }},
		{envname.AuthSource, "keychain", false, func(s *Settings) bool { return s.AuthSource == "keychain" }},
		{envname.AuthSource, "APIKEY", false, func(s *Settings) bool { return s.AuthSource == "apiKey" }},
		{envname.AuthSource, "vault", true, func(s *Settings) bool { return s.AuthSource == "auto" }},
		{envname.LogLevel, "DEBUG", false, func(s *Settings) bool { return s.LogLevel == "debug" }},
		{envname.LogLevel, "loud", true, func(s *Settings) bool { return s.LogLevel == "info" }},
		{envname.Model, "", true, func(s *Settings) bool { return s.Model == "haiku" }},
		{envname.DailyBudgetUSD, "0", false, func(s *Settings) bool { return s.DailyBudgetUSD == 0 }},
		{envname.DailyBudgetUSD, "2.50", false, func(s *Settings) bool { return s.DailyBudgetUSD == 2.5 }},
		{envname.DailyBudgetUSD, "-1", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.DailyBudgetUSD, "NaN", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.DailyBudgetUSD, "Inf", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.DailyBudgetUSD, "1e3", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.DailyBudgetUSD, "$5", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.DailyBudgetUSD, "0x10", true, func(s *Settings) bool { return s.DailyBudgetUSD == 5 }},
		{envname.BatchEvents, "1", false, func(s *Settings) bool { return s.BatchEvents == 1 }},
		{envname.BatchEvents, "0", true, func(s *Settings) bool { return s.BatchEvents == 10 }},
		{envname.BatchWait, "0", false, func(s *Settings) bool { return s.BatchWait == 0 }},
		{envname.BatchWait, "1.5", true, func(s *Settings) bool { return s.BatchWait == 300*time.Second }},
		{envname.SkipSubagents, "true", false, func(s *Settings) bool { return s.SkipSubagents }},
		{envname.SkipSubagents, "sometimes", true, func(s *Settings) bool { return !s.SkipSubagents }},
		{envname.SystemPrompt, "false", false, func(s *Settings) bool { return !s.SystemPrompt }},
		{envname.RedactSecrets, "false", false, func(s *Settings) bool { return !s.RedactSecrets }},
		{envname.RedactSecrets, "off", false, func(s *Settings) bool { return !s.RedactSecrets }},
		{envname.RedactSecrets, "nah", true, func(s *Settings) bool { return s.RedactSecrets }},
		{envname.LoadedMessage, "false", false, func(s *Settings) bool { return !s.LoadedMessage }},
		{envname.LoadedMessage, "quiet", true, func(s *Settings) bool { return s.LoadedMessage }},
		{envname.SkipTools, "", false, func(s *Settings) bool { return len(s.SkipTools) == 0 }},
		{envname.PassEnv, "AWS_REGION, CLAUDE_CODE_USE_BEDROCK", false, func(s *Settings) bool {
			return reflect.DeepEqual(s.PassEnv, []string{"AWS_REGION", "CLAUDE_CODE_USE_BEDROCK"})
		}},
	} {
		t.Run(tc.key+"="+tc.val, func(t *testing.T) {
			s := load(t, Env{tc.key: tc.val}, "", "")
			if got := len(s.Errors) > 0; got != tc.bad {
				t.Fatalf("errors = %v, want bad=%v", s.Errors, tc.bad)
			}
			if tc.bad && (s.Errors[0].Key != tc.key || s.Errors[0].Value != tc.val) {
				t.Fatalf("error names %s=%q", s.Errors[0].Key, s.Errors[0].Value)
			}
			if !tc.check(s) {
				t.Fatalf("effective value wrong: %+v", s)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	s := load(t, Env{envname.MaxConcurrentAgents: "abc"}, "", "")
	if got, want := s.Errors[0].Error(), "CLAUDE_MEM_MAX_CONCURRENT_AGENTS=abc: not a whole number; using 2"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	for _, v := range s.Values {
		if v.Key == envname.MaxConcurrentAgents && (v.Value != "2" || v.Origin != FromDefault || v.Error != "CLAUDE_MEM_MAX_CONCURRENT_AGENTS=abc: not a whole number; using 2 (from env)") {
			t.Fatalf("doctor's value for a rejected setting: %+v (want the default in effect, and the error)", v)
		}
	}
}

func TestOrigins(t *testing.T) {
	s := load(t, Env{envname.Model: "sonnet"}, `{"CLAUDE_MEM_MODEL":"opus","CLAUDE_MEM_MAX_CONCURRENT_AGENTS":0,"CLAUDE_MEM_PRESERVE_PROXY":false}`, "")
	if s.Model != "sonnet" || s.MaxConcurrentAgents != 0 || s.PreserveProxy {
		t.Fatalf("%+v", s)
	}
	origins := map[string]Origin{}
	for _, v := range s.Values {
		origins[v.Key] = v.Origin
	}
	if origins[envname.Model] != FromEnv || origins[envname.MaxConcurrentAgents] != FromFile || origins[envname.LogLevel] != FromDefault {
		t.Fatalf("origins %v", origins)
	}
}

func TestBadSettingsFile(t *testing.T) {
	for _, body := range []string{`{not json`, `[1,2]`, `{"CLAUDE_MEM_MODEL":{"x":1}}`} {
		s := load(t, nil, body, "")
		if len(s.Errors) != 1 || s.Errors[0].Key != SettingsFile {
			t.Fatalf("%s: errors %v", body, s.Errors)
		}
		if s.Model != "haiku" {
			t.Fatalf("%s: a bad file must not be half applied", body)
		}
	}
}

func TestDotEnvAllowlist(t *testing.T) {
	s := load(t, nil, "", strings.Join([]string{
		"# comment",
		"export CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-abc",
		`HTTPS_PROXY="http://proxy:3128"`,
		"no_proxy=localhost # trailing comment",
		"PATH=/evil",
		"CLAUDE_MEM_MODEL=opus",
		"garbage line",
		"sk-ant-api03-PASTEDBYMISTAKE=x",
	}, "\n"))
	want := Env{"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-abc", "HTTPS_PROXY": "http://proxy:3128", "no_proxy": "localhost"}
	if !reflect.DeepEqual(s.DotEnv, want) {
		t.Fatalf("DotEnv = %v", s.DotEnv)
	}
	if !reflect.DeepEqual(s.DotEnvIgnored, []string{"(malformed line 8)", "CLAUDE_MEM_MODEL", "PATH"}) {
		t.Fatalf("ignored = %v", s.DotEnvIgnored)
	}
	if s.Model != "haiku" {
		t.Fatal(".env must not set claude-mem settings")
	}
}

func TestDataDir(t *testing.T) {
	home := Env{"HOME": "/home/u"}
	if d, err := DataDir(home, "/home/u/.local/share", "linux"); err != nil || d != "/home/u/.local/share/claude-mem" {
		t.Fatalf("%q %v", d, err)
	}
	if d, err := DataDir(Env{envname.DataDir: "/x/y/"}, "/home/u/.local/share", "linux"); err != nil || d != "/x/y" {
		t.Fatalf("%q %v", d, err)
	}
	if _, err := DataDir(Env{envname.DataDir: "rel/dir"}, "/h", "linux"); err == nil {
		t.Fatal("relative CLAUDE_MEM_DATA_DIR accepted")
	}
	s, err := Load(Env{envname.DataDir: "rel/dir", envname.Model: "opus"}, "/h", "linux")
	if err == nil || s == nil || s.DataDir != "" || s.Model != "opus" || s.MaxConcurrentAgents != 2 {
		t.Fatalf("Load with an unknown data dir: %+v %v", s, err)
	}
	if d, _ := DataDir(home, "/h", "linux"); strings.Contains(d, ".claude-mem") {
		t.Fatal("must never be the JavaScript claude-mem's dir")
	}
	if _, err := DataDir(Env{"HOME": "/home/u", envname.DataDir: "/home/u/.claude-mem/"}, "/h", "linux"); err == nil || !strings.Contains(err.Error(), "JavaScript claude-mem") {
		t.Fatalf("~/.claude-mem accepted: %v", err)
	}
}

// Without a usable home, xdg's data home is /.local/share: one dir shared by every process
// that has no HOME (cron, systemd units, containers). Refused, with the reason, unless
// CLAUDE_MEM_DATA_DIR or an absolute XDG_DATA_HOME says where the data goes.
func TestDataDirNeedsAHome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     Env
		xdg     string // what github.com/adrg/xdg computed from that environment
		goos    string
		want    string // the data dir, or "" when refused
		wantErr string
	}{
		{"HOME unset", Env{}, "/.local/share", "linux", "", "no data dir: HOME is unset and CLAUDE_MEM_DATA_DIR is not set"},
		{"HOME empty", Env{"HOME": ""}, "/.local/share", "linux", "", "no data dir: HOME is empty and CLAUDE_MEM_DATA_DIR is not set"},
		{"HOME /", Env{"HOME": "/"}, "/.local/share", "linux", "", `no data dir: HOME is "/" and CLAUDE_MEM_DATA_DIR is not set`},
		{"HOME //", Env{"HOME": "//"}, "/.local/share", "darwin", "", `no data dir: HOME is "//" and CLAUDE_MEM_DATA_DIR is not set`},
		{"windows: neither", Env{}, `C:\Users\u\AppData\Local`, "windows", "", "no data dir: HOME and USERPROFILE are unset and CLAUDE_MEM_DATA_DIR is not set"},
		{"windows: USERPROFILE", Env{"USERPROFILE": `C:\Users\u`}, "/appdata", "windows", "/appdata/claude-mem", ""},
		{"control: HOME set", Env{"HOME": "/home/u"}, "/home/u/.local/share", "linux", "/home/u/.local/share/claude-mem", ""},
		{"CLAUDE_MEM_DATA_DIR, HOME unset", Env{envname.DataDir: "/srv/mem"}, "/.local/share", "linux", "/srv/mem", ""},
		{"CLAUDE_MEM_DATA_DIR, HOME /", Env{"HOME": "/", envname.DataDir: "/srv/mem"}, "/.local/share", "linux", "/srv/mem", ""},
		{"absolute XDG_DATA_HOME, HOME unset", Env{"XDG_DATA_HOME": "/xdg"}, "/xdg", "linux", "/xdg/claude-mem", ""},
		{"relative XDG_DATA_HOME, HOME unset", Env{"XDG_DATA_HOME": "xdg"}, "/.local/share", "linux", "", "no data dir: HOME is unset and CLAUDE_MEM_DATA_DIR is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DataDir(tc.env, tc.xdg, tc.goos)
			if tc.wantErr == "" {
				if err != nil || d != tc.want {
					t.Fatalf("got %q, %v; want %q", d, err, tc.want)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr || d != "" {
				t.Fatalf("got %q, %v; want refused: %s", d, err, tc.wantErr)
			}
		})
	}
}

func TestEnsureDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "claude-mem")
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v err %v", fi.Mode(), err)
	}
	// An existing dir keeps its mode; one others can write is refused, nothing made in it.
	for _, tc := range []struct {
		mode    os.FileMode
		refused bool
	}{{0o755, false}, {0o700, false}, {os.ModeSticky | 0o777, true}, {0o770, true}} {
		shared := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(shared, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(shared, tc.mode); err != nil {
			t.Fatal(err)
		}
		err := EnsureDataDir(shared)
		var pe *private.Error
		if tc.refused != errors.As(err, &pe) {
			t.Fatalf("mode %v: refused %v, want %v (err %v)", tc.mode, err != nil, tc.refused, err)
		}
		if fi, err := os.Stat(shared); err != nil || fi.Mode()&(os.ModePerm|os.ModeSticky) != tc.mode {
			t.Fatalf("existing dir: mode %v, want %v kept (err %v)", fi.Mode(), tc.mode, err)
		}
		if _, err := os.Stat(filepath.Join(shared, LogsDir)); (err == nil) == tc.refused {
			t.Fatalf("mode %v: logs dir made %v in a dir refused %v", tc.mode, err == nil, tc.refused)
		}
	}
	// A parent that is a file fails for root too (a read-only dir would not stop root).
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if err := EnsureDataDir(filepath.Join(file, "claude-mem")); err == nil {
		t.Fatal("created a data dir under a file")
	}
}

func TestEnvFromList(t *testing.T) {
	e := EnvFrom([]string{"A=1", "B=x=y", "A=2", "=bad", "NOEQ"})
	if !reflect.DeepEqual(e, Env{"A": "2", "B": "x=y"}) {
		t.Fatal(e)
	}
	if !reflect.DeepEqual(e.List(), []string{"A=2", "B=x=y"}) {
		t.Fatal(e.List())
	}
}

func TestShownURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://bob:hunter2@db.example.com:5432/mem?sslmode=verify-full", "postgres://bob@db.example.com:5432/mem?sslmode=verify-full"},
		{"postgresql://bob@localhost/mem", "postgresql://bob@localhost/mem"},
		{"postgres://bob@db/mem?sslmode=require&password=hunter2", "postgres://bob@db/mem?sslmode=require&password=xxxxx"},
		{"host=db user=bob password=hunter2 dbname=mem", "host=db user=bob password=xxxxx dbname=mem"},
		{"host=db password='hunter 2' dbname=mem", "host=db password=xxxxx dbname=mem"},
		{"postgres://bob:hun%zzter2@db/mem", "postgres://xxxxx@db/mem"},
	} {
		got := ShownURL(c.in)
		if got != c.want {
			t.Errorf("ShownURL(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "hunter") || strings.Contains(got, "hun%zz") {
			t.Errorf("ShownURL(%q) shows the password: %q", c.in, got)
		}
	}
}

func TestSyncURLSetting(t *testing.T) {
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"postgres://bob@db/mem", true}, {"postgresql://bob@db/mem", true}, {"host=db dbname=mem password=xyzzy9", false},
		{"mysql://bob@db/mem", false}, {"db.example.com", false}, {"postgres://bob:x@db:notaport/mem", false},
	} {
		var got string
		err := syncURL(c.v, &got)
		if (err == nil) != c.ok {
			t.Errorf("syncURL(%q): %v, want ok=%v", c.v, err, c.ok)
		}
		if err != nil && (strings.Contains(err.Error(), ":x@") || strings.Contains(err.Error(), "xyzzy9")) {
			t.Errorf("syncURL(%q)'s error shows the password: %v", c.v, err)
		}
	}
}
