//go:build unix && !linux

package pgtest

import "syscall"

// procAttr runs a server binary as nobody when asRoot.
func procAttr(asRoot bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if asRoot {
		a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return a
}
