package doctor

import (
	"os"
	"path/filepath"
	"strings"
)

// Name is the product's command, as a person types it: install links it to bin/hook on
// PATH (~/.local/bin/claude-mem).
const Name = "claude-mem"

// Command is how a person runs this binary, for every command claude-mem prints for them to
// run (doctor's fixes, notices, install's, the viewer's pages): "claude-mem" when the
// claude-mem a shell finds first on path (a PATH value) is this very executable, its
// quoted path otherwise, which runs it wherever the link is missing or is another build.
// A PATH entry starting with ~ is taken under home, as shells do.
func Command(path, home, exe string) string {
	if exe == "" {
		return Name
	}
	self, err := os.Stat(exe)
	if err != nil {
		return shellQuote(exe)
	}
	name := Name + filepath.Ext(exe) // claude-mem.exe beside hook.exe
	for _, dir := range filepath.SplitList(path) {
		if rest, ok := strings.CutPrefix(dir, "~"); ok && home != "" && (rest == "" || os.IsPathSeparator(rest[0])) {
			dir = home + rest
		}
		if dir == "" || !filepath.IsAbs(dir) {
			continue // an empty or relative entry depends on the directory the command is typed in
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		// A shell passes over a file it cannot run (Windows has no such bits: .exe says it).
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 && filepath.Ext(exe) == "" {
			continue
		}
		if os.SameFile(fi, self) {
			return Name
		}
		break // the first claude-mem found is what the name runs: another build
	}
	return shellQuote(exe)
}

// command is how the user runs the executable of the report (Command).
func (in Inputs) command() string { return in.commandFor(in.Hook) }

// commandFor is how the user runs exe, with the report's PATH and home.
func (in Inputs) commandFor(exe string) string { return Command(in.Env.Get("PATH"), in.Home, exe) }
