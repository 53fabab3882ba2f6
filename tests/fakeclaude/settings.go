package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// settingsFile is the part of a Claude Code settings.json the fake acts on.
type settingsFile struct {
	APIKeyHelper string                   `json:"apiKeyHelper"`
	Hooks        map[string][]hookMatcher `json:"hooks"`
}

type hookMatcher struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Timeout float64 `json:"timeout"`
	} `json:"hooks"`
}

// defaultHookTimeout is Claude Code's default command hook timeout, in seconds.
const defaultHookTimeout = 600

// configDir is CLAUDE_CONFIG_DIR, else ~/.claude (the home from HOME, else the user
// database, as Node's os.homedir does).
func configDir(env map[string]string) string {
	if d := env["CLAUDE_CONFIG_DIR"]; d != "" {
		return d
	}
	home := env["HOME"]
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	return filepath.Join(home, ".claude")
}

// loadedSettings is every settings source in effect, merged.
type loadedSettings struct {
	hooks []fakeproto.Hook
	// helper is the apiKeyHelper of the last source that sets one, and helperFromFlag
	// whether that source is --settings.
	helper         string
	helperFromFlag bool
}

// loadSettings reads the file of every enabled source (user, project, local) and then the
// --settings value, which the CLI always applies. A missing file is skipped; an invalid one
// is reported in the record and skipped, as the CLI does with a settings error.
func loadSettings(rec *fakeproto.Record, f fakeproto.Flags) (loadedSettings, error) {
	var ls loadedSettings
	paths := map[string]string{
		"user":    filepath.Join(rec.ConfigDir, "settings.json"),
		"project": filepath.Join(rec.Cwd, ".claude", "settings.json"),
		"local":   filepath.Join(rec.Cwd, ".claude", "settings.local.json"),
	}
	for _, src := range []string{"user", "project", "local"} {
		if !slices.Contains(rec.SettingSources, src) {
			continue
		}
		p := paths[src]
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			rec.SettingsFiles = append(rec.SettingsFiles, p)
			var sf settingsFile
			if err = json.Unmarshal(b, &sf); err == nil {
				ls.add(src, p, sf)
				continue
			}
		}
		rec.SettingsErrors = append(rec.SettingsErrors, fmt.Sprintf("%s: %v", p, err))
	}
	if f.Settings != nil {
		sf, file, err := readFlagSettings(*f.Settings)
		if err != nil {
			return ls, &usageError{"Error: Invalid --settings: " + err.Error()}
		}
		if file != "" {
			rec.SettingsFiles = append(rec.SettingsFiles, file)
		}
		ls.add("flag", file, sf)
	}
	return ls, nil
}

// readFlagSettings takes --settings as inline JSON or as the path of a JSON file.
func readFlagSettings(v string) (settingsFile, string, error) {
	var sf settingsFile
	file := ""
	b := []byte(v)
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		file = v
		var err error
		if b, err = os.ReadFile(v); err != nil {
			return sf, file, err
		}
	}
	return sf, file, json.Unmarshal(b, &sf)
}

func (ls *loadedSettings) add(src, file string, sf settingsFile) {
	if sf.APIKeyHelper != "" {
		ls.helper, ls.helperFromFlag = sf.APIKeyHelper, src == "flag"
	}
	// Events in a fixed order so the record is stable.
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"} {
		for _, m := range sf.Hooks[ev] {
			for _, h := range m.Hooks {
				if h.Type != "command" || h.Command == "" {
					continue
				}
				t := int(h.Timeout)
				if t <= 0 {
					t = defaultHookTimeout
				}
				ls.hooks = append(ls.hooks, fakeproto.Hook{Source: src, File: file, Event: ev,
					Matcher: m.Matcher, Command: h.Command, Timeout: t})
			}
		}
	}
}

// matches applies a hook matcher to the event's match value (the SessionStart source, the
// SessionEnd reason): empty and "*" match everything, otherwise it is an anchored regexp,
// or a literal when it does not compile.
func matches(matcher, value string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	if err != nil {
		return matcher == value
	}
	return re.MatchString(value)
}

