// Package selfcapture decides whether a hook event comes from claude-mem's own observer
// (marker environment, or a cwd or transcript inside our directories), so it is never stored.
package selfcapture

import (
	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/hostpath"
	"github.com/claude-mem/claude-mem-go/settings"
)

// Input is what the guard looks at for one hook event.
type Input struct {
	Env            settings.Env // the hook's environment (CLAUDE_MEM_INTERNAL, CLAUDE_PLUGIN_ROOT, CLAUDE_CONFIG_DIR)
	Home           string
	DataDir        string
	ExecutableDir  string // directory holding the running executable (os.Executable, resolved by the caller)
	Cwd            string
	TranscriptPath string
	GOOS           string
}

// Decision is the guard's answer and why, e.g. "cwd inside data dir /x".
type Decision struct {
	Ours   bool
	Reason string
}

// OwnedDir is one directory whose contents are ours: Label says which ("data dir",
// "plugin root", "executable dir", "plugins dir").
type OwnedDir struct {
	Label, Path string
}

func (d OwnedDir) String() string { return d.Label + " " + d.Path }

const labelDataDir = "data dir"

// Check decides whether the event described by in is our own observer's.
func Check(in Input) Decision {
	if in.Env.Get(envname.Internal) == "1" {
		return Decision{Ours: true, Reason: envname.Internal + "=1"}
	}
	dirs := owned(in)
	if d, ok := holder(dirs, in.Cwd, in.GOOS); ok {
		return Decision{Ours: true, Reason: "cwd inside " + d.String()}
	}
	// owned lists the data dir first when it is set.
	if len(dirs) > 0 && dirs[0].Label == labelDataDir {
		if d, ok := holder(dirs[:1], in.TranscriptPath, in.GOOS); ok {
			return Decision{Ours: true, Reason: "transcript_path inside " + d.String()}
		}
	}
	return Decision{}
}

// Owner reports which of our directories (data dir, plugin root, executable dir, plugins
// dir) holds cwd. It ignores the marker, in.Cwd and the transcript: it answers for cwd alone.
func Owner(in Input, cwd string) (OwnedDir, bool) {
	d, ok := holder(owned(in), cwd, in.GOOS)
	return d.OwnedDir, ok
}

type ownedKey struct {
	OwnedDir
	key string
}

// owned lists our directories, data dir first, canonicalised once. Unset ones are skipped,
// and so is any that is a filesystem root or holds the home directory: a misconfigured
// CLAUDE_MEM_DATA_DIR=~ or a binary copied into ~ must not silently drop every session the
// user has.
func owned(in Input) []ownedKey {
	plugins := in.Env.Get(envname.ClaudeConfigDir)
	if plugins == "" && in.Home != "" {
		plugins = hostpath.Join(in.GOOS, in.Home, ".claude")
	}
	if plugins != "" {
		plugins = hostpath.Join(in.GOOS, plugins, "plugins")
	}
	home := hostpath.Key(hostpath.Canonical(in.Home, in.GOOS), in.GOOS)
	out := make([]ownedKey, 0, 4)
	for _, d := range []OwnedDir{
		{labelDataDir, in.DataDir},
		{"plugin root", in.Env.Get(envname.PluginRoot)},
		{"executable dir", in.ExecutableDir},
		{"plugins dir", plugins},
	} {
		if d.Path == "" {
			continue
		}
		c := hostpath.Canonical(d.Path, in.GOOS)
		k := hostpath.Key(c, in.GOOS)
		if hostpath.IsRoot(c, in.GOOS) || hostpath.Within(home, k, in.GOOS) {
			continue
		}
		out = append(out, ownedKey{OwnedDir{d.Label, c}, k})
	}
	return out
}

func holder(dirs []ownedKey, p, goos string) (ownedKey, bool) {
	if p == "" {
		return ownedKey{}, false
	}
	k := hostpath.Key(hostpath.Canonical(p, goos), goos)
	for _, d := range dirs {
		if hostpath.Within(k, d.key, goos) {
			return d, true
		}
	}
	return ownedKey{}, false
}
