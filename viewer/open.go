package viewer

import (
	"fmt"
	"html"
	"os"
	"path/filepath"

	"github.com/claude-mem/claude-mem-go/private"
)

// LauncherDir is the dir under the data dir that holds the launcher files.
const LauncherDir = "viewer"

// WriteLauncher writes the page the browser is opened on: a file (0600, in a dir only the
// user can enter, under dataDir) that redirects to url, the tokened address. The opener
// and the browser then carry the file's path in their argv, never the token:
// /proc/PID/cmdline is readable by every local user, and a browser keeps its argv for
// its whole life (Jupyter opens its server the same way). The caller removes the file
// when the viewer stops.
func WriteLauncher(dataDir string, port int, url string) (string, error) {
	dir := filepath.Join(dataDir, LauncherDir)
	if err := private.MkdirAll(dataDir, dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("open-%d.html", port))
	f, err := private.Open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return "", err
	}
	u := html.EscapeString(url)
	_, err = fmt.Fprintf(f, `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=%s">
<title>claude-mem viewer</title></head>
<body><p><a href="%s">Open the claude-mem viewer</a></p></body></html>
`, u, u)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}

// Opener is the program that opens target (WriteLauncher's file, or an address) in the
// person's browser on goos, as an argv run directly (never through a shell, so nothing
// in it is interpreted), or nil when there is no display to open it on. getenv reads the
// environment.
func Opener(goos string, getenv func(string) string, url string) []string {
	switch goos {
	case "darwin":
		return []string{"open", url}
	case "windows":
		// `start` is a cmd.exe builtin; rundll32 opens a URL without a shell.
		return []string{"rundll32", "url.dll,FileProtocolHandler", url}
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return nil
		}
		return []string{"xdg-open", url}
	}
}
