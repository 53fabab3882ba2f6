package settings

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/private"
)

// DirName is the data dir's name under the XDG data home. Never ".claude-mem": that is the
// JavaScript claude-mem's, whose claude-mem.db has another schema.
const DirName = "claude-mem"

// AuthSources are the values CLAUDE_MEM_AUTH_SOURCE accepts.
var AuthSources = []string{"auto", "env", "apiKey", "apiKeyHelper", "keychain", "credentials"}

// LogLevels are the values CLAUDE_MEM_LOG_LEVEL accepts.
var LogLevels = []string{"debug", "info", "warn", "error"}

// dotEnvAllowed and envname.Proxy are the only keys <data>/.env may set (DESIGN.md §7).
var dotEnvAllowed = []string{envname.APIKey, envname.BaseURL, envname.OAuthToken, envname.CACerts}

// Upper bounds: past them a value makes no sense, and a large enough one overflowed
// (CLAUDE_MEM_OBSERVER_TIMEOUT=10000000000 seconds became a negative duration: no timeout).
const (
	maxAgents              = 16    // observer processes at once
	maxContextObservations = 1000  // SessionStart context is bounded to 8,000 bytes anyway
	maxTimeoutSeconds      = 3600  // one observer run
	maxRetention           = 10000 // run dirs kept
	maxBatchEvents         = 10000 // pending events before Stop starts a run
	maxBatchWaitSeconds    = 86400 // a day: the oldest pending event's age before Stop starts a run
)

type key struct {
	name  string
	def   string
	apply func(s *Settings, v string) error // parses v strictly into s; an error leaves s unchanged
}

// shownAs is how doctor and settings errors show a key's value, where not as it is.
var shownAs = map[string]func(string) string{envname.SyncURL: ShownURL}

var keys = []key{
	{envname.MaxConcurrentAgents, "2", func(s *Settings, v string) error { return parseInt(v, 0, maxAgents, &s.MaxConcurrentAgents) }},
	{envname.Model, "haiku", func(s *Settings, v string) error { return nonEmpty(v, &s.Model) }},
	{envname.ClaudePath, "", func(s *Settings, v string) error { s.ClaudePath = v; return nil }},
	{envname.AuthSource, "auto", func(s *Settings, v string) error { return oneOf(v, AuthSources, &s.AuthSource) }},
	{envname.APIKeyHelper, "", func(s *Settings, v string) error { s.APIKeyHelper = v; return nil }},
	{envname.PreserveProxy, "true", func(s *Settings, v string) error { return parseBool(v, &s.PreserveProxy) }},
	{envname.PassEnv, "", func(s *Settings, v string) error { s.PassEnv = splitList(v); return nil }},
	{envname.ContextObservations, "200", func(s *Settings, v string) error {
		return parseInt(v, 0, maxContextObservations, &s.ContextObservations)
	}},
	{envname.ExcludedProjects, "", func(s *Settings, v string) error { s.ExcludedProjects = splitList(v); return nil }},
	{envname.SkipTools, "TodoWrite,AskUserQuestion,ListMcpResourcesTool,Skill", func(s *Settings, v string) error { s.SkipTools = splitList(v); return nil }},
	{envname.ObserverTimeout, "300", func(s *Settings, v string) error {
		var n int
		if err := parseInt(v, 1, maxTimeoutSeconds, &n); err != nil {
			return err
		}
		s.ObserverTimeout = time.Duration(n) * time.Second
		return nil
	}},
	{envname.ObserverRetention, "50", func(s *Settings, v string) error { return parseInt(v, 1, maxRetention, &s.ObserverRetention) }},
	{envname.LogLevel, "info", func(s *Settings, v string) error { return oneOf(v, LogLevels, &s.LogLevel) }},
	{envname.DailyBudgetUSD, "5", func(s *Settings, v string) error { return parseDollars(v, &s.DailyBudgetUSD) }},
	{envname.BatchEvents, "10", func(s *Settings, v string) error { return parseInt(v, 1, maxBatchEvents, &s.BatchEvents) }},
	{envname.BatchWait, "300", func(s *Settings, v string) error {
		var n int
		if err := parseInt(v, 0, maxBatchWaitSeconds, &n); err != nil {
			return err
		}
		s.BatchWait = time.Duration(n) * time.Second
		return nil
	}},
	{envname.SkipSubagents, "false", func(s *Settings, v string) error { return parseBool(v, &s.SkipSubagents) }},
	{envname.SystemPrompt, "true", func(s *Settings, v string) error { return parseBool(v, &s.SystemPrompt) }},
	{envname.RedactSecrets, "true", func(s *Settings, v string) error { return parseBool(v, &s.RedactSecrets) }},
	{envname.LoadedMessage, "true", func(s *Settings, v string) error { return parseBool(v, &s.LoadedMessage) }},
	{envname.SyncURL, "", func(s *Settings, v string) error { return syncURL(v, &s.SyncURL) }},
	{envname.Machine, "", func(s *Settings, v string) error { s.Machine = v; return nil }},
}