// runHook executes a command hook the way the CLI does: through the shell (the command
// comes from a settings file, never from input), the event JSON on stdin, in the session's
// cwd, with the session's environment plus what Claude Code adds for hooks.
func runHook(h fakeproto.Hook, input map[string]any, rec *fakeproto.Record) fakeproto.HookRun {
	in, _ := json.Marshal(input)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(h.Timeout)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
	cmd.Dir = rec.Cwd
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = hookEnv(rec)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A background child of the hook could hold the pipes open after the hook is gone.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	run := fakeproto.HookRun{Source: h.Source, Event: h.Event, Command: h.Command,
		Stdout: stdout.String(), Stderr: stderr.String(), Outcome: "success"}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		run.ExitCode, run.Outcome = 1, "cancelled" // the fixture's timed-out hook
	case errors.As(err, &exitErr):
		run.ExitCode, run.Outcome = exitErr.ExitCode(), "error"
	case err != nil:
		run.ExitCode, run.Outcome, run.Stderr = 1, "error", err.Error()
	}
	return run
}

// hookEnv is the fake's environment plus the variables Claude Code sets for its session
// (fixtures/.../hook-env-SessionStart.txt), so hooks see the marker env of their session.
func hookEnv(rec *fakeproto.Record) []string {
	env := make([]string, 0, len(rec.Env)+3)
	for k, v := range rec.Env {
		switch k {
		case "CLAUDECODE", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_ENTRYPOINT":
		default:
			env = append(env, k+"="+v)
		}
	}
	return append(env, "CLAUDECODE=1", "CLAUDE_PROJECT_DIR="+rec.Cwd, "CLAUDE_CODE_ENTRYPOINT=sdk-cli")
}

// injected is the context a hook's output adds for the model: for SessionStart and
// UserPromptSubmit, exit 0 stdout, either JSON with hookSpecificOutput.additionalContext
// or plain text. Other events and failed hooks inject nothing.
func injected(run fakeproto.HookRun) string {
	if run.ExitCode != 0 || (run.Event != "SessionStart" && run.Event != "UserPromptSubmit") {
		return ""
	}
	out := strings.TrimSpace(run.Stdout)
	var js struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if strings.HasPrefix(out, "{") && json.Unmarshal([]byte(out), &js) == nil {
		return strings.TrimSpace(js.HookSpecificOutput.AdditionalContext)
	}
	return out
}

// resolveCredential picks the credential: CLAUDE_CODE_OAUTH_TOKEN, then ANTHROPIC_API_KEY,
// then the apiKeyHelper of the settings in effect (run through the shell, as the CLI does;
// its trimmed stdout is the key). The config dir's .credentials.json is not read: the
// observer's config dir is its own and empty.
func resolveCredential(rec *fakeproto.Record, ls loadedSettings, sc fakeproto.Scenario) fakeproto.Credential {
	if v := rec.Env["CLAUDE_CODE_OAUTH_TOKEN"]; v != "" {
		return fakeproto.Credential{Source: fakeproto.CredOAuthToken, Value: v}
	}
	if v := rec.Env["ANTHROPIC_API_KEY"]; v != "" {
		return fakeproto.Credential{Source: fakeproto.CredAPIKey, Value: v}
	}
	if ls.helper == "" || (ls.helperFromFlag && !sc.HelperIsHonored()) {
		return fakeproto.Credential{Source: fakeproto.CredNone}
	}
	c := fakeproto.Credential{Source: fakeproto.CredNone, Helper: ls.helper}
	cmd := exec.Command("sh", "-c", ls.helper)
	cmd.Dir = rec.Cwd
	cmd.Env = hookEnv(rec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	key := strings.TrimSpace(string(out))
	switch {
	case err != nil:
		c.HelperError = strings.TrimSpace(err.Error() + ": " + stderr.String())
	case key == "":
		c.HelperError = "apiKeyHelper printed nothing"
	default:
		c.Source, c.Value = fakeproto.CredHelper, key
	}
	return c
}
