// Package logfile opens claude-mem's log: zerolog JSON lines appended to <data>/logs/hook.log,
// rotated by size, and never a reason for a hook to fail or to write to stdout or stderr.
package logfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/claude-mem/claude-mem-go/private"
	"github.com/claude-mem/claude-mem-go/redact"
	"github.com/claude-mem/claude-mem-go/settings"
)

// MaxSize is the size past which hook.log is rotated to hook.log.1 (one old file is kept).
var MaxSize int64 = 5 << 20

func init() {
	// zerolog's default reports a failed write on stderr, which hook mode must keep empty.
	zerolog.ErrorHandler = func(error) {}
	zerolog.TimeFieldFormat = time.RFC3339Nano
}

// Open returns a logger writing to <dataDir>/logs/hook.log at level, each line carrying pid,
// and a closer. When the file cannot be opened, or it or its dir is not the user's alone (a
// hook.log symlinked to ~/.profile would append there), the logger discards everything:
// losing a log line must never cost the user a hook. settings.Load names such a file.
func Open(dataDir, level string, pid int, now func() time.Time) (zerolog.Logger, io.Closer) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		lvl = zerolog.InfoLevel
	}
	w := io.Writer(io.Discard)
	closer := io.Closer(nopCloser{})
	if dataDir != "" {
		if f, err := openRotated(settings.Layout(dataDir).Log()); err == nil {
			w, closer = scrubWriter{f}, f
		}
	}
	log := zerolog.New(w).Level(lvl).With().Int("pid", pid).Logger()
	if now != nil {
		log = log.Hook(stamp(now))
	}
	return log, closer
}

// stamp times each event by this logger's clock: zerolog's Timestamp reads the global
// TimestampFunc, which one Open would then set for every logger of the process.
type stamp func() time.Time

func (s stamp) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Time(zerolog.TimestampFieldName, s())
}

func openRotated(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := private.Lstat(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxSize {
		// Rename is atomic: concurrent hooks that race here each end up appending to a
		// fresh hook.log, and at worst one rotation's worth of lines lands in hook.log.1.
		_ = os.Rename(path, path+".1")
	}
	return private.Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
}

// scrubWriter scrubs every line (zerolog writes one per event) before it reaches the file,
// so no call site can log a secret by forgetting to scrub it; and it reports success
// whatever happens, so zerolog never reports an error.
type scrubWriter struct{ w io.Writer }

func (l scrubWriter) Write(p []byte) (int, error) {
	_, _ = io.WriteString(l.w, redact.Scrub(string(p)))
	return len(p), nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
