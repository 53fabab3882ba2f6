package archive

import (
	"fmt"
	"os"
)

// Open opens a file to import: a regular file only. A FIFO nobody writes would block the
// import forever and a device (/dev/zero) would never end, so neither is read; stdin (-)
// is the way to pipe an export in. The open itself does not wait for a FIFO's writer.
func Open(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s, not a regular file: import reads an export file, or - for stdin", name, kind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
