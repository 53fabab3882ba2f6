// Package holdsig holds SIGTERM, SIGINT and SIGHUP from the earliest moment a Go program
// can: its init. A hook signalled before its record is appended would lose the event
// (Claude Code SIGTERMs a hook when the turn ends; a closed terminal sends SIGHUP), and
// cmd/hook's own init runs only after every package it imports (SQLite, net/http, …):
// about 3 ms. This package imports nothing but the signal machinery, so Go initializes it
// among the first (GODEBUG=inittrace=1 shows where).
package holdsig

import (
	"os"
	"os/signal"
	"syscall"
)

var held chan os.Signal

func init() {
	// Hook mode only (no arguments): every command handles its signals itself.
	if len(os.Args) != 1 {
		return
	}
	held = make(chan os.Signal, 3)
	signal.Notify(held, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
}

// Signals is where the held signals wait (nil outside hook mode): nothing acts on one
// until hook mode reads it, once the event's record is appended.
func Signals() <-chan os.Signal { return held }
