package viewer

// Opener is the program that opens url in the person's browser on goos, as an argv run
// directly (never through a shell, so nothing in the URL is interpreted), or nil when
// there is no display to open it on. getenv reads the environment.
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
