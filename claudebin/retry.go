package claudebin

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// StartWithRetry resolves, starts, and when start fails with ENOENT, EACCES, ETXTBSY or ENOEXEC
// (errors.Is on syscall errnos / exec.ErrNotFound / fs.ErrNotExist) resolves once more and
// retries once: a native auto-update unlinks or rewrites the binary between resolve and start.
// On final failure it returns *UnspawnableError (path + OS error) or the resolver's error.
func StartWithRetry(resolve func() (Result, error), start func(Result) error) (Result, error) {
	res, err := resolve()
	if err != nil {
		return Result{}, err
	}
	err = start(res)
	if err == nil {
		return res, nil
	}
	if !retryable(err) {
		return res, unspawnable(res, err)
	}
	if res, err = resolve(); err != nil {
		return Result{}, err
	}
	if err = start(res); err != nil {
		return res, unspawnable(res, err)
	}
	return res, nil
}

// retryable reports a start failure that a fresh resolve can cure (DESIGN.md §8): the file
// is gone (ENOENT), not yet executable (EACCES: an installer writes, then chmods), being
// written (ETXTBSY), or half-written (ENOEXEC).
func retryable(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) ||
		errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EACCES) ||
		errors.Is(err, syscall.ETXTBSY) || errors.Is(err, syscall.ENOEXEC)
}

func unspawnable(res Result, err error) *UnspawnableError {
	e := &UnspawnableError{Path: res.Path, Err: osErr(err)} // the path is already in the message
	if res.Via == ViaClaudeMemPath || res.Via == ViaClaudeCodePath {
		e.Setting = res.Via
	}
	return e
}
