package permit

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The settings files a user may have, each added to and then restored byte for byte.
var roundTrips = []struct {
	name, before string
	added        Added
}{
	{"empty object", `{}`, AddedPermissions},
	{"empty object with a newline", "{}\n", AddedPermissions},
	{"pretty, other keys", "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"[{x}]\\\"\"\n  },\n  \"hooks\": {}\n}\n", AddedPermissions},
	{"permissions without allow", "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\"]\n  },\n  \"z\": 1\n}\n", AddedAllow},
	{"empty permissions", `{"permissions": {}}`, AddedAllow},
	{"empty allow", `{"permissions": {"allow": []}}`, AddedRule},
	{"empty allow with blanks", "{\"permissions\": {\"allow\": [ ]}}", AddedRule},
	{"one rule", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test)\"\n    ]\n  }\n}\n", AddedRule},
	{"two rules, tabs", "{\n\t\"permissions\": {\n\t\t\"allow\": [\n\t\t\t\"Bash(npm test)\",\n\t\t\t\"Read\"\n\t\t],\n\t\t\"ask\": []\n\t}\n}", AddedRule},
	{"compact", `{"a":[1,2,{"b":"}"}],"permissions":{"allow":["Read","WebFetch(domain:go.dev)"],"deny":[]}}`, AddedRule},
	{"a similar rule only", `{"permissions":{"allow":["mcp__plugin_claude-mem_memory__search_x"]}}`, AddedRule},
}

func TestAddRemoveRoundTrip(t *testing.T) {
	for _, tc := range roundTrips {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, backup := filepath.Join(dir, "settings.json"), filepath.Join(dir, "settings.json.bak")
			if err := os.WriteFile(path, []byte(tc.before), 0o640); err != nil {
				t.Fatal(err)
			}
			if st, err := Check(path); err != nil || st != NotAllowed {
				t.Fatalf("before: %v %v, want %v (the control)", st, err, NotAllowed)
			}
			added, err := Add(path, backup)
			if err != nil || added != tc.added {
				t.Fatalf("Add: %q %v, want %q", added, err, tc.added)
			}
			after, _ := os.ReadFile(path)
			if st, err := Check(path); err != nil || st != Allowed {
				t.Fatalf("after Add: %v %v\n%s", st, err, after)
			}
			if !json.Valid(after) {
				t.Fatalf("after Add, not JSON:\n%s", after)
			}
			if b, _ := os.ReadFile(backup); string(b) != tc.before {
				t.Errorf("backup %q, want the old file", b)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's own 0640", fi.Mode().Perm())
			}
			// Every other key keeps its value and its place.
			if got, want := withoutRule(t, after), decode(t, []byte(tc.before)); !reflect.DeepEqual(got, want) {
				t.Errorf("other keys changed:\n got %v\nwant %v", got, want)
			}
			if again, err := Add(path, backup); err != nil || again != AddedNothing {
				t.Errorf("a second Add: %q %v, want nothing added", again, err)
			}
			if err := Remove(path, added); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.before {
				t.Errorf("after Remove:\n%s\nwant the file as it was:\n%s", b, tc.before)
			}
		})
	}
}

// decode is the document without key order, and with empty permission lists and an empty
// permissions object dropped (Add may have made them; Remove takes them back).
func decode(t *testing.T, b []byte) map[string]any {
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if p, ok := v["permissions"].(map[string]any); ok {
		for k, l := range p {
			if l, ok := l.([]any); ok && len(l) == 0 {
				delete(p, k)
			}
		}
		if len(p) == 0 {
			delete(v, "permissions")
		}
	}
	return v
}

// withoutRule is decode with Rule taken out of permissions.allow.
func withoutRule(t *testing.T, b []byte) map[string]any {
	var v map[string]any
	json.Unmarshal(b, &v)
	p := v["permissions"].(map[string]any)
	kept := []any{}
	for _, r := range p["allow"].([]any) {
		if r != Rule {
			kept = append(kept, r)
		}
	}
	p["allow"] = kept
	out, _ := json.Marshal(v)
	return decode(t, out)
}

func TestAddCreatesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "claude", "settings.json")
	added, err := Add(path, path+".bak")
	if err != nil || added != AddedFile {
		t.Fatalf("Add: %q %v", added, err)
	}
	if st, _ := Check(path); st != Allowed {
		t.Fatalf("state %v", st)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup of no file: %v", err)
	}
	if err := Remove(path, added); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file Add made is still there: %v", err)
	}
}

