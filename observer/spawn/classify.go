package spawn

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// stream is what the stream-json output says about a run. Reasons are "" when not seen.
type stream struct {
	auth, transient           string // from the final messages (assistant, result)
	retryAuth, retryTransient string // from api_retry lines: only decisive when no result came
	results                   []result
	usage                     store.Usage // the last result line's (its cost is the session's total)
	model                     string      // from the result's modelUsage, else the init line
	// truncated: the answer was cut at the model's output limit and not completed (cutError).
	truncated bool
	// texts are the model's answer: the text of its assistant messages, each continuation
	// the CLI asked for after a cut joined to the part it continues. continued counts them.
	texts     []string
	continues bool // the last user line was the CLI's synthetic "Output token limit hit" turn
	continued int
}

// Cut answers, as Claude Code 2.1.328 reports them (pinned by tests/e2e TestMaxTokensStreams):
// a reply the API stops at max_tokens is continued by the CLI, which sends a synthetic user
// message and joins nothing itself; its result line has only the last part's text, so the
// answer is read from the assistant messages. After 3 continuations it gives up: a synthetic
// assistant message with error max_output_tokens and an is_error result with api_error
// max_output_tokens (exit 1), the answer so far being in the assistant messages before it.
// Every assistant line's stop_reason is null, the result's stop_sequence: neither tells.
const cutError = "max_output_tokens"

type result struct {
	isError                 bool
	subtype, terminal, text string
	errors                  []string
}

// add takes one line. Paths are constants: nothing from the input becomes a gjson path.
func (s *stream) add(line []byte) {
	if !gjson.ValidBytes(line) {
		return
	}
	v := gjson.ParseBytes(line)
	status := v.Get("api_error_status").Int()
	errName := v.Get("error").String()
	errType := v.Get("api_error_type").String()
	switch v.Get("type").String() {
	case "user":
		s.continues = v.Get("isSynthetic").Bool()
	case "assistant":
		text := func() string { return joinTexts(v.Get(`message.content.#(type=="text")#.text`)) }
		switch {
		case errName == "authentication_failed" || authStatus(status):
			s.auth = firstOf(s.auth, text(), apiError(status, errName))
		case transientError(status, errName, errType):
			s.transient = firstOf(s.transient, text(), apiError(status, errName))
		case errName == cutError:
			s.truncated = true
		case v.Get("is_api_error_message").Bool():
		default:
			var b strings.Builder // as written: a continuation may start mid-word
			for _, t := range v.Get(`message.content.#(type=="text")#.text`).Array() {
				b.WriteString(t.String())
			}
			s.addText(b.String())
		}
	case "result":
		if v.Get("api_error").String() == cutError {
			s.truncated = true
		}
		s.usage = store.Usage{
			InputTokens:         v.Get("usage.input_tokens").Int(),
			OutputTokens:        v.Get("usage.output_tokens").Int(),
			CacheCreationTokens: v.Get("usage.cache_creation_input_tokens").Int(),
			CacheReadTokens:     v.Get("usage.cache_read_input_tokens").Int(),
			CostUSD:             v.Get("total_cost_usd").Float(),
			DurationMS:          v.Get("duration_ms").Int(),
			DurationAPIMS:       v.Get("duration_api_ms").Int(),
		}
		v.Get("modelUsage").ForEach(func(k, _ gjson.Result) bool {
			s.model = k.String() // the first: the observer uses one model
			return false
		})
		r := result{
			isError:  v.Get("is_error").Bool() && v.Get("api_error").String() != cutError, // what was cut is kept
			subtype:  v.Get("subtype").String(),
			terminal: v.Get("terminal_reason").String(),
			text:     v.Get("result").String(),
		}
		for _, e := range v.Get("errors").Array() {
			r.errors = append(r.errors, e.String())
		}
		if authStatus(status) {
			s.auth = firstOf(s.auth, r.text, apiError(status, errType))
		} else if r.isError && transientError(status, errName, errType) {
			s.transient = firstOf(s.transient, r.text, apiError(status, errType))
		}
		s.results = append(s.results, r)
	case "system":
		if v.Get("subtype").String() == "init" && s.model == "" {
			s.model = v.Get("model").String()
		}
		if v.Get("subtype").String() != "api_retry" {
			return
		}
		st := v.Get("error_status").Int()
		why := apiError(st, errName) + " (while retrying)"
		if errName == "authentication_failed" || authStatus(st) {
			s.retryAuth = firstOf(s.retryAuth, why)
		} else if transientError(st, errName, "") {
			s.retryTransient = firstOf(s.retryTransient, why)
		}
	}
}

