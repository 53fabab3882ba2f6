package auth

import (
	"context"
	"path"
	"strconv"
	"strings"

	"github.com/claude-mem/claude-mem-go/envname"
	"github.com/claude-mem/claude-mem-go/settings"
)

// Evidence for what marks a process started under the Claude desktop app (macOS):
//   - thedotmack/claude-mem#3406, the failure this prevents: the desktop app's children
//     carry __CFBundleIdentifier=com.anthropic.claudefordesktop (LaunchServices sets it
//     for the app and every child inherits it);
//   - Claude Code itself recognises CLAUDE_CODE_ENTRYPOINT=claude-desktop as the desktop
//     entrypoint, and hooks inherit CLAUDE_CODE_ENTRYPOINT (fixtures: hook-env shows
//     sdk-cli for a headless session);
//   - anthropics/claude-code#72862: the app is /Applications/Claude.app and runs its
//     bundled CLI from ~/Library/Application Support/Claude/claude-code/<v>/claude.app/
//     Contents/MacOS/claude.
//
// A false positive only names the login keychain explicitly, which is where Claude Code
// keeps the item anyway, so matching is deliberately broad.
const (
	desktopBundleID   = "com.anthropic.claudefordesktop"
	desktopEntrypoint = "claude-desktop"
	desktopAppName    = "Claude" // the app's executable; the CLI is lowercase claude
)

// maxLineage bounds the parent walk: a desktop app is a few levels up, never sixteen.
const maxLineage = 16

// DesktopLineage reports whether the process descends from the Claude desktop app, from
// its environment or from its ancestors' executables (nearest first).
func DesktopLineage(env settings.Env, lineage []string) bool {
	id := strings.TrimSpace(env.Get("__CFBundleIdentifier"))
	if id == desktopBundleID || strings.HasPrefix(id, desktopBundleID+".") {
		return true
	}
	if strings.TrimSpace(env.Get(envname.Entrypoint)) == desktopEntrypoint {
		return true
	}
	for _, exe := range lineage {
		if strings.Contains(strings.ToLower(exe), "claude.app/contents/") || path.Base(exe) == desktopAppName {
			return true
		}
	}
	return false
}

// ParentChain lists the executables of pid's ancestors, nearest first, by asking
// `ps -o ppid=,comm= -p PID` one level at a time (argv only, at most 16 levels). It
// stops quietly at the first answer it cannot read: a shorter chain only means the
// environment has to tell. Other systems than darwin and linux get nil.
func ParentChain(ctx context.Context, run Runner, pid int, goos string) []string {
	if goos != "darwin" && goos != "linux" {
		return nil
	}
	var chain []string
	seen := map[int]bool{pid: true}
	cur := pid
	for range maxLineage + 1 {
		ppid, comm, ok := psEntry(ctx, run, cur)
		if !ok {
			break
		}
		if cur != pid {
			chain = append(chain, comm)
		}
		if ppid <= 0 || seen[ppid] {
			break
		}
		seen[ppid] = true
		cur = ppid
	}
	return chain
}

// psEntry is one process's parent pid and executable. comm may contain spaces
// ("Claude Helper"), so it is the whole rest of the line.
func psEntry(ctx context.Context, run Runner, pid int) (ppid int, comm string, ok bool) {
	out, err := run.Output(ctx, "/bin/ps", []string{"-o", "ppid=,comm=", "-p", strconv.Itoa(pid)}, []string{"LC_ALL=C"})
	if err != nil {
		return 0, "", false
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	first, rest, found := strings.Cut(strings.TrimSpace(line), " ")
	if !found {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(first)
	comm = strings.TrimSpace(rest)
	if err != nil || comm == "" {
		return 0, "", false
	}
	return ppid, comm, true
}
