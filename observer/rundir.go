package observer

import "path/filepath"

// RunDir is the dir of run id under sessionsDir (its transcript and stderr), and false
// when id is not a run id NewRunID makes: no stored id can name another path.
func RunDir(sessionsDir, id string) (string, bool) {
	if !runIDRe().MatchString(id) {
		return "", false
	}
	return filepath.Join(sessionsDir, id), true
}
