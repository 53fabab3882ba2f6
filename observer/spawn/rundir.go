package spawn

import (
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/private"
)

// RunDir is the dir of run id under sessionsDir (its transcript and stderr), and false
// when id is not a run id NewRunID makes: no stored id can name another path.
func RunDir(sessionsDir, id string) (string, bool) {
	if !runIDRe().MatchString(id) {
		return "", false
	}
	return filepath.Join(sessionsDir, id), true
}

// MakeRunDir makes dir (a run dir, or the observer's config dir) and its missing parents
// below base, each 0700 and checked: a dir another user owns or may write could swap the
// transcript the run's outcome is read from.
func MakeRunDir(base, dir string) error { return private.MkdirAll(base, dir) }
