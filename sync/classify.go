package sync

import (
	"errors"

	"github.com/claude-mem/claude-mem-go/sync/remote"
)

// failures are the client's connection errors by the fix each needs.
var failures = []struct {
	err  error
	kind Failure
}{
	{remote.ErrBadURL, BadURL},
	{remote.ErrUnreachable, Unreachable},
	{remote.ErrTLS, TLSRefused},
	{remote.ErrAuth, AuthFailed},
	{remote.ErrDenied, Denied},
	{remote.ErrPlaintext, Plaintext},
	{remote.ErrSchemaOlder, SchemaOlder},
	{remote.ErrSchemaNewer, SchemaNewer},
}

// Classify is the kind of a run's error: what its fix is.
func Classify(err error) Failure {
	for _, f := range failures {
		if errors.Is(err, f.err) {
			return f.kind
		}
	}
	return Failed
}
