// Package lines reads newline-delimited input in bounded memory: a line longer than the
// caller's bound is reported as soon as it passes the bound, not buffered whole (a stream
// of /dev/zero, or one 100 MB line, would otherwise grow without end).
package lines

import (
	"bufio"
	"bytes"
	"errors"
)

// Read returns the next line of r without its newline. A line longer than bound bytes
// returns tooLong with the line's first bytes read and the rest left in r (Skip drops
// it). err is r's error (io.EOF at the end; a last line without a newline comes with it).
func Read(r *bufio.Reader, bound int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > bound+1 || len(line)+len(chunk) > bound && !bytes.HasSuffix(chunk, []byte("\n")) {
			if bytes.HasSuffix(chunk, []byte("\n")) {
				_ = r.UnreadByte() // the line's end: what Skip then drops
			}
			return nil, true, nil
		}
		if need := len(line) + len(chunk); need > cap(line) {
			// Doubled, up to the bound: Go's own growth (1.25x for large slices) would copy
			// a line near the bound some 20 times.
			grown := make([]byte, len(line), min(max(2*cap(line), need), bound+1))
			copy(grown, line)
			line = grown
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), false, err
	}
}

// Skip drops the rest of the current line, newline included.
func Skip(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