// A rule the user had before install is theirs: Add adds nothing, and Remove of nothing
// leaves it. The control: Remove of an added rule does take it out.
func TestRemoveKeepsTheUsersRule(t *testing.T) {
	for _, rule := range []string{Rule, Rule + "__*"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "settings.json")
		before := `{"permissions":{"allow":["Read","` + rule + `"]}}`
		os.WriteFile(path, []byte(before), 0o600)
		added, err := Add(path, "")
		if err != nil || added != AddedNothing {
			t.Fatalf("%s: Add %q %v, want nothing added", rule, added, err)
		}
		if err := Remove(path, added); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != before {
			t.Errorf("%s: %s, want it kept", rule, b)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"permissions":{"allow":["Read","`+Rule+`"]}}`), 0o600)
	if err := Remove(path, AddedRule); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"permissions":{"allow":["Read"]}}` {
		t.Errorf("control: %s", b)
	}
}

// The user edited the file after install: Remove takes only the rule out, and keeps a
// container that now holds something of theirs.
func TestRemoveAfterTheUserEdited(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"model":"opus"}`), 0o600)
	added, _ := Add(path, "")
	b, _ := os.ReadFile(path)
	edited := strings.Replace(string(b), `["`+Rule+`"]`, `["Read", "`+Rule+`"]`, 1)
	os.WriteFile(path, []byte(edited), 0o600)
	if err := Remove(path, added); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"model":"opus","permissions": {"allow": ["Read"]}}` {
		t.Errorf("%s", b)
	}
}

func TestDenied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"permissions":{"allow":["`+Rule+`"],"deny":["`+Rule+`"]}}`), 0o600)
	if st, err := Check(path); err != nil || st != Denied {
		t.Errorf("%v %v, want %v: a deny wins in Claude Code", st, err, Denied)
	}
}

// A file that does not parse, or has another shape, is refused and left as it is.
func TestRefused(t *testing.T) {
	for _, bad := range []string{`{"permissions": {"allow": [}`, `[]`, `"x"`, `{"permissions": []}`, `{"permissions": {"allow": "Read"}}`, "{\"a\": 1,}", ""} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(bad), 0o600)
		_, err := Add(path, path+".bak")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "not changed") {
			t.Errorf("%q: %v, want a ParseError", bad, err)
		}
		if b, _ := os.ReadFile(path); string(b) != bad {
			t.Errorf("%q rewritten: %q", bad, b)
		}
		if _, err := Check(path); !errors.As(err, &pe) {
			t.Errorf("Check %q: %v", bad, err)
		}
	}
}

// A settings file that is a symlink (a dotfiles repository) stays one: its target is edited.
func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "dotfiles-settings.json"), filepath.Join(dir, "settings.json")
	os.WriteFile(target, []byte(`{}`), 0o600)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Add(link, ""); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if st, _ := Check(target); st != Allowed {
		t.Errorf("target: %v", st)
	}
}

// TestBackUp: BackUp keeps the settings file's bytes as they are (a file that does not
// parse too), replacing an older backup; with no file it writes nothing. Allow right after
// it copies the same bytes again, so the backup is the user's file whichever ran last.
func TestBackUp(t *testing.T) {
	dir := t.TempDir()
	p := PathsFor(dir, dir)
	if r, err := BackUp(p); err != nil || r.Backup != "" || !strings.Contains(r.Message, "nothing to back up") {
		t.Fatalf("no settings file: %+v %v", r, err)
	}
	if _, err := os.Stat(p.Backup); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a backup of no file: %v", err)
	}
	for _, user := range []string{"{\n  \"model\": \"opus\"\n}\n", `{"model": "opus",`} {
		os.WriteFile(p.Backup, []byte("an older backup"), 0o644)
		os.WriteFile(p.Settings, []byte(user), 0o644)
		r, err := BackUp(p)
		if err != nil || r.Backup != p.Backup {
			t.Fatalf("%q: %+v %v", user, r, err)
		}
		if b, _ := os.ReadFile(p.Backup); string(b) != user {
			t.Errorf("backup %q, want the user's %q", b, user)
		}
		if fi, _ := os.Stat(p.Backup); fi.Mode().Perm() != 0o600 {
			t.Errorf("backup mode %v, want 0600", fi.Mode().Perm())
		}
		if b, _ := os.ReadFile(p.Settings); string(b) != user {
			t.Errorf("BackUp changed the settings: %q", b)
		}
	}
	os.WriteFile(p.Settings, []byte(roundTrips[2].before), 0o600)
	if _, err := BackUp(p); err != nil {
		t.Fatal(err)
	}
	if _, err := Allow(p); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p.Backup); string(b) != roundTrips[2].before {
		t.Errorf("after BackUp and Allow the backup is %q, want the user's file", b)
	}
}
