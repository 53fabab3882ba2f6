//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth is the columns of the console f is, or 0 when it is none.
func terminalWidth(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right - info.Window.Left + 1)
}
