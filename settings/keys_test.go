package settings

import (
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
)

// The keys Load parses are exactly the registered settings (the data dir, read from the
// environment only, is the one setting without a key).
func TestKeysAreTheRegisteredSettings(t *testing.T) {
	parsed := map[string]bool{envname.DataDir: true}
	for _, k := range keys {
		if envname.Ours[k.name] != envname.Setting {
			t.Errorf("key %s is not registered as a setting in envname.Ours", k.name)
		}
		parsed[k.name] = true
	}
	for name, use := range envname.Ours {
		if use == envname.Setting && !parsed[name] {
			t.Errorf("setting %s has no key Load parses", name)
		}
	}
}
