package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"

	"github.com/claude-mem/claude-mem-go/lockfile"
)

// runIDRe is the form NewRunID writes; Prune touches nothing else.
var runIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{8}$`) })

// Prune keeps the newest keep run dirs in sessionsDir and removes the others, oldest first
// (run ids sort by time). Entries that are not run dirs are never touched, nor is the dir of
// a run that is still running (its RunLockFile is held, by another observer or its orphaned
// child); a missing sessionsDir has nothing to prune.
func Prune(sessionsDir string, keep int) error {
	if keep < 0 {
		return fmt.Errorf("observer: prune: keep must not be negative, got %d", keep)
	}
	entries, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var runs []string
	for _, e := range entries {
		if e.IsDir() && runIDRe().MatchString(e.Name()) {
			runs = append(runs, e.Name())
		}
	}
	sort.Strings(runs)
	var errs []error
	for _, name := range runs[:max(len(runs)-keep, 0)] {
		dir := filepath.Join(sessionsDir, name)
		if busy, err := lockfile.Busy(filepath.Join(dir, RunLockFile)); busy || err != nil {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
