package pgtest

import "syscall"

// procAttr has nothing to set on windows: there is no root to step down from.
func procAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