// DataDir decides the data dir: CLAUDE_MEM_DATA_DIR when set (it must be absolute), else
// <xdgDataHome>/claude-mem. It creates nothing, and refuses ~/.claude-mem: that is the
// JavaScript claude-mem's, whose claude-mem.db has another schema (and which reads the same
// CLAUDE_MEM_DATA_DIR variable).
func DataDir(env Env, xdgDataHome, goos string) (string, error) {
	dir := ""
	if v := strings.TrimSpace(env.Get(envname.DataDir)); v != "" {
		if !filepath.IsAbs(v) {
			return "", fmt.Errorf("%s=%s: not an absolute path", envname.DataDir, v)
		}
		dir = filepath.Clean(v)
	} else if why := noHome(env, goos); why != "" && !filepath.IsAbs(env.Get("XDG_DATA_HOME")) {
		// xdg derives its data home from the home dir, and makes "/" of a missing one: the
		// data would land in /.local/share, one dir for every process run without a home
		// (cron, services, containers). An absolute XDG_DATA_HOME does not need a home.
		return "", fmt.Errorf("no data dir: %s and %s is not set", why, envname.DataDir)
	} else if xdgDataHome != "" {
		dir = filepath.Join(xdgDataHome, DirName)
	} else {
		return "", errors.New("no data dir: neither CLAUDE_MEM_DATA_DIR nor an XDG data home is known")
	}
	if home := env.Get(envname.Home); home != "" && dir == filepath.Join(home, ".claude-mem") {
		return "", fmt.Errorf("%s is the JavaScript claude-mem's data dir (another database schema); set %s to another directory", dir, envname.DataDir)
	}
	return dir, nil
}

