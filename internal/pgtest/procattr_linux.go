package pgtest

import "syscall"

// procAttr runs a server binary as nobody when asRoot, and stops it (a fast shutdown) when
// the process that started it dies.
func procAttr(asRoot bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	if asRoot {
		a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return a
}
