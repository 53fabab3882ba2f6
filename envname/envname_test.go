package envname

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var ourName = regexp.MustCompile(`CLAUDE_MEM_[A-Z0-9][A-Z0-9_]*`)

// settingsTable is the names the README's settings table has a row for, in order.
func settingsTable(t *testing.T, readme string) []string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## Settings\n")
	if !ok {
		t.Fatal("README has no ## Settings section")
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var names []string
	for line := range strings.Lines(sec) {
		if cell, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ := strings.Cut(cell, "`")
			names = append(names, name)
		}
	}
	return names
}

// readmeProblems is what the README gets wrong about our names: a settings table row that
// is no setting, a setting without a row, a row twice, or a name mentioned anywhere that
// is not registered.
func readmeProblems(t *testing.T, readme string) []string {
	table := settingsTable(t, readme)
	var out []string
	if len(table) == 0 {
		out = append(out, "the settings table has no rows")
	}
	for i, name := range table {
		if Ours[name] != Setting {
			out = append(out, "the settings table documents "+name+", which is no setting")
		}
		if slices.Contains(table[i+1:], name) {
			out = append(out, name+" has two rows")
		}
	}
	for name, use := range Ours {
		if use == Setting && !slices.Contains(table, name) {
			out = append(out, "setting "+name+" has no row in the settings table")
		}
	}
	for _, name := range ourName.FindAllString(readme, -1) {
		if Ours[name] == 0 {
			out = append(out, "the README mentions "+name+", which is not registered")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The README's settings table has a row for every setting and for nothing else; any other
// of our names the README mentions is registered (a marker or a test suite's).
func TestREADMESettingsTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range readmeProblems(t, string(b)) {
		t.Error("README: " + p)
	}
}

// The check above can fail: a table with one setting's row only, an unknown row, and a
// setting's row outside the Settings section, which does not count.
func TestSettingsTableControl(t *testing.T) {
	unknown := "CLAUDE_MEM_" + "NOT_ONE" // not spelled whole: the walk below would find it
	readme := "# x\n## Settings\n\n| key | default |\n|---|---|\n| `" + Model + "` | `haiku` |\n| `" + unknown + "` | |\n## Next\n| `" + DataDir + "` |\n"
	got := readmeProblems(t, readme)
	for _, want := range []string{
		"the settings table documents " + unknown + ", which is no setting",
		"setting " + DataDir + " has no row in the settings table",
		"the README mentions " + unknown + ", which is not registered",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no problem %q among %q", want, got)
		}
	}
	if slices.Contains(got, "setting "+Model+" has no row in the settings table") {
		t.Errorf("%s's row not seen: %q", Model, got)
	}
}

// Every CLAUDE_MEM_* name the repository spells (code, tests, scripts, docs) is registered,
// and code outside this package and the tests takes the name from here rather than a
// string literal of its own.
func TestEveryNameRegistered(t *testing.T) {
	literal := regexp.MustCompile(`"` + ourName.String() + `"`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".txtar", ".yml", ".yaml", ".json", "":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A build output in the checkout (bin/hook, dist/, the fake claude) is no spelling:
		// its strings are packed end to end, so a name there runs into the next.
		if bytes.IndexByte(b, 0) >= 0 {
			return nil
		}
		for _, name := range ourName.FindAllString(string(b), -1) {
			if Ours[name] == 0 {
				t.Errorf("%s spells %s, which is not registered in envname.Ours", path, name)
			}
		}
		own := filepath.Base(filepath.Dir(path)) == "envname"
		test := strings.HasSuffix(path, "_test.go") || strings.HasPrefix(filepath.ToSlash(path), "../tests/")
		if strings.HasSuffix(path, ".go") && !own && !test {
			for _, lit := range literal.FindAllString(string(b), -1) {
				t.Errorf("%s spells %s: take it from envname", path, lit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