// classify decides a run's outcome from its stream-json stdout lines, never from prose:
// an authentication error (assistant `error:"authentication_failed"`, API status 401/403)
// is auth_failed; a rate limit, overload or server error (429, 5xx) or a timeout is
// transient; a result line with is_error false is ok; anything else (max turns, an error
// result, no result, a non-zero exit) is error. The reason names what was seen; stopped is
// why the run was stopped, "" if it was not.
func (s stream) classify(exitCode int, stopped string) (vocab.Outcome, string) {
	switch {
	case s.auth != "":
		return vocab.OutcomeAuthFailed, s.auth
	case s.transient != "":
		return vocab.OutcomeTransient, s.transient
	}
	if stopped != "" || len(s.results) == 0 {
		switch {
		case s.retryAuth != "":
			return vocab.OutcomeAuthFailed, s.retryAuth
		case stopped != "":
			return vocab.OutcomeTransient, stopped
		case s.retryTransient != "":
			return vocab.OutcomeTransient, s.retryTransient
		case exitCode != 0:
			return vocab.OutcomeError, exitText(exitCode) + " without a result"
		default:
			return vocab.OutcomeError, "no result line in the output"
		}
	}
	for _, r := range s.results {
		if r.isError {
			return vocab.OutcomeError, r.describe()
		}
	}
	if exitCode != 0 && !s.truncated { // a cut answer exits 1
		return vocab.OutcomeError, exitText(exitCode) + " after its result"
	}
	return vocab.OutcomeOK, ""
}

// addText adds an assistant message's text to the answer: to the part it continues after
// a cut, else as a part of its own.
func (s *stream) addText(t string) {
	switch {
	case t == "": // a tool use
		return
	case s.continues && len(s.texts) > 0:
		s.texts[len(s.texts)-1] += t
		s.continued++
	default:
		s.texts = append(s.texts, t)
	}
	s.continues = false
}

// text is the answer: the assistant messages' text, its cut parts joined; without any,
// every result's text, in order (one per user message; Run sends one).
func (s stream) text() string {
	if len(s.texts) > 0 {
		return strings.Join(s.texts, "\n")
	}
	parts := make([]string, len(s.results))
	for i, r := range s.results {
		parts[i] = r.text
	}
	return strings.Join(parts, "\n")
}

func (r result) describe() string {
	what := "error result"
	if r.subtype != "" && r.subtype != "success" {
		what = r.subtype
	}
	if r.terminal != "" && r.terminal != "completed" {
		what += " (" + r.terminal + ")"
	}
	var details []string
	for _, d := range append(r.errors, r.text) {
		if d != "" {
			details = append(details, d)
		}
	}
	if len(details) == 0 {
		return what
	}
	return what + ": " + strings.Join(details, "; ")
}

func authStatus(status int64) bool { return status == 401 || status == 403 }

// transientError is a failure that waiting cures: rate limits, overload, server errors.
func transientError(status int64, errName, errType string) bool {
	switch {
	case status == 408 || status == 429 || (status >= 500 && status <= 599):
		return true
	}
	switch errName {
	case "rate_limit", "overloaded", "server_error":
		return true
	}
	switch errType {
	case "rate_limit_error", "overloaded_error", "api_error", "timeout_error":
		return true
	}
	return false
}

func apiError(status int64, name string) string {
	switch {
	case status != 0 && name != "":
		return fmt.Sprintf("API error %d %s", status, name)
	case status != 0:
		return fmt.Sprintf("API error %d", status)
	case name != "":
		return "API error " + name
	}
	return "API error"
}

func exitText(code int) string {
	if code < 0 {
		return "killed by a signal"
	}
	return fmt.Sprintf("exited with code %d", code)
}

func joinTexts(v gjson.Result) string {
	var parts []string
	for _, t := range v.Array() {
		if s := strings.TrimSpace(t.String()); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
