package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"strconv"

	"github.com/claude-mem/claude-mem-go/envname"
)

// Fingerprint is a digest of every input Resolve reads without running anything: the
// credential variables of the environment and .env, the pin, the helper setting, the
// variables that move Claude Code's stores or name its keychain account, desktop lineage,
// and the path, size and modification time of settings.json and .credentials.json. The
// keychain is not a file to stat (any app's write changes login.keychain-db); a caller that
// resolved a keychain source adds that source's Identity. It is a hash: it reveals no value.
func Fingerprint(in Inputs) string {
	h := sha256.New()
	field := func(name, v string) { fmt.Fprintf(h, "%s=%q\n", name, v) }
	field("v", "1")
	field("pin", in.Pin)
	field("helper", in.Helper)
	field("home", in.Home)
	field("goos", in.GOOS)
	for _, k := range []string{varOAuthToken, varAPIKey, varConfigDir, varStorageDir, envname.User, envname.LogName} {
		v, ok := in.Env.Lookup(k)
		field("env."+k, strconv.FormatBool(ok)+":"+v)
	}
	for _, k := range []string{varOAuthToken, varAPIKey} {
		v, ok := in.DotEnv.Lookup(k)
		field("dotenv."+k, strconv.FormatBool(ok)+":"+v)
	}
	field("desktop", strconv.FormatBool(DesktopLineage(in.Env, in.Lineage)))
	stat(h, settingsPath(in))
	stat(h, credentialsPath(in))
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// Identity is a digest of what the source hands the observer (kind, origin, value, helper),
// so a paused observer sees a changed credential, a re-login in the keychain included. It
// reveals no value.
func (s Source) Identity() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%s\x00%s", s.Kind, s.From, s.Value.Reveal(), s.Helper)))
	return hex.EncodeToString(sum[:16])
}

func stat(h hash.Hash, path string) { fmt.Fprintf(h, "file %s\n", FileSig(path)) }

// FileSig identifies a file's current state cheaply, without reading it: its path, size and
// mtime, or its absence. A rewritten credential (or binary) gets a new signature.
func FileSig(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Sprintf("%q absent", path)
	}
	return fmt.Sprintf("%q size=%d mtime=%d", path, fi.Size(), fi.ModTime().UnixNano())
}
