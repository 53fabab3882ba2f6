// Package permit decides whether Claude Code lets the model call claude-mem's memory tools
// without asking, and adds or removes the one permissions.allow rule that does. Without it,
// `claude -p` refuses every memory tool call and an interactive session asks at each one.
//
// The user's settings file is edited as text: the rule is spliced in (or out) and every
// other byte stays as it was, so key order, formatting and comments-free layout survive, and
// removing what Add added gives back the file byte for byte.
package permit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Rule is the permission rule that allows every tool of the plugin's MCP server: Claude Code
// names them mcp__plugin_<plugin>_<server>__<tool>, and a rule naming the server allows all.
const Rule = "mcp__plugin_claude-mem_memory"

// State is what the settings say of the memory tools.
type State string

const (
	Allowed    State = "allowed"     // permissions.allow holds Rule (or Rule__*)
	NotAllowed State = "not allowed" // the model is asked (or, with -p, refused) at each call
	Denied     State = "denied"      // permissions.deny names them: the user said no
)

// ParseError is a settings file that is not a JSON object: it is never rewritten.
type ParseError struct {
	Path string
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s: %v; not changed (fix the file, or add %q to permissions.allow by hand)", e.Path, e.Err, Rule)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Check reads the settings file at path (missing: NotAllowed).
func Check(path string) (State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return NotAllowed, nil
	}
	if err != nil {
		return "", err
	}
	d, err := parse(path, b)
	if err != nil {
		return "", err
	}
	return d.state(), nil
}

// Added says which part of the settings Add created, so Remove takes back only that: the
// rule alone, or the allow list, the permissions object or the whole file it made for it.
type Added string

const (
	AddedNothing     Added = ""            // the rule was already there
	AddedRule        Added = "rule"        // one element of an existing allow list
	AddedAllow       Added = "allow"       // the allow list, in an existing permissions object
	AddedPermissions Added = "permissions" // the permissions object
	AddedFile        Added = "file"        // the settings file itself
)

// Add puts Rule into permissions.allow of the settings file at path, creating what is
// missing. The old file is copied to backup first (when there is one); the new one is written
// to a temporary file and renamed over it (the target of a symlink, which stays a symlink).
func Add(path, backup string) (Added, error) {
	target, b, err := read(path)
	if errors.Is(err, os.ErrNotExist) {
		return AddedFile, write(target, []byte(newFile), "")
	}
	if err != nil {
		return AddedNothing, err
	}
	d, err := parse(path, b)
	if err != nil {
		return AddedNothing, err
	}
	if d.state() == Allowed {
		return AddedNothing, nil
	}
	out, added := d.add()
	return added, write(target, out, backup)
}

// Remove takes back what Add added (as it reported): the rule, and the containers Add made
// for it once they are empty again. A rule the user had before is never removed.
func Remove(path string, added Added) error {
	if added == AddedNothing {
		return nil
	}
	target, b, err := read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	d, err := parse(path, b)
	if err != nil {
		return err
	}
	if added == AddedFile && bytes.Equal(b, []byte(newFile)) {
		return os.Remove(target)
	}
	out := d.remove(added)
	if bytes.Equal(out, b) {
		return nil
	}
	return write(target, out, "")
}

// newFile is the settings file Add writes where there was none.
const newFile = "{\n  \"permissions\": {\n    \"allow\": [\n      \"" + Rule + "\"\n    ]\n  }\n}\n"

func read(path string) (string, []byte, error) {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	b, err := os.ReadFile(target)
	return target, b, err
}

