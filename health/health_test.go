package health

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
	"github.com/claude-mem/claude-mem-go/redact/redacttest"
	"github.com/claude-mem/claude-mem-go/settings"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

const increments = 25

// With HEALTH_HELPER_DIR set, the test binary is a concurrent writer process.
func TestMain(m *testing.M) {
	if dir := os.Getenv("HEALTH_HELPER_DIR"); dir != "" {
		if err := bump(dir, increments); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// bump increments LastRun.Events n times, one Update each: a lost update shows as a
// short count.
func bump(dir string, n int) error {
	for range n {
		err := Update(dir, t0, func(h *Health) {
			if h.LastRun == nil {
				h.LastRun = &Run{ID: "r"}
			}
			h.LastRun.Events++
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func events(t *testing.T, dir string) int {
	t.Helper()
	h, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h.LastRun == nil {
		t.Fatal("no last run")
	}
	return h.LastRun.Events
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name        string
		content     *string // nil: no file
		want        Health
		wantCorrupt bool
	}{
		{name: "missing", want: Health{Auth: Auth{State: "unknown"}, Setup: Setup{State: "unknown"}}},
		{name: "empty object", content: ptr(`{}`), want: Health{Auth: Auth{State: "unknown"}, Setup: Setup{State: "unknown"}}},
		{
			name:    "partial",
			content: ptr(`{"auth":{"state":"failed","source":"credentials","reason":"token expired"},"settings_errors":["K=v: bad; using 2"]}`),
			want: Health{
				Auth:     Auth{State: "failed", Source: "credentials", Reason: "token expired"},
				Setup:    Setup{State: "unknown"},
				Settings: []string{"K=v: bad; using 2"},
			},
		},
		{name: "truncated", content: ptr(`{"auth":{"sta`), want: Health{Auth: Auth{State: "unknown"}, Setup: Setup{State: "unknown"}}, wantCorrupt: true},
		{name: "not json", content: ptr("\x00\x01garbage"), want: Health{Auth: Auth{State: "unknown"}, Setup: Setup{State: "unknown"}}, wantCorrupt: true},
		{name: "wrong type", content: ptr(`{"auth":"ok"}`), want: Health{Auth: Auth{State: "unknown"}, Setup: Setup{State: "unknown"}}, wantCorrupt: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.content != nil {
				testkit.WriteFile(t, settings.Layout(dir).Health(), *tt.content, 0o600)
			}
			h, err := Load(dir)
			var cerr *CorruptError
			if tt.wantCorrupt != errors.As(err, &cerr) {
				t.Fatalf("Load error = %v, want corrupt %v", err, tt.wantCorrupt)
			}
			if !tt.wantCorrupt && err != nil {
				t.Fatal(err)
			}
			if tt.wantCorrupt && cerr.Path != settings.Layout(dir).Health() {
				t.Errorf("CorruptError.Path = %q, want %q", cerr.Path, settings.Layout(dir).Health())
			}
			if !reflect.DeepEqual(h, tt.want) {
				t.Errorf("Load = %+v, want %+v", h, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestUpdateWritesStableShape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // not there yet
	err := Update(dir, t0, func(h *Health) {
		h.Auth = Auth{State: "failed", Source: "credentials", Reason: "token expired"}
		h.Setup = Setup{State: "ok"}
		h.LastRun = &Run{ID: "run-1", Outcome: "auth_failed", Reason: "401", Time: t0, Events: 3}
		h.Pause(t0, 15*time.Minute, "fp1", "auth failed")
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(settings.Layout(dir).Health())
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	want := `map[auth:map[reason:token expired since:2026-11-30T10:00:00Z source:credentials state:failed] ` +
		`last_run:map[events:3 id:run-1 outcome:auth_failed reason:401 time:2026-11-30T10:00:00Z] ` +
		`pause_fingerprint:fp1 pause_reason:auth failed paused_until:2026-11-30T10:15:00Z ` +
		`settings_errors:[] setup:map[since:2026-11-30T10:00:00Z state:ok]]`
	if got := fmt.Sprint(raw); got != want {
		t.Errorf("health.json =\n%s\nwant\n%s", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[health.json locks]" {
		t.Errorf("data dir holds %v, want only health.json and locks (no temp file)", names)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(settings.Layout(dir).Health())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("health.json mode = %v, want 0600", fi.Mode().Perm())
		}
	}
}

func TestUpdateSince(t *testing.T) {
	t1 := t0.Add(time.Hour)
	explicit := t0.Add(-time.Hour)
	tests := []struct {
		name      string
		fn        func(*Health)
		wantAuth  time.Time
		wantSetup time.Time
	}{
		{name: "unchanged states keep since", fn: func(h *Health) { h.Auth.Reason = "still ok" }, wantAuth: t0, wantSetup: t0},
		{name: "auth change stamps now", fn: func(h *Health) { h.Auth.State = "failed" }, wantAuth: t1, wantSetup: t0},
		{name: "setup change stamps now", fn: func(h *Health) { h.Setup.State = "required" }, wantAuth: t0, wantSetup: t1},
		{name: "replaced struct stamps now", fn: func(h *Health) { h.Setup = Setup{State: "required"} }, wantAuth: t0, wantSetup: t1},
		{name: "same state, since zeroed", fn: func(h *Health) { h.Setup = Setup{State: "ok"} }, wantAuth: t0},
		{name: "explicit since kept", fn: func(h *Health) { h.Auth.State = "failed"; h.Auth.Since = explicit }, wantAuth: explicit, wantSetup: t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := Update(dir, t0, func(h *Health) { h.Auth.State = "ok"; h.Setup.State = "ok" }); err != nil {
				t.Fatal(err)
			}
			if err := Update(dir, t1, tt.fn); err != nil {
				t.Fatal(err)
			}
			h, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !h.Auth.Since.Equal(tt.wantAuth) || !h.Setup.Since.Equal(tt.wantSetup) {
				t.Errorf("since auth %v setup %v, want %v %v", h.Auth.Since, h.Setup.Since, tt.wantAuth, tt.wantSetup)
			}
		})
	}
}

func TestUpdateReplacesCorruptFile(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, settings.Layout(dir).Health(), `{"auth":`, 0o600)
	if err := Update(dir, t0, func(h *Health) {
		if h.Auth.State != "unknown" {
			t.Errorf("fn saw auth state %q, want unknown", h.Auth.State)
		}
		h.Auth.State = "ok"
	}); err != nil {
		t.Fatal(err)
	}
	h, err := Load(dir)
	if err != nil || h.Auth.State != "ok" {
		t.Fatalf("Load after repair = %+v, %v", h.Auth, err)
	}
}

func TestUpdateErrors(t *testing.T) {
	t.Run("unreadable health file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(settings.Layout(dir).Health(), 0o700); err != nil { // a directory where the file belongs
			t.Fatal(err)
		}
		called := false
		if err := Update(dir, t0, func(*Health) { called = true }); err == nil || called {
			t.Fatalf("Update = %v (fn called %v), want an error before fn", err, called)
		}
	})
	t.Run("data dir is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "data")
		testkit.WriteFile(t, file, "", 0o600)
		if err := Update(file, t0, func(*Health) {}); err == nil {
			t.Fatal("Update succeeded with a file as data dir")
		}
	})
}

func TestConcurrentUpdatesGoroutines(t *testing.T) {
	dir := t.TempDir()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() { errs <- bump(dir, increments) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := events(t, dir); got != writers*increments {
		t.Fatalf("events = %d, want %d: updates lost", got, writers*increments)
	}
}

func TestConcurrentUpdatesProcesses(t *testing.T) {
	dir := t.TempDir()
	const writers = 8
	cmds := make([]*exec.Cmd, writers)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), "HEALTH_HELPER_DIR="+dir)
		cmds[i].Stderr = os.Stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if got := events(t, dir); got != writers*increments {
		t.Fatalf("events = %d, want %d: updates lost", got, writers*increments)
	}
}

func TestPaused(t *testing.T) {
	var paused Health
	paused.Pause(t0, 15*time.Minute, "fp1", "auth failed — credentials: token expired")
	cleared := paused
	cleared.ClearPause()
	tests := []struct {
		name   string
		h      Health
		now    time.Time
		fp     string
		want   bool
		reason string
	}{
		{name: "never paused", h: Health{}, now: t0, fp: ""},
		{name: "just paused", h: paused, now: t0, fp: "fp1", want: true, reason: "auth failed — credentials: token expired"},
		{name: "within duration", h: paused, now: t0.Add(15*time.Minute - time.Nanosecond), fp: "fp1", want: true, reason: "auth failed — credentials: token expired"},
		{name: "expires after the duration", h: paused, now: t0.Add(15 * time.Minute), fp: "fp1"},
		{name: "long expired", h: paused, now: t0.Add(24 * time.Hour), fp: "fp1"},
		{name: "inputs changed", h: paused, now: t0.Add(time.Minute), fp: "fp2"},
		{name: "inputs changed to empty", h: paused, now: t0.Add(time.Minute), fp: ""},
		{name: "cleared", h: cleared, now: t0.Add(time.Minute), fp: "fp1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := tt.h.Paused(tt.now, tt.fp)
			if got != tt.want || reason != tt.reason {
				t.Errorf("Paused = %v %q, want %v %q", got, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestPauseSurvivesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := Update(dir, t0, func(h *Health) { h.Pause(t0, time.Minute, "fp", "setup required") }); err != nil {
		t.Fatal(err)
	}
	h, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p, r := h.Paused(t0.Add(30*time.Second), "fp"); !p || r != "setup required" {
		t.Fatalf("Paused after reload = %v %q", p, r)
	}
	if err := Update(dir, t0, (*Health).ClearPause); err != nil {
		t.Fatal(err)
	}
	if h, _ = Load(dir); !h.PausedUntil.IsZero() || h.PauseFingerprint != "" || h.PauseReason != "" {
		t.Fatalf("pause not cleared: %+v", h)
	}
}

// TestWriteScrubs: health.json never holds a secret shape, whatever a reason quotes.
func TestWriteScrubs(t *testing.T) {
	dir := t.TempDir()
	cs := redacttest.Diagnostic()
	var texts []string
	for _, c := range cs {
		texts = append(texts, c.Text)
	}
	reason := strings.Join(texts, "\n")
	if err := Update(dir, t0, func(h *Health) {
		h.Auth = Auth{State: "failed", Source: "env", Reason: reason}
		h.LastRun = &Run{ID: "r", Outcome: "error", Reason: reason, Time: t0}
		h.Settings = texts
	}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(settings.Layout(dir).Health())
	if leaks := redacttest.Leaks(b, cs); len(leaks) > 0 {
		t.Errorf("health.json holds %d canaries, e.g. %+v", len(leaks), leaks[0])
	}
	if _, err := Load(dir); err != nil {
		t.Errorf("the scrubbed file does not load: %v", err)
	}
}

// TestLoadRefusesForeignFile: a health.json others may write (or a symlink) is not
// believed: it could lift a pause or forge a state. Unknown health, and an error.
func TestLoadRefusesForeignFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits: unix")
	}
	dir := t.TempDir()
	if err := Update(dir, time.Now(), func(h *Health) { h.Auth.State = StateFailed }); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(dir); err != nil || h.Auth.State != StateFailed {
		t.Fatalf("control: the user's own file: %+v, %v", h.Auth, err)
	}
	os.Chmod(settings.Layout(dir).Health(), 0o666)
	if h, err := Load(dir); err == nil || h.Auth.State != StateUnknown {
		t.Errorf("a world-writable health.json was read: %+v, %v", h.Auth, err)
	}
	// The next Update replaces it with a file of the user's alone.
	if err := Update(dir, time.Now(), func(h *Health) { h.Setup.State = StateOK }); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(dir); err != nil || h.Auth.State != StateUnknown || h.Setup.State != StateOK {
		t.Errorf("after Update: %+v %+v, %v", h.Auth, h.Setup, err)
	}
}
