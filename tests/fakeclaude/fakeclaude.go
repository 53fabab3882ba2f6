// Fakeclaude is a fake `claude` CLI that behaves like Claude Code 2.1.328 where claude-mem
// depends on it: argv parsing, setting sources and hooks, transcripts under the config dir,
// the tool set, stream-json input and output, and the auth failure streams of the fixtures.
// It is steered by <executable>.scenario.json and records every invocation under
// <executable>.records/ (see package fakeproto).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// grandchildEnv marks the sleeping grandchild the fake starts for spawn_grandchild; only
// the fake itself sets it.
const grandchildEnv = "FAKECLAUDE_GRANDCHILD"

func main() {
	if os.Getenv(grandchildEnv) == "1" {
		sleepForever()
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake claude:", err)
		os.Exit(70)
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake claude:", err)
		os.Exit(70)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	os.Exit(run(proc{exe: exe, args: os.Args, env: env, cwd: cwd, pid: os.Getpid(),
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// proc is the process the fake runs as.
type proc struct {
	exe            string
	args           []string
	env            map[string]string
	cwd            string
	pid            int
	stdin          io.Reader
	stdout, stderr io.Writer
}

// hangExit is the exit code recorded for a hung run: it never exits by itself.
const hangExit = -1

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// session is one invocation in progress.
type session struct {
	p        proc
	sc       fakeproto.Scenario
	rec      fakeproto.Record
	name     string // record file name
	out      *stream
	format   string
	settings loadedSettings
	started  time.Time
	// transcript is the session file, "" with --no-session-persistence.
	transcript     string
	transcriptPath string // the path hooks are told, written or not
	credResolved   bool
}

func run(p proc) int {
	s := &session{p: p, started: time.Now()}
	s.name = fakeproto.RecordName(s.started.UnixNano(), p.pid)
	s.rec = fakeproto.Record{Pid: p.pid, Executable: p.exe, Argv: p.args, Env: p.env, Cwd: p.cwd,
		ConfigDir: configDir(p.env), SessionID: newUUID(), Outcome: fakeproto.OutcomeOK}
	code := s.run()
	if code == hangExit {
		sleepForever()
	}
	return code
}

// save writes the record with its exit code and returns the code.
func (s *session) save(code int) int {
	s.rec.ExitCode = code
	if err := fakeproto.WriteRecord(s.p.exe, s.name, s.rec); err != nil {
		fmt.Fprintln(s.p.stderr, "fake claude: writing record:", err)
		if code == 0 {
			return 70
		}
	}
	return code
}

// usage reports a command-line error like the CLI: message on stderr, exit 1, no output.
func (s *session) usage(err error) int {
	s.rec.Outcome, s.rec.Error = fakeproto.OutcomeUsageError, err.Error()
	fmt.Fprintln(s.p.stderr, err.Error())
	return s.save(1)
}

func (s *session) run() int {
	sc, err := fakeproto.LoadScenario(s.p.exe)
	if err != nil {
		fmt.Fprintln(s.p.stderr, "fake claude:", err)
		s.rec.Error = err.Error()
		return s.save(70)
	}
	s.sc = sc
	if sc.IgnoreSIGTERM {
		signal.Ignore(syscall.SIGTERM)
	}
	flags, positionals, err := parseArgs(s.p.args[1:])
	s.rec.Flags, s.rec.Positionals = flags, positionals
	if err != nil {
		return s.usage(err)
	}
	s.rec.SettingSources = settingSources(flags)
	s.rec.Tools = toolSet(flags)
	if s.rec.MCPServers, err = mcpServers(flags.MCPConfig); err != nil {
		return s.usage(err)
	}
	if s.settings, err = loadSettings(&s.rec, flags); err != nil {
		return s.usage(err)
	}
	s.rec.HooksLoaded = s.settings.hooks
	s.format = flags.OutputFormat
	if s.format == "" {
		s.format = "text"
	}
	model := flags.Model
	if model == "" {
		model = "claude-opus-5-5" // what the fixtures report without --model
	}
	s.out = &stream{w: s.p.stdout, sessionID: s.rec.SessionID, model: model}
	s.transcriptPath = filepath.Join(s.rec.ConfigDir, "projects", fakeproto.EncodeCwd(s.p.cwd), s.rec.SessionID+".jsonl")
	if !flags.NoSessionPersistence {
		s.transcript = s.transcriptPath
	}

	s.runHooks("SessionStart", "startup", map[string]any{"source": "startup"})
	prompts, err := s.readInput(flags, positionals)
	if err != nil {
		return s.usage(err)
	}
	s.rec.Prompts = prompts
	if sc.Crash {
		s.rec.Outcome = fakeproto.OutcomeCrash
		fmt.Fprintln(s.p.stderr, "fake claude: simulated crash (scenario crash: true)")
		return s.save(2)
	}
	if sc.SpawnGrandchild {
		if err := s.spawnGrandchild(); err != nil {
			fmt.Fprintln(s.p.stderr, "fake claude: grandchild:", err)
			s.rec.Error = err.Error()
			return s.save(70)
		}
	}
	if len(prompts) == 0 {
		s.rec.Outcome = fakeproto.OutcomeNoInput
	}
	code := 0
	for _, prompt := range prompts {
		if code = s.turn(prompt); code == hangExit {
			return code
		}
	}
	s.runHooks("SessionEnd", "other", map[string]any{"reason": "other"})
	return s.save(code)
}

// readInput returns the user messages: stream-json lines from stdin until EOF, or else the
// last positional argument, or else all of stdin as one prompt.
func (s *session) readInput(f fakeproto.Flags, positionals []string) ([]string, error) {
	if f.InputFormat != "stream-json" && len(positionals) > 0 {
		return positionals[len(positionals)-1:], nil
	}
	b, err := io.ReadAll(s.p.stdin)
	s.rec.Stdin = string(b)
	if err != nil {
		return nil, fmt.Errorf("Error: reading stdin: %w", err)
	}
	if f.InputFormat != "stream-json" {
		if strings.TrimSpace(string(b)) == "" {
			return nil, &usageError{"Error: Input must be provided either through stdin or as a prompt argument when using --print"}
		}
		return []string{string(b)}, nil
	}
	prompts := []string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), len(b)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		text, err := userMessageText(line)
		if err != nil {
			return nil, &usageError{"Error parsing streaming input line: " + line + ": " + err.Error()}
		}
		prompts = append(prompts, text)
	}
	return prompts, sc.Err()
}

// userMessageText extracts the text of one stream-json user message; content is a string or
// an array of blocks, of which text blocks count.
func userMessageText(line string) (string, error) {
	var msg struct {
		Type    string `json:"type"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		return "", err
	}
	if msg.Type != "user" || msg.Message.Role != "user" {
		return "", fmt.Errorf("expected a user message, got type %q role %q", msg.Type, msg.Message.Role)
	}
	var text string
	if err := json.Unmarshal(msg.Message.Content, &text); err == nil {
		return text, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(msg.Message.Content, &blocks); err != nil {
		return "", errors.New("message.content is neither a string nor an array of blocks")
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// mcpServers parses each --mcp-config value (inline JSON or a file) and returns the server
// names; the fake starts none of them.
func mcpServers(configs []string) ([]string, error) {
	names := []string{}
	for _, c := range configs {
		b := []byte(c)
		if !strings.HasPrefix(strings.TrimSpace(c), "{") {
			var err error
			if b, err = os.ReadFile(c); err != nil {
				return nil, &usageError{"Error: Invalid MCP configuration: " + err.Error()}
			}
		}
		var cfg struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, &usageError{"Error: Invalid MCP configuration: " + err.Error()}
		}
		for n := range cfg.MCPServers {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// runHooks runs every loaded hook of event whose matcher accepts match (events without a
// match value ignore matchers, as the CLI does), records it, and
// adds what it injects to the session's context. SessionStart hooks show in the stream as
// in the fixtures; the CLI shows others only with --include-hook-events.
func (s *session) runHooks(event, match string, extra map[string]any) {
	for _, h := range s.settings.hooks {
		if h.Event != event || (match != "" && !matches(h.Matcher, match)) {
			continue
		}
		input := map[string]any{"session_id": s.rec.SessionID, "transcript_path": s.transcriptPath,
			"cwd": s.p.cwd, "hook_event_name": event}
		for k, v := range extra {
			input[k] = v
		}
		id, name := newUUID(), event
		if event == "SessionStart" {
			name = event + ":" + match
			s.emit(s.out.hookStarted(id, name, event))
		}
		r := runHook(h, input, &s.rec)
		if event == "SessionStart" {
			s.emit(s.out.hookResponse(id, name, event, r.Stdout, r.Stderr, r.ExitCode, r.Outcome))
		}
		s.rec.HooksRan = append(s.rec.HooksRan, r)
		if ctx := injected(r); ctx != "" {
			s.rec.InjectedContext = strings.TrimSpace(s.rec.InjectedContext + "\n" + ctx)
		}
	}
}

// emit prints a line in the chosen output format: stream-json prints every line, json only
// result lines, text only the result text.
func (s *session) emit(m map[string]any) {
	switch {
	case s.format == "stream-json":
		s.out.emit(m)
	case m["type"] != "result":
	case s.format == "json":
		s.out.emit(m)
	default:
		text, _ := m["result"].(string)
		io.WriteString(s.p.stdout, strings.ReplaceAll(text, rawMark, string(s.out.raw))+"\n")
	}
}

// credential resolves the credential once, when the first request needs it.
func (s *session) credential() fakeproto.Credential {
	if !s.credResolved {
		s.rec.Credential = resolveCredential(&s.rec, s.settings, s.sc)
		s.credResolved = true
	}
	return s.rec.Credential
}

// turn answers one user message and returns the exit code it leads to.
func (s *session) turn(prompt string) int {
	permissionMode := s.rec.Flags.PermissionMode
	if permissionMode == "" {
		permissionMode = "default"
	}
	promptID := newUUID()
	s.runHooks("UserPromptSubmit", "", map[string]any{"prompt_id": promptID,
		"permission_mode": permissionMode, "prompt": prompt})
	s.appendTranscript("user", map[string]any{"role": "user", "content": prompt})
	cred := s.credential()
	init := s.out.initLine(s.p.cwd, s.rec.ConfigDir, permissionMode, cred.Source, s.rec.Tools, s.rec.MCPServers)
	if s.sc.Hang {
		// The record goes first: a test that sees the init line may kill the fake at once.
		s.rec.Outcome = fakeproto.OutcomeHang
		s.save(hangExit)
		s.emit(init)
		return hangExit
	}
	s.emit(init)
	if s.sc.Print != "" {
		s.emit(s.out.assistantText(s.sc.Print))
	}
	if s.sc.Stderr != "" {
		fmt.Fprintln(s.p.stderr, s.sc.Stderr)
	}
	if s.sc.FloodBytes > 0 {
		s.flood(s.sc.FloodBytes)
	}
	if apiErr, outcome, ok := s.apiFailure(cred); ok {
		s.rec.Outcome = outcome
		s.emit(s.out.assistantAPIError(apiErr))
		s.emit(s.out.resultAPIError(apiErr, s.started))
		if apiErr.status == 429 || apiErr.status == 529 {
			return s.sc.APIErrorExitCode()
		}
		return s.sc.AuthFailExitCode()
	}
	s.rec.APIAttempts++
	if s.sc.SendMessage && slices.Contains(s.rec.Tools, "SendMessage") {
		s.sendMessage(prompt)
	}
	answer, reply := s.sc.Answer, s.reply()
	if reply != nil {
		answer = reply.Text
	}
	switch {
	case s.rec.InjectedContext != "":
		// A hook injected instructions: the session follows them instead of answering,
		// the plan's INIT hijack (empty response, zero observations).
		answer = ""
		s.rec.Outcome = fakeproto.OutcomeHijacked
	case reply != nil:
	case answer == "":
		answer = defaultAnswer(prompt, s.rec.SessionID)
	}
	if reply != nil {
		s.out.raw = reply.Raw
	}
	if answer != "" || len(s.out.raw) > 0 {
		s.emit(s.out.assistantText(answer + rawMark))
		s.appendTranscript("assistant", map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": answer}}})
	}
	last := answer + rawMark
	if reply != nil {
		for _, part := range reply.Continue {
			s.emit(s.out.base("user_synthetic_continue"))
			s.emit(s.out.assistantText(part))
			last = part
		}
		if reply.Cut {
			s.emit(s.out.base("assistant_max_output_tokens"))
			res := s.out.base("result_max_output_tokens")
			renameModel(res, "modelUsage", s.out.model)
			renameModel(res, "model_usage_since_last_result", s.out.model)
			s.emit(res)
			return 1
		}
	}
	s.runHooks("Stop", "", map[string]any{"prompt_id": promptID, "permission_mode": permissionMode,
		"stop_hook_active": false, "last_assistant_message": answer})
	res := s.out.resultSuccess(last, s.started)
	if u := s.sc.Usage; u != nil {
		withUsage(res, *u, s.out.model)
	}
	s.emit(res)
	if s.sc.FillDisk != "" {
		s.fillDisk(s.sc.FillDisk)
	}
	return 0
}

// fillDisk waits (up to 20 s) for the result line to be in the transcript its reader keeps
// in the fake's cwd, then writes path until the filesystem has no room left.
func (s *session) fillDisk(path string) {
	transcript := filepath.Join(s.p.cwd, "transcript.jsonl")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(transcript); err == nil && bytes.Contains(b, []byte(`"type":"result"`)) {
			break
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(s.p.stderr, "fill disk:", err)
		return
	}
	defer f.Close()
	// Page-sized writes, then single bytes: nothing is left, not even a page's tail.
	for _, size := range []int{4096, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
	}
}

// reply is this invocation's entry of Scenario.Answers, nil without them.
func (s *session) reply() *fakeproto.Reply {
	if len(s.sc.Answers) == 0 {
		return nil
	}
	n := 0
	entries, _ := os.ReadDir(fakeproto.RecordsDir(s.p.exe))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return &s.sc.Answers[min(n, len(s.sc.Answers)-1)]
}

// flood writes n bytes of assistant lines to stdout, 64 KiB a write; a write error (the
// reader is gone) ends it.
func (s *session) flood(n int64) {
	b, _ := json.Marshal(s.out.assistantText(strings.Repeat("x", 64<<10-200)))
	line := append(b, '\n')
	for ; n > 0; n -= int64(len(line)) {
		if _, err := s.p.stdout.Write(line); err != nil {
			return
		}
	}
}

// apiFailure decides whether the turn's request fails, printing the retries the CLI makes
// (CLAUDE_CODE_MAX_RETRIES, default 10) for the statuses it retries. Not logged in sends no
// request; 403 is not retried (fixtures).
func (s *session) apiFailure(cred fakeproto.Credential) (apiError, string, bool) {
	var e apiError
	var outcome string
	switch {
	case cred.Source == fakeproto.CredNone:
		return errNoCredentials, fakeproto.OutcomeNoCredentials, true
	case s.sc.Status == 401 || (len(s.sc.ValidCredentials) > 0 && !slices.Contains(s.sc.ValidCredentials, cred.Value)):
		e, outcome = errInvalidKey, fakeproto.OutcomeInvalidKey
	case s.sc.Status == 403:
		s.rec.APIAttempts++
		return errForbidden, fakeproto.OutcomeForbidden, true
	case s.sc.Status == 429:
		e, outcome = errRateLimited, fakeproto.OutcomeRateLimited
	case s.sc.Status == 529:
		e, outcome = errOverloaded, fakeproto.OutcomeOverloaded
	default:
		return e, "", false
	}
	retries := maxRetries(s.p.env)
	for attempt := 1; attempt <= retries; attempt++ {
		s.emit(s.out.apiRetry(e, attempt, retries))
	}
	s.rec.APIAttempts += retries + 1
	return e, outcome, true
}

// maxRetries is CLAUDE_CODE_MAX_RETRIES when it is a whole number ≥ 0, else the CLI's 10.
func maxRetries(env map[string]string) int {
	if n, err := strconv.Atoi(env["CLAUDE_CODE_MAX_RETRIES"]); err == nil && n >= 0 {
		return n
	}
	return 10
}

// defaultAnswer is one observation quoting the first 40 characters of the input, escaped so
// the block stays well-formed whatever the input holds.
func defaultAnswer(prompt, sessionID string) string {
	r := []rune(strings.Join(strings.Fields(prompt), " "))
	quote := string(r[:min(len(r), 40)])
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(quote)
	return "<observation>\n" +
		"  <type>discovery</type>\n" +
		// The run's session id in the title makes every run's observation distinct: one
		// with the type and title of one from the last week is a duplicate, not stored.
		"  <title>Observed: " + esc + " (run " + sessionID[:min(len(sessionID), 8)] + ")</title>\n" +
		"  <subtitle>fake claude observation</subtitle>\n" +
		"  <facts>\n    <fact>The input began with: " + esc + "</fact>\n  </facts>\n" +
		"  <narrative>The fake claude (session " + sessionID + ") read an input beginning with: " + esc + "</narrative>\n" +
		"  <concepts>\n    <concept>how-it-works</concept>\n  </concepts>\n" +
		"  <files_read></files_read>\n" +
		"  <files_modified></files_modified>\n" +
		"</observation>"
}

// appendTranscript adds one entry to the session transcript, unless persistence is off.
func (s *session) appendTranscript(typ string, message map[string]any) {
	if s.transcript == "" {
		return
	}
	entry := map[string]any{"type": typ, "sessionId": s.rec.SessionID, "cwd": s.p.cwd,
		"version": "2.1.328", "uuid": newUUID(), "timestamp": timestamp(), "message": message}
	b, _ := json.Marshal(entry)
	if err := os.MkdirAll(filepath.Dir(s.transcript), 0o755); err != nil {
		fmt.Fprintln(s.p.stderr, "fake claude: transcript:", err)
		return
	}
	f, err := os.OpenFile(s.transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(s.p.stderr, "fake claude: transcript:", err)
		return
	}
	defer f.Close()
	f.Write(append(b, '\n'))
	if !slices.Contains(s.rec.FilesWritten, s.transcript) {
		s.rec.FilesWritten = append(s.rec.FilesWritten, s.transcript)
	}
}

// sendMessage "sends" a peer message: the tool call and its result in the stream, and a file
// under the records dir that the matrix can look for.
func (s *session) sendMessage(prompt string) {
	id := "toolu_" + strings.ReplaceAll(newUUID(), "-", "")[:20]
	msg := fakeproto.SentMessage{SessionID: s.rec.SessionID, To: "*",
		Message: "observer instruction derived from: " + firstRunes(prompt, 40)}
	s.emit(s.out.toolUse(id, "SendMessage", map[string]any{"to": msg.To, "message": msg.Message}))
	path, err := writeNumbered(fakeproto.SentMessagesDir(s.p.exe), msg)
	if err != nil {
		fmt.Fprintln(s.p.stderr, "fake claude: SendMessage:", err)
		s.emit(s.out.toolResult(id, "error: "+err.Error()))
		return
	}
	s.rec.SentMessages = append(s.rec.SentMessages, path)
	s.rec.FilesWritten = append(s.rec.FilesWritten, path)
	s.emit(s.out.toolResult(id, "Message sent"))
}

func firstRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(len(r), n)])
}

// writeNumbered writes v as the first free <n>.json in dir; O_EXCL keeps concurrent fakes
// from taking the same number.
func writeNumbered(dir string, v any) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	for n := 1; ; n++ {
		path := filepath.Join(dir, strconv.Itoa(n)+".json")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(b)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return path, werr
	}
}

// spawnGrandchild starts a sleeping copy of the fake in the fake's own process group (the
// default), with no stdio, the way a tool's background process would linger.
func (s *session) spawnGrandchild() error {
	cmd := exec.Command(s.p.exe)
	env := make([]string, 0, len(s.p.env)+1)
	for k, v := range s.p.env {
		env = append(env, k+"="+v)
	}
	cmd.Env = append(env, grandchildEnv+"=1")
	if err := cmd.Start(); err != nil {
		return err
	}
	s.rec.GrandchildPID = cmd.Process.Pid
	return cmd.Process.Release()
}
