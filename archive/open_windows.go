//go:build windows

package archive

// nonBlock: a Windows open does not wait for a named pipe's writer.
const nonBlock = 0
