package remote

import "testing"

// NewTestWorld is newWorld for the package's external tests: each person's URL.
func NewTestWorld(t *testing.T) (url func(person string) string) {
	w := newWorld(t)
	return func(p string) string { return w.s.SocketURL(p, pw(p), w.db) }
}
