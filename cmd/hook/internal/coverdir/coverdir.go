// Package coverdir points a coverage build of the hook (hookbin's -cover) at its coverage
// dir. The tests run the hook with environments of their own, without GOCOVERDIR, and the
// coverage runtime reads GOCOVERDIR in main's init, after this package's: so this init sets
// it, from the dir the build baked in, and Restore takes it back out of the environment
// before the hook reads it, so no child sees it and no output changes.
package coverdir

import "os"

// dir is set by `hookbin` with -ldflags -X in a coverage build; "" in every other build.
var dir string

// set: this init set GOCOVERDIR, which Restore unsets.
var set bool

func init() {
	if dir != "" && os.Getenv("GOCOVERDIR") == "" {
		set = os.Setenv("GOCOVERDIR", dir) == nil
	}
}

// Restore leaves the environment as the hook was started with; nothing outside a coverage
// build.
func Restore() {
	if set {
		os.Unsetenv("GOCOVERDIR")
	}
}
