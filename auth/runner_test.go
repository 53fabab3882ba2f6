package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-mem/claude-mem-go/settings"
)

// TestMain lets this test binary stand in for the programs auth runs: invoked as
// `auth.test auth-helper MODE ...` it is a helper process, not a test run.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "auth-helper" {
		os.Exit(helperMain(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

func helperMain(mode string, args []string) int {
	switch mode {
	case "inspect": // cwd, bytes on stdin, then the environment
		wd, _ := os.Getwd()
		in, _ := io.ReadAll(os.Stdin)
		fmt.Println(wd)
		fmt.Println(len(in))
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		return 0
	case "security": // EXIT OUTFILE then security's own argv
		code, _ := strconv.Atoi(args[0])
		if code != 0 {
			fmt.Fprintln(os.Stderr, "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.")
			return code
		}
		out, err := os.ReadFile(args[1])
		if err != nil {
			return 2
		}
		os.Stdout.Write(out)
		return 0
	}
	return 3
}

func helperArgs(mode string, args ...string) []string {
	return append([]string{"auth-helper", mode}, args...)
}

func TestExecRunner(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name    string
		runner  ExecRunner
		env     []string
		wantDir string
	}{
		{"nil env is empty, not ours; cwd /", ExecRunner{}, nil, "/"},
		{"exactly the env given", ExecRunner{}, []string{"ONLY=1", "HOME=/nowhere"}, "/"},
		{"a chosen cwd", ExecRunner{Dir: dir}, []string{"X=y"}, dir},
	}
	t.Setenv("AUTH_TEST_PARENT_ONLY", "must not be inherited")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.runner.Output(context.Background(), self, helperArgs("inspect"), tt.env)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			if lines[0] != tt.wantDir {
				t.Fatalf("cwd %q, want %q", lines[0], tt.wantDir)
			}
			if lines[1] != "0" {
				t.Fatalf("%s bytes on stdin, want the null device", lines[1])
			}
			got := lines[2:]
			if len(tt.env) == 0 {
				got = slices.DeleteFunc(got, func(s string) bool { return s == "" })
			}
			if !slices.Equal(got, tt.env) && !(len(got) == 0 && len(tt.env) == 0) {
				t.Fatalf("child environment %q, want exactly %q", got, tt.env)
			}
		})
	}

	t.Run("exit status and stderr", func(t *testing.T) {
		_, err := ExecRunner{}.Output(context.Background(), self, helperArgs("security", "44", "-"), nil)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 44 || !strings.Contains(string(ee.Stderr), "could not be found") {
			t.Fatalf("err = %v, want exit 44 with stderr", err)
		}
	})
}

// swapRunner runs this test binary as `security`, answering with exit code and output
// file, and passes on security's argv and environment as Resolve built them.
type swapRunner struct {
	exit    int
	outFile string
	argv    []string
}

func (s *swapRunner) Output(ctx context.Context, path string, args, env []string) ([]byte, error) {
	s.argv = append([]string{path}, args...)
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return ExecRunner{}.Output(ctx, self, append(helperArgs("security", strconv.Itoa(s.exit), s.outFile), args...), env)
}

// TestResolveRealSecurityProcess resolves the keychain through a real child process, so
// the exit status reaches Resolve as a real *exec.ExitError.
func TestResolveRealSecurityProcess(t *testing.T) {
	valid := now.Add(time.Hour)
	tests := []struct {
		name       string
		exit       int
		keychain   string
		file       string
		wantKind   Kind
		wantValue  string
		wantReason string // of the keychain candidate
	}{
		{"item found", 0, oauthJSON(chainToken, chainRefresh, valid), "", KindKeychain, chainToken, "Claude login from keychain"},
		{"item not found: credentials.json", 44, "", oauthJSON(fileToken, fileRefresh, valid), KindCredentials, fileToken, "keychain: security exited 44: item not found"},
		{"keychain locked: credentials.json", 36, "", oauthJSON(fileToken, fileRefresh, valid), KindCredentials, fileToken, "keychain: security exited 36: user interaction is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			out := filepath.Join(home, "keychain-answer")
			if err := os.WriteFile(out, []byte(tt.keychain), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.file != "" {
				if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, ".claude", ".credentials.json"), []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			run := &swapRunner{exit: tt.exit, outFile: out}
			src, tried, err := Resolve(context.Background(), Inputs{
				Env: settings.Env{"HOME": home, "USER": "alice"}, Home: home, GOOS: "darwin", Now: now, Run: run,
				Lineage: []string{"/Applications/Claude.app/Contents/MacOS/Claude"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if src.Kind != tt.wantKind || src.Value.Reveal() != tt.wantValue || src.EnvVar != varOAuthToken {
				t.Fatalf("source %+v, want %s", src, tt.wantKind)
			}
			i := slices.IndexFunc(tried, func(c Candidate) bool { return c.Kind == KindKeychain })
			if i < 0 || !strings.HasPrefix(tried[i].Reason, tt.wantReason) {
				t.Fatalf("keychain candidate %+v, want reason %q", tried, tt.wantReason)
			}
			if want := filepath.Join(home, "Library/Keychains/login.keychain-db"); run.argv[len(run.argv)-1] != want {
				t.Fatalf("security argv %q does not end with the login keychain", run.argv)
			}
		})
	}
}
