//go:build unix

package archive

import "syscall"

// nonBlock: opening a FIFO for reading returns at once instead of waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
