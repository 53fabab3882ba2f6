package claudebin

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/claude-mem/claude-mem-go/settings"
)

// startReal starts path as a real process and reaps it, recording each path tried.
func startReal(tried *[]string) func(Result) error {
	return func(r Result) error {
		*tried = append(*tried, r.Path)
		cmd := exec.Command(r.Path)
		if err := cmd.Start(); err != nil {
			return err
		}
		return cmd.Wait()
	}
}

// The binary is unlinked and a new one installed elsewhere between resolve and start (a
// native auto-update): the stale start fails with ENOENT, the fresh resolve finds the new one.
func TestStartWithRetryBinaryMoved(t *testing.T) {
	root := t.TempDir()
	build(t, root, []entry{{"home", "dir"}, {"a/claude", "exe"}, {"b", "dir"}})
	env := settings.Env{"HOME": root + "/home", "PATH": root + "/a:" + root + "/b"}
	fsys := sysFS{root: root + "/sys"}
	calls := 0
	resolve := func() (Result, error) {
		calls++
		res, err := Resolve(env, fsys, "linux")
		if calls == 1 {
			if err := os.Remove(root + "/a/claude"); err != nil {
				t.Fatal(err)
			}
			build(t, root, []entry{{"b/claude", "exe"}})
		}
		return res, err
	}
	var tried []string
	got, err := StartWithRetry(resolve, startReal(&tried))
	if err != nil {
		t.Fatalf("StartWithRetry: %v", err)
	}
	want := []string{root + "/a/claude", root + "/b/claude"}
	if got.Path != want[1] || calls != 2 || len(tried) != 2 || tried[0] != want[0] || tried[1] != want[1] {
		t.Errorf("got %+v after %d resolves, tried %q; want %s via %q", got, calls, tried, want[1], want)
	}
}

func TestStartWithRetryFails(t *testing.T) {
	root := t.TempDir()
	build(t, root, []entry{{"noexec/claude", "file"}, {"garbage/claude", "garbage"}})
	stale := Result{Path: filepath.Join(root, "gone", "claude"), Via: ViaPATH}
	notFound := &NotFoundError{Probed: []Probe{{Path: stale.Path, Reason: "not found"}}}

	tests := []struct {
		name     string
		results  []Result // what resolve returns on each call; past the end, notFound
		setting  string
		wantIs   error // errors.Is target of the returned error
		resolves int
	}{
		{"stale path twice: ENOENT", []Result{stale, stale}, "", syscall.ENOENT, 2},
		{"garbage without shebang twice: ENOEXEC", []Result{
			{Path: root + "/garbage/claude", Via: ViaPATH},
			{Path: root + "/garbage/claude", Via: ViaPATH},
		}, "", syscall.ENOEXEC, 2},
		{"gone, and the fresh resolve finds nothing", []Result{stale}, "", notFound, 2},
		{"no execute bit twice: EACCES", []Result{{Path: root + "/noexec/claude", Via: ViaKnownLocation}, {Path: root + "/noexec/claude", Via: ViaKnownLocation}}, "", syscall.EACCES, 2},
		{"explicit setting keeps its name", []Result{{Path: stale.Path, Via: ViaClaudeCodePath}, {Path: stale.Path, Via: ViaClaudeCodePath}}, ViaClaudeCodePath, fs.ErrNotExist, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			resolve := func() (Result, error) {
				calls++
				if calls > len(tt.results) {
					return Result{}, notFound
				}
				return tt.results[calls-1], nil
			}
			var tried []string
			_, err := StartWithRetry(resolve, startReal(&tried))
			if !errors.Is(err, tt.wantIs) || calls != tt.resolves {
				t.Fatalf("err = %v after %d resolves; want %v after %d", err, calls, tt.wantIs, tt.resolves)
			}
			if !IsSetupError(err) {
				t.Errorf("IsSetupError(%v) = false", err)
			}
			var us *UnspawnableError
			if errors.As(err, &us) && (us.Path != tried[len(tried)-1] || us.Setting != tt.setting) {
				t.Errorf("UnspawnableError %+v; want path %s, setting %q", us, tried[len(tried)-1], tt.setting)
			}
		})
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ENOENT}, true},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ETXTBSY}, true},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ENOEXEC}, true},
		{&exec.Error{Name: "claude", Err: exec.ErrNotFound}, true},
		{fs.ErrNotExist, true},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.EACCES}, true},
		{errors.New("exit status 1"), false},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("retryable(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
}

// An executable without its execute bit yet (EACCES: an installer writes, then chmods) is
// retried after a fresh resolve, which finds the finished one.
func TestStartWithRetryNotExecutableYet(t *testing.T) {
	root := t.TempDir()
	build(t, root, []entry{{"noexec/claude", "file"}, {"ok/claude", "exe"}})
	results := []Result{{Path: root + "/noexec/claude", Via: ViaPATH}, {Path: root + "/ok/claude", Via: ViaPATH}}
	calls := 0
	resolve := func() (Result, error) { calls++; return results[calls-1], nil }
	var tried []string
	got, err := StartWithRetry(resolve, startReal(&tried))
	if err != nil || got != results[1] || calls != 2 {
		t.Errorf("got %+v, %v after %d resolves (tried %q); want %+v after 2", got, err, calls, tried, results[1])
	}
}

// A binary being written when started (ETXTBSY) is retried; a real one, where the kernel
// reports it for a file open for writing.
func TestStartWithRetryTextBusy(t *testing.T) {
	root := t.TempDir()
	build(t, root, []entry{{"busy/claude", "exe"}, {"ok/claude", "exe"}})
	f, err := os.OpenFile(root+"/busy/claude", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results := []Result{{Path: root + "/busy/claude", Via: ViaPATH}, {Path: root + "/ok/claude", Via: ViaPATH}}
	calls := 0
	resolve := func() (Result, error) { calls++; return results[calls-1], nil }
	var firstErr error
	start := func(r Result) error {
		err := exec.Command(r.Path).Run()
		if firstErr == nil {
			firstErr = err
		}
		return err
	}
	got, err := StartWithRetry(resolve, start)
	if !errors.Is(firstErr, syscall.ETXTBSY) {
		t.Skipf("this kernel starts a file open for writing (%v); ETXTBSY is covered by TestRetryable", firstErr)
	}
	if err != nil || got != results[1] || calls != 2 {
		t.Errorf("got %+v, %v after %d resolves; want %+v after 2", got, err, calls, results[1])
	}
}

func TestIsSetupError(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&NotFoundError{}, true},
		{&UnspawnableError{Path: "/x", Err: syscall.ENOENT}, true},
		{fmtWrap(&UnspawnableError{Path: "/x", Err: syscall.ENOENT}), true},
		{syscall.ENOENT, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsSetupError(tt.err); got != tt.want {
			t.Errorf("IsSetupError(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
}

func fmtWrap(err error) error { return errors.Join(errors.New("observer"), err) }
