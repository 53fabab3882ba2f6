package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claude-mem/claude-mem-go/tests/fakeclaude/fakeproto"
)

// usageError is a bad command line: the real CLI prints it and exits 1 before any output.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

type flagKind int

const (
	boolFlag     flagKind = iota
	valueFlag             // <value>: takes the next token whatever it is
	variadicFlag          // <values...>: the next token, then every token up to the next flag
)

// flagSpec is one flag of the real CLI, with where its value goes.
type flagSpec struct {
	kind     flagKind
	boolean  func(*fakeproto.Flags) *bool
	value    func(*fakeproto.Flags, string)
	variadic func(*fakeproto.Flags) *[]string
}

func boolSpec(f func(*fakeproto.Flags) *bool) flagSpec { return flagSpec{kind: boolFlag, boolean: f} }
func valueSpec(f func(*fakeproto.Flags, string)) flagSpec {
	return flagSpec{kind: valueFlag, value: f}
}
func variadicSpec(f func(*fakeproto.Flags) *[]string) flagSpec {
	return flagSpec{kind: variadicFlag, variadic: f}
}

// flagSpecs is the flag set the observer uses, with the arities of Claude Code 2.1.328
// (commander.js): the tool and MCP lists are variadic, the rest take one value.
var flagSpecs = map[string]flagSpec{
	"-p":                       boolSpec(func(f *fakeproto.Flags) *bool { return &f.Print }),
	"--print":                  boolSpec(func(f *fakeproto.Flags) *bool { return &f.Print }),
	"--verbose":                boolSpec(func(f *fakeproto.Flags) *bool { return &f.Verbose }),
	"--strict-mcp-config":      boolSpec(func(f *fakeproto.Flags) *bool { return &f.StrictMCPConfig }),
	"--no-session-persistence": boolSpec(func(f *fakeproto.Flags) *bool { return &f.NoSessionPersistence }),
	"--input-format":           valueSpec(func(f *fakeproto.Flags, v string) { f.InputFormat = v }),
	"--output-format":          valueSpec(func(f *fakeproto.Flags, v string) { f.OutputFormat = v }),
	"--setting-sources":        valueSpec(func(f *fakeproto.Flags, v string) { f.SettingSources = &v }),
	"--permission-mode":        valueSpec(func(f *fakeproto.Flags, v string) { f.PermissionMode = v }),
	"--model":                  valueSpec(func(f *fakeproto.Flags, v string) { f.Model = v }),
	"--settings":               valueSpec(func(f *fakeproto.Flags, v string) { f.Settings = &v }),
	"--system-prompt":          valueSpec(func(f *fakeproto.Flags, v string) { f.SystemPrompt = &v }),
	"--tools":                  variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.Tools }),
	"--disallowedTools":        variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.DisallowedTools }),
	"--disallowed-tools":       variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.DisallowedTools }),
	"--allowedTools":           variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.AllowedTools }),
	"--allowed-tools":          variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.AllowedTools }),
	"--mcp-config":             variadicSpec(func(f *fakeproto.Flags) *[]string { return &f.MCPConfig }),
}

// maybeOption is commander's test for "this token is a flag".
func maybeOption(a string) bool { return len(a) > 1 && a[0] == '-' }

// parseArgs parses argv (without argv[0]) the way commander.js does: a flag's value is the
// next token even when it looks like a flag (so `--setting-sources --permission-mode` gives
// the source "--permission-mode"), `--x=v` is always exactly one value, and a variadic flag
// keeps taking tokens until the next flag.
func parseArgs(args []string) (fakeproto.Flags, []string, error) {
	var f fakeproto.Flags
	var positionals []string
	var active *[]string // the variadic flag still taking values
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positionals = append(positionals, args[i+1:]...)
			break
		}
		if active != nil && !maybeOption(a) {
			*active = append(*active, a)
			continue
		}
		active = nil
		if !maybeOption(a) {
			positionals = append(positionals, a)
			continue
		}
		name, val, hasEq := a, "", false
		if strings.HasPrefix(a, "--") {
			if k := strings.IndexByte(a, '='); k > 0 {
				name, val, hasEq = a[:k], a[k+1:], true
			}
		}
		spec, ok := flagSpecs[name]
		if !ok || (hasEq && spec.kind == boolFlag) {
			return f, positionals, &usageError{fmt.Sprintf("error: unknown option '%s'", a)}
		}
		if spec.kind == boolFlag {
			*spec.boolean(&f) = true
			continue
		}
		if !hasEq {
			if i+1 >= len(args) {
				return f, positionals, &usageError{fmt.Sprintf("error: option '%s <value>' argument missing", name)}
			}
			i++
			val = args[i]
		}
		if spec.kind == valueFlag {
			spec.value(&f, val)
			continue
		}
		list := spec.variadic(&f)
		*list = append(*list, val)
		if !hasEq {
			active = list
		}
	}
	return f, positionals, validate(f)
}

