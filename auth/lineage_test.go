package auth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-mem/claude-mem-go/settings"
)

func TestDesktopLineage(t *testing.T) {
	tests := []struct {
		name    string
		env     settings.Env
		lineage []string
		want    bool
	}{
		{"nothing", nil, nil, false},
		{"desktop app bundle id", settings.Env{"__CFBundleIdentifier": "com.anthropic.claudefordesktop"}, nil, true},
		{"desktop helper bundle id", settings.Env{"__CFBundleIdentifier": "com.anthropic.claudefordesktop.helper"}, nil, true},
		{"terminal bundle id", settings.Env{"__CFBundleIdentifier": "com.apple.Terminal"}, nil, false},
		{"lookalike bundle id", settings.Env{"__CFBundleIdentifier": "com.anthropic.claudefordesktopx"}, nil, false},
		{"desktop entrypoint", settings.Env{"CLAUDE_CODE_ENTRYPOINT": "claude-desktop"}, nil, true},
		{"cli entrypoint", settings.Env{"CLAUDE_CODE_ENTRYPOINT": "cli"}, nil, false},
		{"vscode entrypoint", settings.Env{"CLAUDE_CODE_ENTRYPOINT": "claude-vscode"}, nil, false},
		{"app executable up the chain", nil, []string{"/bin/zsh", "/Applications/Claude.app/Contents/MacOS/Claude", "/sbin/launchd"}, true},
		{"the app's bundled CLI", nil, []string{"/Users/a/Library/Application Support/Claude/claude-code/2.1.328/claude.app/Contents/MacOS/claude"}, true},
		{"an Electron helper", nil, []string{"/Applications/Claude.app/Contents/Frameworks/Claude Helper.app/Contents/MacOS/Claude Helper"}, true},
		{"bare app name", nil, []string{"Claude"}, true},
		{"terminal CLI", nil, []string{"claude", "-zsh", "login", "/Applications/iTerm.app/Contents/MacOS/iTerm2", "/sbin/launchd"}, false},
		{"editor extension CLI", nil, []string{"/Users/a/.vscode/extensions/anthropic.claude-code-2.1.328-darwin-arm64/resources/native-binary/claude", "/Applications/Visual Studio Code.app/Contents/MacOS/Electron"}, false},
	}
	for _, tt := range tests {
		if got := DesktopLineage(tt.env, tt.lineage); got != tt.want {
			t.Errorf("%s: DesktopLineage = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// psTable answers `ps -o ppid=,comm= -p PID` from a table and records the argvs.
type psTable struct {
	rows  map[int]string
	calls [][]string
}

func (p *psTable) Output(_ context.Context, path string, args, env []string) ([]byte, error) {
	p.calls = append(p.calls, append([]string{path}, args...))
	if len(args) != 4 || args[0] != "-o" || args[1] != "ppid=,comm=" || args[2] != "-p" {
		return nil, fmt.Errorf("unexpected argv %q", args)
	}
	pid, _ := strconv.Atoi(args[3])
	row, ok := p.rows[pid]
	if !ok {
		return nil, exitStatus(1)
	}
	return []byte(row), nil
}

func TestParentChain(t *testing.T) {
	deep := map[int]string{}
	for pid := 2; pid < 200; pid++ {
		deep[pid] = fmt.Sprintf("%5d proc%d\n", pid+1, pid)
	}
	tests := []struct {
		name  string
		goos  string
		rows  map[int]string
		want  []string
		calls int
	}{
		{
			name: "desktop app chain, comm with spaces, up to launchd",
			goos: "darwin",
			rows: map[int]string{
				100: "   90 /Users/a/.claude/plugins/cache/claude-mem/bin/hook\n",
				90:  "   80 /Users/a/Library/Application Support/Claude/claude-code/2.1.328/claude.app/Contents/MacOS/claude\n",
				80:  "   70 /Applications/Claude.app/Contents/Frameworks/Claude Helper.app/Contents/MacOS/Claude Helper\n",
				70:  "    1 /Applications/Claude.app/Contents/MacOS/Claude\n",
				1:   "    0 /sbin/launchd\n",
			},
			want: []string{
				"/Users/a/Library/Application Support/Claude/claude-code/2.1.328/claude.app/Contents/MacOS/claude",
				"/Applications/Claude.app/Contents/Frameworks/Claude Helper.app/Contents/MacOS/Claude Helper",
				"/Applications/Claude.app/Contents/MacOS/Claude",
				"/sbin/launchd",
			},
			calls: 5,
		},
		{
			name:  "a parent that is gone ends the chain",
			goos:  "linux",
			rows:  map[int]string{100: "90 hook\n", 90: "80 claude\n"},
			want:  []string{"claude"},
			calls: 3,
		},
		{
			name:  "unreadable output ends the chain",
			goos:  "linux",
			rows:  map[int]string{100: "90 hook\n", 90: "eighty bash\n", 80: "1 init\n"},
			want:  nil,
			calls: 2,
		},
		{
			name:  "a line without an executable ends the chain",
			goos:  "linux",
			rows:  map[int]string{100: "90 hook\n", 90: "   80\n", 80: "1 init\n"},
			want:  nil,
			calls: 2,
		},
		{
			name:  "a cycle ends",
			goos:  "linux",
			rows:  map[int]string{100: "5 hook\n", 5: "6 a\n", 6: "5 b\n"},
			want:  []string{"a", "b"},
			calls: 3,
		},
		{
			name:  "bounded at 16 ancestors",
			goos:  "darwin",
			rows:  mergeRows(map[int]string{100: "2 hook\n"}, deep),
			want:  []string{"proc2", "proc3", "proc4", "proc5", "proc6", "proc7", "proc8", "proc9", "proc10", "proc11", "proc12", "proc13", "proc14", "proc15", "proc16", "proc17"},
			calls: 17,
		},
		{
			name: "windows is not walked",
			goos: "windows",
			rows: map[int]string{100: "90 hook\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := &psTable{rows: tt.rows}
			got := ParentChain(context.Background(), ps, 100, tt.goos)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ParentChain = %q, want %q", got, tt.want)
			}
			if len(ps.calls) != tt.calls {
				t.Fatalf("%d ps runs, want %d: %q", len(ps.calls), tt.calls, ps.calls)
			}
			if tt.calls > 0 && !slices.Equal(ps.calls[0], []string{"/bin/ps", "-o", "ppid=,comm=", "-p", "100"}) {
				t.Fatalf("first argv %q", ps.calls[0])
			}
		})
	}
}

func mergeRows(a, b map[int]string) map[int]string {
	out := map[int]string{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// TestParentChainReal walks this test process's real ancestors with the real ps.
func TestParentChainReal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("compares with /proc")
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", os.Getppid()))
	if err != nil {
		t.Fatal(err)
	}
	chain := ParentChain(context.Background(), ExecRunner{}, os.Getpid(), runtime.GOOS)
	if len(chain) == 0 || chain[0] != strings.TrimSpace(string(comm)) {
		t.Fatalf("ParentChain = %q, want the parent %q first", chain, strings.TrimSpace(string(comm)))
	}
	if len(chain) > maxLineage {
		t.Fatalf("%d ancestors, more than %d", len(chain), maxLineage)
	}
	var exit interface{ ExitCode() int }
	_, err = ExecRunner{}.Output(context.Background(), "/bin/ps", []string{"-o", "ppid=,comm=", "-p", "999999999"}, nil)
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("ps of a missing pid: %v, want a non-zero exit", err)
	}
}
