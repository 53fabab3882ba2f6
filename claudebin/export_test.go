package claudebin

import "errors"

// IsSetupError reports whether err means the claude CLI is missing or cannot be started,
// the "setup required" state, as opposed to a failure of the run itself.
func IsSetupError(err error) bool {
	var nf *NotFoundError
	var us *UnspawnableError
	return errors.As(err, &nf) || errors.As(err, &us)
}