var (
	validSources         = []string{"user", "project", "local"}
	validPermissionModes = []string{"acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"}
	validInputFormats    = []string{"text", "stream-json"}
	validOutputFormats   = []string{"text", "json", "stream-json"}
)

// validate applies the CLI's checks after parsing. The first message is the one the old
// observer bug produced; the others follow commander's and the CLI's wording as far as the
// product depends on them, which is only "exit 1 before any output".
func validate(f fakeproto.Flags) error {
	if f.SettingSources != nil {
		for _, s := range splitList(*f.SettingSources) {
			if !slices.Contains(validSources, s) {
				return &usageError{"Error: Invalid setting source: " + s}
			}
		}
	}
	choices := []struct{ flag, value string }{
		{"--permission-mode <mode>", f.PermissionMode},
		{"--input-format <format>", f.InputFormat},
		{"--output-format <format>", f.OutputFormat},
	}
	for i, allowed := range [][]string{validPermissionModes, validInputFormats, validOutputFormats} {
		c := choices[i]
		if c.value != "" && !slices.Contains(allowed, c.value) {
			return &usageError{fmt.Sprintf("error: option '%s' argument '%s' is invalid. Allowed choices are %s.",
				c.flag, c.value, strings.Join(allowed, ", "))}
		}
	}
	if !f.Print {
		return &usageError{"fake claude: interactive mode is not emulated; pass -p"}
	}
	if f.OutputFormat == "stream-json" && !f.Verbose {
		return &usageError{"Error: When using --print, --output-format=stream-json requires --verbose"}
	}
	if f.InputFormat == "stream-json" && f.OutputFormat != "stream-json" {
		return &usageError{"Error: --input-format=stream-json requires output-format=stream-json."}
	}
	return nil
}

// settingSources returns the sources in effect: all of them unless --setting-sources names some.
func settingSources(f fakeproto.Flags) []string {
	if f.SettingSources == nil {
		return slices.Clone(validSources)
	}
	return splitList(*f.SettingSources)
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitToolRules splits tool lists given as separate tokens, commas or spaces, keeping a
// rule's parenthesized pattern whole (`Bash(git log:*)`).
func splitToolRules(values []string) []string {
	var out []string
	for _, v := range values {
		depth, start := 0, 0
		for i, r := range v + "," {
			switch {
			case r == '(':
				depth++
			case r == ')' && depth > 0:
				depth--
			case (r == ',' || r == ' ') && depth == 0:
				if t := strings.TrimSpace(v[start:min(i, len(v))]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
	}
	return out
}

// toolSet is the tool list the init line reports: --tools restricts the built-in set
// ("" → none, "default" → all), and a bare name in --disallowedTools removes that tool (a
// rule with a pattern only restricts it).
func toolSet(f fakeproto.Flags) []string {
	tools := slices.Clone(fakeproto.AllTools)
	if f.Tools != nil {
		named := splitToolRules(f.Tools)
		if !slices.Contains(named, "default") {
			tools = slices.DeleteFunc(tools, func(t string) bool { return !slices.Contains(named, t) })
		}
	}
	denied := splitToolRules(f.DisallowedTools)
	tools = slices.DeleteFunc(tools, func(t string) bool { return slices.Contains(denied, t) })
	return tools
}
