package spawn

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/auth"
	"github.com/claude-mem/claude-mem-go/claudebin"
	"github.com/claude-mem/claude-mem-go/observer/prompt"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	"github.com/tidwall/gjson"
)

const testRunID = "20261130T034105.000000001Z-0a1b2c3d"

// parentEnv is a hook process's environment: the real SessionStart hook env of Claude Code
// 2.1.328 (session variables, a messaging socket and token, the plugin's dirs), a login's
// usual variables, a proxy and CA, and secrets that must not reach the child.
func parentEnv(t *testing.T) settings.Env {
	t.Helper()
	f, err := os.Open(fixture(t, "hook-env-SessionStart.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kv []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kv = append(kv, sc.Text())
	}
	env := settings.EnvFrom(kv)
	if env.Get("CLAUDE_CODE_MESSAGING_TOKEN") == "" || env.Get("CLAUDE_PLUGIN_ROOT") == "" {
		t.Fatal("the hook env fixture lost its session variables")
	}
	for k, v := range map[string]string{
		"PATH": "/usr/bin:/bin", "HOME": "/home/user", "USER": "user", "LOGNAME": "user",
		"LANG": "en_US.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": "/tmp", "SHELL": "/bin/bash",
		"HTTPS_PROXY": "http://proxy:3128", "no_proxy": "localhost",
		"NODE_EXTRA_CA_CERTS": "/etc/ca.pem", "ANTHROPIC_BASE_URL": "https://gw.example",
		"ANTHROPIC_API_KEY": "sk-ant-api03-PARENT", "ANTHROPIC_AUTH_TOKEN": "bearer-PARENT",
		"AWS_SECRET_ACCESS_KEY": "aws-PARENT", "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-PARENT",
		"GITHUB_TOKEN": "ghp_PARENT", "CLAUDE_MEM_DATA_DIR": "/data/cm", "CLAUDE_CODE_PATH": "/opt/claude",
	} {
		env[k] = v
	}
	return env
}

func baseSettings() *settings.Settings {
	return &settings.Settings{
		DataDir: "/data/cm", Model: "haiku", PreserveProxy: true, ObserverTimeout: 300 * time.Second, SystemPrompt: true,
		DotEnv: settings.Env{"ANTHROPIC_API_KEY": "sk-ant-api03-DOTENV", "HTTPS_PROXY": "http://dotenv-proxy:1", "HTTP_PROXY": "http://dotenv-proxy:2"},
	}
}

var baseArgv = []string{"/usr/local/bin/claude", "-p",
	"--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
	"--setting-sources=", "--tools=", "--disallowedTools", strings.Join(DisallowedTools, ","),
	"--strict-mcp-config", "--mcp-config", `{"mcpServers":{}}`,
	"--permission-mode", "dontAsk", "--no-session-persistence", "--model", "haiku",
	"--system-prompt", prompt.System()}

// baseEnv is what every child gets from parentEnv: the allowlist, .env's HTTP_PROXY (the
// process has no HTTP_PROXY; its HTTPS_PROXY wins over .env's), and the fixed variables.
var baseEnv = []string{
	"ANTHROPIC_BASE_URL=https://gw.example",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"CLAUDE_CODE_MAX_RETRIES=1",
	"CLAUDE_CONFIG_DIR=/data/cm/observer-config",
	"CLAUDE_MEM_INTERNAL=1",
	"DISABLE_AUTOUPDATER=1",
	"HOME=/home/user",
	"HTTPS_PROXY=http://proxy:3128",
	"HTTP_PROXY=http://dotenv-proxy:2",
	"LANG=en_US.UTF-8",
	"LC_ALL=C.UTF-8",
	"LOGNAME=user",
	"NODE_EXTRA_CA_CERTS=/etc/ca.pem",
	"PATH=/usr/bin:/bin",
	"TMPDIR=/tmp",
	"TZ=UTC",
	"USER=user",
	"no_proxy=localhost",
}

func with(list []string, extra ...string) []string {
	out := append(append([]string{}, list...), extra...)
	sort.Strings(out)
	return out
}

// helperArgv is the base argv plus the one --settings pair naming the run's settings file:
// the helper command itself is never in argv (DESIGN.md §18).
var helperArgv = append(slices.Clone(baseArgv), "--settings", "/data/cm/observer-sessions/"+testRunID+"/settings.json")

const helperCmd = `/usr/local/bin/vault read -field=key "secret/anthropic" | tr -d '\n' > /dev/null`

var authCases = []struct {
	name string
	src  auth.Source
	argv []string
	env  []string
}{
	{"env", auth.Source{Kind: auth.KindEnv, From: "environment", EnvVar: "CLAUDE_CODE_OAUTH_TOKEN", Value: "sk-ant-oat01-PARENT"},
		baseArgv, with(baseEnv, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-PARENT")},
	{"apiKey from .env", auth.Source{Kind: auth.KindAPIKey, From: ".env", EnvVar: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-DOTENV"},
		baseArgv, with(baseEnv, "ANTHROPIC_API_KEY=sk-ant-api03-DOTENV")},
	{"apiKeyHelper", auth.Source{Kind: auth.KindAPIKeyHelper, From: "CLAUDE_MEM_API_KEY_HELPER", Helper: helperCmd},
		helperArgv, baseEnv},
	{"credentials", auth.Source{Kind: auth.KindCredentials, From: "/home/user/.claude/.credentials.json", EnvVar: "CLAUDE_CODE_OAUTH_TOKEN",
		Value: "sk-ant-oat01-FROMFILE", ExpiresAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)},
		baseArgv, with(baseEnv, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-FROMFILE")},
	{"keychain", auth.Source{Kind: auth.KindKeychain, From: "keychain login.keychain-db", EnvVar: "CLAUDE_CODE_OAUTH_TOKEN", Value: "sk-ant-oat01-KEYCHAIN"},
		baseArgv, with(baseEnv, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-KEYCHAIN")},
}

func buildFor(t *testing.T, src auth.Source) Spec {
	return BuildSpec(SpecInput{
		Settings: baseSettings(), Env: parentEnv(t), GOOS: "linux",
		Binary: claudebin.Result{Path: "/usr/local/bin/claude", Via: claudebin.ViaPATH},
		Auth:   src, RunID: testRunID,
	})
}

func TestBuildSpecGolden(t *testing.T) {
	for _, tc := range authCases {
		t.Run(tc.name, func(t *testing.T) {
			s := buildFor(t, tc.src)
			if !slices.Equal(s.Args, tc.argv) {
				t.Errorf("argv\n got %q\nwant %q", s.Args, tc.argv)
			}
			if !slices.Equal(s.Env, tc.env) {
				t.Errorf("env\n got %q\nwant %q", s.Env, tc.env)
			}
			if s.Dir != "/data/cm/observer-sessions/"+testRunID || s.SessionDir != "/data/cm/observer-sessions" ||
				s.ConfigDir != "/data/cm/observer-config" || s.Binary != "/usr/local/bin/claude" || s.Via != claudebin.ViaPATH ||
				s.Model != "haiku" || s.Timeout != 300*time.Second || s.PermissionMode != "dontAsk" ||
				s.SettingSources != "" || s.Tools != "" || s.RunID != testRunID || s.Auth != tc.src {
				t.Errorf("spec fields: %+v", s.Redacted())
			}
			if len(s.RefusedEnv) != 0 {
				t.Errorf("refused %q", s.RefusedEnv)
			}
			// The JSON given to --mcp-config must be valid JSON; no argv holds the helper.
			for i, a := range s.Args {
				if a == "--mcp-config" && !json.Valid([]byte(s.Args[i+1])) {
					t.Errorf("%s %q is not JSON", a, s.Args[i+1])
				}
				if strings.Contains(a, "vault") {
					t.Errorf("argv holds the helper command: %q", a)
				}
			}
			if tc.src.Kind == auth.KindAPIKeyHelper {
				var got map[string]string
				if err := json.Unmarshal(s.SettingsJSON(), &got); err != nil || got["apiKeyHelper"] != helperCmd {
					t.Errorf("settings file content %s (%v)", s.SettingsJSON(), err)
				}
			} else if s.SettingsFile != "" {
				t.Errorf("settings file %q for source %s", s.SettingsFile, tc.src.Kind)
			}
		})
	}
}

// TestDisallowedTools: the list leads with the peer-messaging tools and names every tool the
// real CLI's init line offers, plus the agent, file and search tools of other versions.
func TestDisallowedTools(t *testing.T) {
	if !slices.Equal(DisallowedTools[:2], []string{"SendMessage", "ListAgents"}) {
		t.Errorf("list starts %q", DisallowedTools[:2])
	}
	want := map[string]bool{"Agent": true, "Glob": true, "Grep": true}
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(fixture(t, "streamjson-out-403.jsonl")), "streamjson-out-*.jsonl"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if gjson.Get(line, "subtype").String() == "init" {
				for _, tool := range gjson.Get(line, "tools").Array() {
					want[tool.String()] = true
				}
			}
		}
	}
	if len(want) < 20 {
		t.Fatalf("only %d tools found in the fixtures", len(want))
	}
	for tool := range want {
		if !slices.Contains(DisallowedTools, tool) {
			t.Errorf("%s is not disallowed", tool)
		}
	}
}

func TestBuildSpecEnvRules(t *testing.T) {
	src := auth.Source{Kind: auth.KindAPIKey, EnvVar: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-CHOSEN"}
	cases := []struct {
		name        string
		goos        string
		env         settings.Env
		preserve    bool
		passEnv     []string
		dotEnv      settings.Env
		want        []string
		wantRefused []string
	}{
		{
			name: "no proxy when preserve is off, from the process or from .env",
			goos: "linux", env: settings.Env{"PATH": "/bin", "HTTPS_PROXY": "http://p:1", "all_proxy": "socks5://p:2"},
			dotEnv: settings.Env{"HTTP_PROXY": "http://d:3", "NODE_EXTRA_CA_CERTS": "/ca.pem"},
			want:   []string{"NODE_EXTRA_CA_CERTS=/ca.pem", "PATH=/bin"},
		},
		{
			name: "the process value beats .env; .env fills what is missing",
			goos: "linux", preserve: true,
			env:    settings.Env{"PATH": "/bin", "ANTHROPIC_BASE_URL": "https://proc"},
			dotEnv: settings.Env{"ANTHROPIC_BASE_URL": "https://dotenv", "NO_PROXY": "corp", "ANTHROPIC_API_KEY": "sk-ant-api03-DOTENV", "CLAUDE_CODE_OAUTH_TOKEN": "oat-DOTENV"},
			want:   []string{"ANTHROPIC_BASE_URL=https://proc", "NO_PROXY=corp", "PATH=/bin"},
		},
		{
			name: "pass env passes provider variables and refuses credentials, session and own variables",
			goos: "linux",
			env: settings.Env{"PATH": "/bin", "AWS_REGION": "eu-west-1", "CLAUDE_CODE_USE_BEDROCK": "1",
				"ANTHROPIC_AUTH_TOKEN": "bearer-PARENT", "CLAUDE_CODE_SESSION_ID": "s", "CLAUDE_PLUGIN_ROOT": "/p",
				"CLAUDECODE": "1", "CLAUDE_CONFIG_DIR": "/home/user/.claude", "CLAUDE_CODE_MESSAGING_TOKEN": "t"},
			passEnv: []string{"AWS_REGION", "CLAUDE_CODE_USE_BEDROCK", "MISSING_VAR", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_SESSION_ID",
				"CLAUDE_PLUGIN_ROOT", "CLAUDECODE", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_MESSAGING_TOKEN", "BAD=NAME"},
			want: []string{"AWS_REGION=eu-west-1", "CLAUDE_CODE_USE_BEDROCK=1", "PATH=/bin"},
			wantRefused: []string{
				"ANTHROPIC_AUTH_TOKEN: a credential variable; the observer gets exactly one, chosen by the auth source",
				"CLAUDE_CODE_SESSION_ID: a variable of the user's Claude Code session",
				"CLAUDE_PLUGIN_ROOT: a variable of the user's Claude Code session",
				"CLAUDECODE: a variable of the user's Claude Code session",
				"CLAUDE_CONFIG_DIR: set by claude-mem itself",
				"CLAUDE_CODE_MESSAGING_TOKEN: a variable of the user's Claude Code session",
				"BAD=NAME: not a variable name",
			},
		},
		{
			name: "windows names are case-insensitive and keep their spelling",
			goos: "windows", preserve: true,
			env: settings.Env{"Path": `C:\Windows`, "SystemRoot": `C:\Windows`, "UserProfile": `C:\Users\u`,
				"APPDATA": `C:\A`, "LocalAppData": `C:\L`, "https_proxy": "http://p:1", "Aws_Region": "us-east-1",
				"ComSpec": `C:\Windows\cmd.exe`, "Anthropic_Api_Key": "sk-ant-api03-PARENT"},
			passEnv: []string{"AWS_REGION", "anthropic_api_key"},
			dotEnv:  settings.Env{"HTTPS_PROXY": "http://dotenv:2"},
			want: []string{`APPDATA=C:\A`, "Aws_Region=us-east-1", `LocalAppData=C:\L`, `Path=C:\Windows`,
				`SystemRoot=C:\Windows`, `UserProfile=C:\Users\u`, "https_proxy=http://p:1"},
			wantRefused: []string{"anthropic_api_key: a credential variable; the observer gets exactly one, chosen by the auth source"},
		},
		{
			name: "the same names on linux are other variables",
			goos: "linux", preserve: true,
			env:     settings.Env{"Path": "/x", "https_proxy": "http://p:1", "Aws_Region": "us-east-1"},
			passEnv: []string{"AWS_REGION"},
			dotEnv:  settings.Env{"HTTPS_PROXY": "http://dotenv:2"},
			want:    []string{"HTTPS_PROXY=http://dotenv:2", "https_proxy=http://p:1"},
		},
	}
	fixed := []string{"ANTHROPIC_API_KEY=sk-ant-api03-CHOSEN", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_MAX_RETRIES=1", "CLAUDE_CONFIG_DIR=" + filepath.Join("/d", "observer-config"), "CLAUDE_MEM_INTERNAL=1", "DISABLE_AUTOUPDATER=1"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := &settings.Settings{DataDir: "/d", Model: "haiku", PreserveProxy: tc.preserve, PassEnv: tc.passEnv, DotEnv: tc.dotEnv}
			s := BuildSpec(SpecInput{Settings: st, Env: tc.env, GOOS: tc.goos, Auth: src, RunID: testRunID,
				Binary: claudebin.Result{Path: "/c"}})
			if want := with(tc.want, fixed...); !slices.Equal(s.Env, want) {
				t.Errorf("env\n got %q\nwant %q", s.Env, want)
			}
			if !slices.Equal(s.RefusedEnv, tc.wantRefused) {
				t.Errorf("refused\n got %q\nwant %q", s.RefusedEnv, tc.wantRefused)
			}
		})
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	secrets := []string{"sk-ant-oat01-PARENT", "sk-ant-api03-DOTENV", "sk-ant-oat01-FROMFILE", "sk-ant-oat01-KEYCHAIN",
		"hunter2", "aws-PARENT", "CanaryProxyToken", "CanaryBaseUrlKey", "CanaryGatewayValue"}
	for _, tc := range authCases {
		t.Run(tc.name, func(t *testing.T) {
			st := baseSettings()
			st.PassEnv = []string{"AWS_SECRET_ACCESS_KEY", "MY_GATEWAY_KEY"}
			env := parentEnv(t)
			env["HTTPS_PROXY"] = "http://bob:hunter2@proxy:3128"
			// The shapes issue 12 found printed in clear: a token as the whole userinfo, a
			// key in the base URL's query, a passed variable whose name says secret.
			env["HTTP_PROXY"] = "http://CanaryProxyToken@proxy:8080"
			env["ANTHROPIC_BASE_URL"] = "https://gw/v1?api_key=CanaryBaseUrlKey"
			env["MY_GATEWAY_KEY"] = "CanaryGatewayValue"
			s := BuildSpec(SpecInput{Settings: st, Env: env, GOOS: "linux", Auth: tc.src, RunID: testRunID,
				Binary: claudebin.Result{Path: "/usr/local/bin/claude"}})
			joined := strings.Join(s.Env, "\n")
			if tc.src.EnvVar != "" && !strings.Contains(joined, tc.src.Value.Reveal()) {
				t.Fatal("the spec itself must carry the credential for the child")
			}
			if !strings.Contains(joined, "aws-PARENT") || !strings.Contains(joined, "hunter2") {
				t.Fatal("the test's secrets did not reach the spec")
			}
			r, err := json.Marshal(s.Redacted())
			if err != nil {
				t.Fatal(err)
			}
			direct, _ := json.Marshal(s)
			printed := fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s)
			for _, out := range []string{string(r), string(direct), printed} {
				for _, sec := range secrets {
					if strings.Contains(out, sec) {
						t.Errorf("secret %q printed in %s", sec, out)
					}
				}
				if !strings.Contains(out, "[REDACTED:url_userinfo]@proxy:3128") || !strings.Contains(out, "AWS_SECRET_ACCESS_KEY=aws-…(10)") ||
					!strings.Contains(out, "MY_GATEWAY_KEY=Cana…(18)") || !strings.Contains(out, "https://gw/v1?api_key=") {
					t.Errorf("redacted values missing from %s", out)
				}
			}
			if tc.src.EnvVar != "" && !strings.Contains(string(r), tc.src.EnvVar+"="+tc.src.Value.String()) {
				t.Errorf("credential not shown redacted: %s", r)
			}
			if tc.src.Kind == auth.KindAPIKeyHelper && !strings.Contains(printed, "vault read -field=key") {
				t.Errorf("the helper command must be kept: %s", printed)
			}
		})
	}
}

func TestNewRunID(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 41, 5, 0, time.FixedZone("x", 3600))
	times := []time.Time{t0, t0, t0.Add(time.Nanosecond), t0.Add(time.Second), t0.Add(24 * time.Hour), t0.Add(400 * 24 * time.Hour)}
	var ids []string
	for _, tm := range times {
		id := NewRunID(tm)
		if !runIDRe().MatchString(id) {
			t.Fatalf("%q does not match the run id pattern", id)
		}
		ids = append(ids, id)
	}
	if !strings.HasPrefix(ids[0], "20261130T024105.000000000Z-") {
		t.Errorf("not UTC: %s", ids[0])
	}
	if ids[0] == ids[1] {
		t.Error("two ids at the same time are equal")
	}
	for i := 2; i < len(ids); i++ {
		if ids[i] <= ids[1] || ids[i] <= ids[0] || (i > 2 && ids[i] <= ids[i-1]) {
			t.Errorf("ids do not sort by time: %q", ids)
		}
	}
}

// toolEvents is one tool call, for the prompts the tests send.
func toolEvents() []store.Event {
	return []store.Event{{ID: 1, ToolName: "Bash", Input: `{"command":"go test ./..."}`, Response: `{"stdout":"ok"}`}}
}

// TestSystemPromptSetting: the instructions go in --system-prompt (fixed text: no project,
// no time), are named rather than repeated in the redacted spec, and move into the message
// when CLAUDE_MEM_OBSERVER_SYSTEM_PROMPT=false.
func TestSystemPromptSetting(t *testing.T) {
	st := baseSettings()
	s := BuildSpec(SpecInput{Settings: st, Binary: claudebin.Result{Path: "/c"}, RunID: testRunID})
	if i := slices.Index(s.Args, "--system-prompt"); i < 0 || s.Args[i+1] != prompt.System() {
		t.Fatalf("argv lacks --system-prompt <instructions>: %q", s.Args)
	}
	if red := strings.Join(s.Redacted().Args, " "); strings.Contains(red, "How you work") || !strings.Contains(red, "<observer instructions, ") {
		t.Errorf("redacted argv: %s", red)
	}
	in := prompt.Input{Project: "proj-x", Events: toolEvents()}
	msg := prompt.Build(in)
	if strings.Contains(msg, "How you work") || strings.Contains(prompt.System(), "proj-x") || !strings.Contains(prompt.System(), "How you work") {
		t.Errorf("instructions and data are not split")
	}
	st.SystemPrompt = false
	s = BuildSpec(SpecInput{Settings: st, Binary: claudebin.Result{Path: "/c"}, RunID: testRunID})
	if slices.Contains(s.Args, "--system-prompt") {
		t.Errorf("--system-prompt with the setting off: %q", s.Args)
	}
	in.Inline = true
	if !strings.HasPrefix(prompt.Build(in), prompt.System()) {
		t.Error("inline message does not start with the instructions")
	}
}
