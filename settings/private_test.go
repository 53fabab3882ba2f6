//go:build unix

package settings

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/private"
)

// planted writes what another user would plant: a settings.json naming their program, a
// .env sending the observer's requests to them.
func planted(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{
		SettingsFile: `{"CLAUDE_MEM_CLAUDE_PATH": "/tmp/evil/claude", "CLAUDE_MEM_MODEL": "opus"}`,
		DotEnvFile:   "ANTHROPIC_BASE_URL=http://127.0.0.1:1/evil\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func loadDir(t *testing.T, dir string) (*Settings, error) {
	t.Helper()
	return Load(Env{envname.DataDir: dir, envname.LogLevel: "debug", "HOME": "/nonexistent"}, "", "linux")
}

// applied reports whether planted's values were read.
func applied(s *Settings) bool {
	return s.ClaudePath != "" || s.Model == "opus" || s.DotEnv.Get("ANTHROPIC_BASE_URL") != ""
}

func TestDataDirRefusedIsNotRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    os.FileMode
		refused bool
	}{
		{"control: 0700", 0o700, false},
		{"control: 0755", 0o755, false},
		{"world-writable", 0o777, true},
		{"sticky world-writable", os.ModeSticky | 0o777, true},
		{"group-writable", 0o770, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			os.Mkdir(dir, 0o700)
			planted(t, dir)
			os.Chmod(dir, tc.mode)
			s, err := loadDir(t, dir)
			var pe *private.Error
			if got := errors.As(err, &pe); got != tc.refused {
				t.Fatalf("refused %v, want %v: %v", got, tc.refused, err)
			}
			if applied(s) == tc.refused {
				t.Fatalf("planted values applied %v in a dir refused %v: %+v", applied(s), tc.refused, s)
			}
			if s.DataDir != dir {
				t.Errorf("DataDir %q; want %q (the fallback journal is named for it)", s.DataDir, dir)
			}
			if s.LogLevel != "debug" {
				t.Errorf("the environment's setting not applied: %q", s.LogLevel)
			}
			if tc.refused {
				t.Logf("%v (fix: %s)", err, pe.Fix)
				if pe.Fix != "chmod 700 "+dir {
					t.Errorf("fix %q; want chmod 700 %s", pe.Fix, dir)
				}
			}
		})
	}
}

func TestDataDirAncestors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		parent  os.FileMode
		link    bool // the data dir is reached through a symlinked parent (/home -> /usr/home)
		refused bool
	}{
		{"control: 0755 parent", 0o755, false, false},
		{"control: sticky 1777 parent (/tmp)", os.ModeSticky | 0o777, false, false},
		{"control: symlinked parent", 0o755, true, false},
		{"world-writable parent", 0o777, false, true},
		{"world-writable parent through a symlink", 0o777, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			parent := filepath.Join(base, "parent")
			dir := filepath.Join(parent, "data")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			planted(t, dir)
			os.Chmod(parent, tc.parent)
			if tc.link {
				os.Symlink(parent, filepath.Join(base, "link"))
				dir = filepath.Join(base, "link", "data")
			}
			s, err := loadDir(t, dir)
			var pe *private.Error
			if got := errors.As(err, &pe); got != tc.refused {
				t.Fatalf("refused %v, want %v: %v", got, tc.refused, err)
			}
			if applied(s) == tc.refused {
				t.Fatalf("planted values applied %v in a dir refused %v", applied(s), tc.refused)
			}
			if err := EnsureDataDir(dir); errors.As(err, &pe) != tc.refused {
				t.Errorf("EnsureDataDir: %v; want refused %v", err, tc.refused)
			}
		})
	}
	// The data dir itself a symlink: refused, even to a dir of the user's.
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	planted(t, real)
	os.Symlink(real, filepath.Join(base, "data"))
	s, err := loadDir(t, filepath.Join(base, "data"))
	var pe *private.Error
	if !errors.As(err, &pe) || applied(s) {
		t.Fatalf("a symlinked data dir read: %v", err)
	}
	t.Logf("%v (fix: %s)", err, pe.Fix)
}

// TestPlantedFilesRefused: in a data dir that is the user's, each file another user could
// have written is refused, named (its *private.Error in Errors), and not read; the control
// is the same file as the user's own.
func TestPlantedFilesRefused(t *testing.T) {
	type plant func(t *testing.T, path string)
	groupWritable := func(t *testing.T, path string) { os.Chmod(path, 0o666) }
	symlinked := func(t *testing.T, path string) {
		real := path + ".real"
		os.Rename(path, real)
		os.Symlink(real, path)
	}
	foreign := func(t *testing.T, path string) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to give a file to another uid")
		}
		os.Lchown(path, 65534, 65534)
	}
	for _, file := range []string{SettingsFile, DotEnvFile} {
		for name, p := range map[string]plant{"control": nil, "group-writable": groupWritable, "symlink": symlinked, "another uid's": foreign} {
			t.Run(file+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				planted(t, dir)
				if p != nil {
					p(t, filepath.Join(dir, file))
				}
				s, err := loadDir(t, dir)
				if err != nil {
					t.Fatal(err)
				}
				var pe *private.Error
				var refused *Error
				for _, e := range s.Errors {
					if errors.As(e, &pe) && e.Key == file {
						refused = e
					}
				}
				read := s.ClaudePath != ""
				if file == DotEnvFile {
					read = s.DotEnv.Get("ANTHROPIC_BASE_URL") != ""
				}
				if p == nil {
					if refused != nil || !read {
						t.Fatalf("control: the user's own %s refused %v, read %v", file, refused, read)
					}
					return
				}
				if refused == nil || read {
					t.Fatalf("planted %s: refused %v, read %v (errors %v)", file, refused, read, s.Errors)
				}
				t.Logf("%s (fix: %s)", refused.Err, pe.Fix)
			})
		}
	}
	// What others read: named by Load, never opened by it.
	for _, entry := range []string{DBFile, DBFile + "-wal", HealthFile, filepath.Join(LogsDir, LogFile), LocksDir} {
		t.Run(entry, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, LogsDir), 0o700)
			target := filepath.Join(t.TempDir(), "profile")
			os.WriteFile(target, nil, 0o600)
			path := filepath.Join(dir, entry)
			s, _ := loadDir(t, dir)
			if len(s.Errors) != 0 {
				t.Fatalf("control: %v", s.Errors)
			}
			os.Symlink(target, path)
			s, _ = loadDir(t, dir)
			var pe *private.Error
			if len(s.Errors) != 1 || !errors.As(s.Errors[0], &pe) || pe.Path != path || s.Errors[0].Key != entry {
				t.Fatalf("a symlinked %s not named: %v", entry, s.Errors)
			}
		})
	}
}