// noHome says why the home dir cannot hold the data dir, or "" when it can.
func noHome(env Env, goos string) string {
	h := Home(env, goos)
	switch {
	case h == "" && goos == "windows":
		return "HOME and USERPROFILE are unset"
	case h == "":
		if _, set := env.Lookup(envname.Home); set {
			return "HOME is empty"
		}
		return "HOME is unset"
	case strings.Trim(h, `/\`) == "":
		return fmt.Sprintf("HOME is %q", h)
	}
	return ""
}

// EnsureDataDir creates the data dir (0700) and its logs dir. An existing data dir keeps its
// mode, and must be the user's alone (private.Root), a new one too (the dirs above it): a
// data dir another user can write is refused, with a *private.Error, before anything is
// written to it.
func EnsureDataDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := private.Root(dir); err != nil {
		return err
	}
	// logs may be refused (logfile checks it): that costs the log, never the memory.
	return os.MkdirAll(Layout(dir).Logs(), 0o700)
}

// Load computes the effective settings: for each key the environment, then
// <dataDir>/settings.json, then the default. A value that does not parse is recorded as an
// *Error and the default is used. When the data dir is unknown Load still returns usable
// settings (environment and defaults, DataDir "") along with the error. A data dir that is
// not the user's alone (private.Root) is returned as a *private.Error with DataDir set (the
// fallback journal is named for it) and environment and defaults only: nothing in it is
// read. In a data dir that is, settings.json, .env and each of dataDirEntries that another
// user could have written is an *Error whose Err is the *private.Error, and is not read.
func Load(env Env, xdgDataHome, goos string) (*Settings, error) {
	dir, dirErr := DataDir(env, xdgDataHome, goos)
	s := &Settings{DataDir: dir}
	if dirErr == nil {
		if err := private.Root(dir); err != nil && !absent(err) {
			dirErr = err
		}
	}
	var file map[string]string
	var fileErr error
	if dirErr == nil {
		file, fileErr = readSettingsFile(Layout(dir).Settings())
	}
	if fileErr != nil {
		s.Errors = append(s.Errors, &Error{Key: SettingsFile, Value: Layout(dir).Settings(), Problem: fileErr.Error(), Default: "defaults for every key", Err: fileErr})
	}
	for _, k := range keys {
		raw, origin := k.def, FromDefault
		if v, ok := file[k.name]; ok {
			raw, origin = v, FromFile
		}
		if v, ok := env.Lookup(k.name); ok {
			raw, origin = v, FromEnv
		}
		shown := raw
		if show := shownAs[k.name]; show != nil {
			shown = show(raw)
		}
		val := Value{Key: k.name, Value: shown, Origin: origin}
		if err := k.apply(s, strings.TrimSpace(raw)); err != nil {
			e := &Error{Key: k.name, Value: shown, Problem: err.Error(), Default: k.def}
			if k.def == "" {
				e.Default = "(empty)"
			}
			s.Errors = append(s.Errors, e)
			// The effective value is the default; the error keeps what was rejected, and where from.
			val = Value{Key: k.name, Value: k.def, Origin: FromDefault, Error: fmt.Sprintf("%s (from %s)", e.Error(), origin)}
			if perr := k.apply(s, k.def); perr != nil {
				panic("settings: default of " + k.name + " does not parse: " + perr.Error())
			}
		}
		s.Values = append(s.Values, val)
	}
	if dirErr != nil {
		return s, dirErr
	}
	var err error
	s.DotEnv, s.DotEnvIgnored, err = readDotEnv(Layout(dir).DotEnv())
	if err != nil {
		s.Errors = append(s.Errors, &Error{Key: DotEnvFile, Value: Layout(dir).DotEnv(), Problem: err.Error(), Default: "no .env values", Err: err})
	}
	for _, name := range dataDirEntries {
		path := filepath.Join(dir, name)
		var pe *private.Error
		if err := private.Lstat(path); errors.As(err, &pe) {
			s.Errors = append(s.Errors, &Error{Key: name, Value: path, Problem: pe.Problem, Default: "never read or written", Err: pe})
		}
	}
	return s, nil
}

// readSettingsFile reads a flat JSON object; a missing file is no error. String, number and
// boolean values are taken as their text; anything else is an error for the whole file, so a
// half-understood file is never half applied.
func readSettingsFile(path string) (map[string]string, error) {
	data, err := private.ReadFile(path)
	if absent(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		switch t := x.(type) {
		case string:
			out[k] = t
		case json.Number:
			out[k] = t.String()
		case bool:
			out[k] = strconv.FormatBool(t)
		default:
			return nil, fmt.Errorf("%s: value must be a string, number or boolean", k)
		}
	}
	return out, nil
}

// readDotEnv reads KEY=VALUE lines ("export " prefix, # comments and quotes allowed) and
// keeps only the allowlisted keys; the others are returned so the caller can WARN by name.
func readDotEnv(path string) (Env, []string, error) {
	f, err := private.Open(path, os.O_RDONLY)
	if absent(err) {
		return Env{}, nil, nil
	}
	if err != nil {
		return Env{}, nil, err
	}
	defer f.Close()
	allowed := make(map[string]bool, len(dotEnvAllowed)+len(envname.Proxy))
	for _, k := range slices.Concat(dotEnvAllowed, envname.Proxy) {
		allowed[k] = true
	}
	env, ignored := Env{}, []string(nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), unquote(strings.TrimSpace(v))
		if !envName().MatchString(k) {
			// Not a variable name (a pasted token, a typo): never echo it into a log.
			ignored = append(ignored, fmt.Sprintf("(malformed line %d)", n))
			continue
		}
		if !allowed[k] {
			ignored = append(ignored, k)
			continue
		}
		env[k] = v
	}
	sort.Strings(ignored)
	return env, ignored, sc.Err()
}

// absent reports a file that is not there, including under a data dir that does not exist
// because its parent is a file (that problem is reported once, as the data dir's).
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		return strings.TrimSpace(v[:i])
	}
	return v
}

// parseInt accepts only a whole number in [min, max]: "0" is 0, never "use the default".
func parseInt(v string, min, max int, dst *int) error {
	n, err := strconv.Atoi(v)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("must be at most %d", max)
	}
	if err != nil {
		return fmt.Errorf("not a whole number")
	}
	if n < min {
		return fmt.Errorf("must be at least %d", min)
	}
	if n > max {
		return fmt.Errorf("must be at most %d", max)
	}
	*dst = n
	return nil
}

// dollars is a plain decimal amount: no sign, exponent, hex, Inf or NaN.
var dollars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`) })

// parseDollars accepts a non-negative decimal amount of dollars: "0" is 0 (no cap).
func parseDollars(v string, dst *float64) error {
	if !dollars().MatchString(v) {
		return fmt.Errorf("not an amount of dollars (a decimal number like 5 or 2.50)")
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("not an amount of dollars (a decimal number like 5 or 2.50)")
	}
	*dst = f
	return nil
}

func parseBool(v string, dst *bool) error {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		*dst = true
	case "false", "0", "no", "off":
		*dst = false
	default:
		return fmt.Errorf("not a boolean (true or false)")
	}
	return nil
}

// oneOf accepts v in any case and stores the canonical spelling.
func oneOf(v string, allowed []string, dst *string) error {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			*dst = a
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(allowed, ", "))
}

func nonEmpty(v string, dst *string) error {
	if v == "" {
		return errors.New("must not be empty")
	}
	*dst = v
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