// write replaces path with b atomically, keeping its mode (0600 for a new file), after
// copying the old content to backup ("" for none): see keep.
func write(path string, b []byte, backup string) error {
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		if backup != "" {
			old, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := keep(backup, old); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return replace(path, b, mode)
}

// keep writes old, the settings file's content, to backup (0600: settings may hold
// secrets) the way replace writes, so a failed backup leaves the one before it whole.
func keep(backup string, old []byte) error {
	if err := replace(backup, old, 0o600); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// replace writes b to path through a synced temporary file beside it and a rename, so
// path holds its old content or the new, never part of either (a full disk, a kill).
func replace(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// doc is a parsed settings file: its bytes and where its parts are.
type doc struct {
	b           []byte
	top         object
	perms       *object // nil: no permissions object
	allow, deny *array  // nil: no such list
}

func parse(path string, b []byte) (*doc, error) {
	if !json.Valid(b) {
		var v any
		return nil, &ParseError{Path: path, Err: json.Unmarshal(b, &v)}
	}
	i := skipWS(b, 0)
	if b[i] != '{' {
		return nil, &ParseError{Path: path, Err: errors.New("not a JSON object")}
	}
	d := &doc{b: b, top: members(b, i)}
	m := d.top.get("permissions")
	if m == nil {
		return d, nil
	}
	if b[m.val] != '{' {
		return nil, &ParseError{Path: path, Err: errors.New("permissions is not an object")}
	}
	p := members(b, m.val)
	d.perms = &p
	for _, l := range []struct {
		name string
		to   **array
	}{{"allow", &d.allow}, {"deny", &d.deny}} {
		if m := p.get(l.name); m != nil {
			if b[m.val] != '[' {
				return nil, &ParseError{Path: path, Err: fmt.Errorf("permissions.%s is not a list", l.name)}
			}
			a := elements(b, m.val)
			*l.to = &a
		}
	}
	return d, nil
}

func (d *doc) state() State {
	ours := func(a *array) bool {
		return a != nil && slices.ContainsFunc(a.strings(d.b), func(s string) bool { return s == Rule || s == Rule+"__*" })
	}
	switch {
	case ours(d.deny):
		return Denied
	case ours(d.allow):
		return Allowed
	}
	return NotAllowed
}

var quotedRule = `"` + Rule + `"`

// add splices the rule in where it belongs.
func (d *doc) add() ([]byte, Added) {
	switch {
	case d.allow != nil:
		return d.allow.insert(d.b, quotedRule), AddedRule
	case d.perms != nil:
		return d.perms.insert(d.b, `"allow": [`+quotedRule+`]`), AddedAllow
	}
	return d.top.insert(d.b, `"permissions": {"allow": [`+quotedRule+`]}`), AddedPermissions
}

// remove splices out the rule and, within what Add created, the containers left empty.
func (d *doc) remove(added Added) []byte {
	if d.allow == nil {
		return d.b
	}
	at := slices.IndexFunc(d.allow.strings(d.b), func(s string) bool { return s == Rule })
	if at < 0 {
		return d.b
	}
	if len(d.allow.items) > 1 || added == AddedRule {
		return d.allow.cut(d.b, at)
	}
	if len(d.perms.items) > 1 || added == AddedAllow { // AddedPermissions, AddedFile: the object goes too
		return d.perms.cut(d.b, d.perms.index("allow"))
	}
	return d.top.cut(d.b, d.top.index("permissions"))
}

// item is one member of an object (key at start, value at val) or one element of an array
// (start == val), ending at end.
type item struct {
	key             string
	start, val, end int
}

// list is an object's members or an array's elements, between open and close (the
// brackets' offsets).
type list struct {
	open, close int
	items       []item
}

type (
	object struct{ list }
	array  struct{ list }
)

func (o object) get(key string) *item {
	if i := o.index(key); i >= 0 {
		return &o.items[i]
	}
	return nil
}

// index is the last member named key (the one a JSON reader keeps), or -1.
func (o object) index(key string) int {
	for i := len(o.items) - 1; i >= 0; i-- {
		if o.items[i].key == key {
			return i
		}
	}
	return -1
}

func (a array) strings(b []byte) []string {
	var out []string
	for _, it := range a.items {
		var s string
		if json.Unmarshal(b[it.val:it.end], &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// insert adds text as the last item, separated from the one before as that one is from its
// own predecessor (the list's indentation), or right after the open bracket when empty.
func (l list) insert(b []byte, text string) []byte {
	if len(l.items) == 0 {
		return splice(b, l.open+1, l.open+1, text)
	}
	last := l.items[len(l.items)-1]
	var sep []byte
	if len(l.items) > 1 {
		prev := l.items[len(l.items)-2]
		sep = b[skipComma(b, prev.end):last.start]
	} else {
		sep = b[l.open+1 : last.start]
	}
	return splice(b, last.end, last.end, ","+string(sep)+text)
}

// cut removes item i with the separator insert would have added for it.
func (l list) cut(b []byte, i int) []byte {
	switch {
	case len(l.items) == 1:
		return splice(b, l.items[0].start, l.items[0].end, "")
	case i > 0:
		return splice(b, l.items[i-1].end, l.items[i].end, "")
	}
	return splice(b, l.items[0].start, l.items[1].start, "")
}

func splice(b []byte, lo, hi int, text string) []byte {
	out := make([]byte, 0, len(b)+len(text))
	out = append(append(append(out, b[:lo]...), text...), b[hi:]...)
	return out
}

// The scanner below reads a document json.Valid accepted, so it needs no error paths.

func skipWS(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\r\n", b[i]) >= 0 {
		i++
	}
	return i
}

// skipComma is the offset past the blanks and the comma after an item ending at i.
func skipComma(b []byte, i int) int {
	i = skipWS(b, i)
	if i < len(b) && b[i] == ',' {
		i++
	}
	return i
}

// valueEnd is the offset just past the value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = valueEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && strings.IndexByte(" \t\r\n,]}", b[i]) < 0 {
		i++
	}
	return i
}

func members(b []byte, open int) object {
	o := object{list{open: open}}
	i := skipWS(b, open+1)
	for b[i] != '}' {
		kend := valueEnd(b, i)
		var key string
		_ = json.Unmarshal(b[i:kend], &key)
		v := skipWS(b, skipWS(b, kend)+1) // past the colon
		end := valueEnd(b, v)
		o.items = append(o.items, item{key: key, start: i, val: v, end: end})
		i = skipWS(b, skipComma(b, end))
	}
	o.close = i
	return o
}

func elements(b []byte, open int) array {
	a := array{list{open: open}}
	i := skipWS(b, open+1)
	for b[i] != ']' {
		end := valueEnd(b, i)
		a.items = append(a.items, item{start: i, val: i, end: end})
		i = skipWS(b, skipComma(b, end))
	}
	a.close = i
	return a
}

// Paths are the settings file the rule goes in, its backup, and the record of what Add
// added (in claude-mem's data dir, which uninstall keeps), so Disallow takes back only that.
//
// The backup is the user's own file: the settings as they were before claude-mem changed
// them. Allow takes it before splicing the rule in; install takes it first of all (BackUp),
// before Claude Code's own `claude plugin marketplace add` and `plugin install` rewrite the
// file, and before Allow, whose backup then copies the same bytes again.
type Paths struct {
	Settings, Backup, Record string
}

// SettingsFile is Claude Code's user settings file in its config dir.
func SettingsFile(claudeConfigDir string) string {
	return filepath.Join(claudeConfigDir, "settings.json")
}

// PathsFor is Paths for Claude Code's user config dir and claude-mem's data dir.
func PathsFor(claudeConfigDir, dataDir string) Paths {
	s := SettingsFile(claudeConfigDir)
	return Paths{Settings: s, Backup: s + ".bak-claude-mem", Record: filepath.Join(dataDir, "permissions-added.json")}
}

// Result is what Allow or Disallow did, for a person (Message) and for --json.
type Result struct {
	State    State  `json:"state"`
	Settings string `json:"settings"`
	Changed  bool   `json:"changed"`
	Backup   string `json:"backup,omitempty"`
	Message  string `json:"message"`
}

// record is what Allow keeps at Paths.Record.
type record struct {
	Settings string `json:"settings"`
	Added    Added  `json:"added"`
}

// Allow adds the rule (unless the user denied the tools: their deny wins, and is reported)
// and records what it added.
func Allow(p Paths) (Result, error) {
	r := Result{Settings: p.Settings}
	st, err := Check(p.Settings)
	if err != nil {
		return r, err
	}
	r.State = st
	switch st {
	case Denied:
		r.Message = fmt.Sprintf("the memory tools are denied in %s (permissions.deny names %s); not changed: remove that rule to allow them", p.Settings, Rule)
		return r, nil
	case Allowed:
		r.Message = fmt.Sprintf("the memory tools are already allowed in %s", p.Settings)
		return r, nil
	}
	_, statErr := os.Stat(p.Settings)
	added, err := Add(p.Settings, p.Backup)
	if err != nil {
		return r, err
	}
	b, _ := json.Marshal(record{Settings: p.Settings, Added: added})
	if err := os.WriteFile(p.Record, append(b, '\n'), 0o600); err != nil {
		return r, fmt.Errorf("the rule was added, but what was added could not be recorded for uninstall: %w", err)
	}
	r.State, r.Changed = Allowed, true
	r.Message = fmt.Sprintf("the memory tools are allowed: added %q to permissions.allow in %s", Rule, p.Settings)
	if statErr == nil {
		r.Backup = p.Backup
		r.Message += " (the old file is kept as " + p.Backup + ")"
	}
	return r, nil
}

// BackUp copies the settings file, as it is now, to the backup (see Paths); with no
// settings file there is nothing to keep, and nothing is written.
func BackUp(p Paths) (Result, error) {
	r := Result{Settings: p.Settings}
	_, old, err := read(p.Settings) // kept whether or not it parses: it is the user's
	if errors.Is(err, os.ErrNotExist) {
		r.Message = fmt.Sprintf("no settings file at %s yet: nothing to back up", p.Settings)
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := keep(p.Backup, old); err != nil {
		return r, err
	}
	r.Backup = p.Backup
	r.Message = fmt.Sprintf("kept %s as it is now in %s", p.Settings, p.Backup)
	return r, nil
}

// Disallow takes back what Allow recorded; a rule the user added themselves stays.
func Disallow(p Paths) (Result, error) {
	r := Result{Settings: p.Settings}
	b, err := os.ReadFile(p.Record)
	if errors.Is(err, os.ErrNotExist) {
		r.State, _ = Check(p.Settings)
		r.Message = fmt.Sprintf("nothing to take back: claude-mem added no rule to %s", p.Settings)
		return r, nil
	}
	if err != nil {
		return r, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return r, fmt.Errorf("%s: %w", p.Record, err)
	}
	r.Settings = rec.Settings
	if err := Remove(rec.Settings, rec.Added); err != nil {
		return r, err
	}
	if err := os.Remove(p.Record); err != nil {
		return r, err
	}
	r.State, _ = Check(rec.Settings)
	r.Changed = rec.Added != AddedNothing
	r.Message = fmt.Sprintf("took back the rule claude-mem added to %s", rec.Settings)
	return r, nil
}
