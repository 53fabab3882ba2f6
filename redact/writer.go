package redact

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// batch bounds how much output Writer holds before scrubbing it: whole lines are scrubbed as
// they complete, and a line longer than this is cut at a blank where it has one.
const batch = 64 << 10

// markerRoom is kept free of the cap for the omission marker line.
const markerRoom = 64

// Writer scrubs a stream (a child's stdout or stderr) line by line as it is written and keeps
// at most a cap of it: the head is written through, the tail is kept in a ring, and Close
// writes a "[… N bytes omitted …]" line and the tail (so a process killed before Close leaves
// the head only). Memory is O(cap + 128 KiB) whatever is written, and Seen tells a caller
// when to stop a child that prints too much.
type Writer struct {
	w        io.Writer
	known    []string // longest first
	headLeft int      // bytes the head may still take; -1 once the tail has begun
	pend     []byte   // written, not yet scrubbed
	ring     []byte   // the tail, len ≤ tailMax; start is its oldest byte once full
	start    int
	tailMax  int
	omitted  int64
	seen     int64
	err      error
}

// NewWriter returns a Writer that keeps at most limit bytes of scrubbed output in w (head and
// tail, each about half; a limit under 128 bytes keeps little but the marker), scrubbing with
// Scrub(…, known...).
func NewWriter(w io.Writer, limit int64, known ...string) *Writer {
	head := max(limit/2, 0)
	return &Writer{
		w:        w,
		known:    sortKnown(known),
		headLeft: int(min(head, math.MaxInt)),
		tailMax:  int(min(max(limit-head-markerRoom, 0), math.MaxInt)),
	}
}

// Seen is how many bytes have been written to the Writer, kept or not.
func (s *Writer) Seen() int64 { return s.seen }

// Write takes p and scrubs the lines it completes; it fails only when the underlying
// writer has failed.
func (s *Writer) Write(p []byte) (int, error) {
	s.seen += int64(len(p))
	for rest := p; len(rest) > 0; {
		// Bounded: at most a batch is appended before pend is cut down below a batch.
		k := min(len(rest), batch)
		s.pend = append(s.pend, rest[:k]...)
		rest = rest[k:]
		for n := cut(s.pend); n > 0; n = cut(s.pend) {
			s.flush(n)
		}
	}
	return len(p), s.err
}

// Close scrubs what is pending and writes the marker and the tail. It does not close the
// underlying writer; a second Close writes nothing.
func (s *Writer) Close() error {
	if len(s.pend) > 0 {
		s.flush(len(s.pend))
	}
	tail := append(s.ring[s.start:len(s.ring):len(s.ring)], s.ring[:s.start]...)
	if s.omitted > 0 {
		// Begin the tail at a line, not in the middle of one.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			s.omitted += int64(i + 1)
			tail = tail[i+1:]
		}
		s.write(fmt.Appendf(nil, "[… %d bytes omitted …]\n", s.omitted))
	}
	s.write(tail)
	s.ring, s.start, s.omitted = nil, 0, 0
	return s.err
}

// cut is how much of p to scrub now: up to its last line break, or, once p holds a batch
// without one, up to the batch's last blank, else the whole batch. A private key block
// whose END line has not come yet waits for it, unless it begins a full batch.
func cut(p []byte) int {
	q := p[:min(len(p), batch)]
	n := bytes.LastIndexByte(q, '\n') + 1
	if n == 0 && len(p) >= batch {
		if n = bytes.LastIndexAny(q, " \t") + 1; n == 0 {
			n = batch
		}
	}
	if i := bytes.LastIndex(p[:n], []byte("-----BEGIN")); i >= 0 && !bytes.Contains(p[i:n], []byte("-----END")) &&
		(i > 0 || len(p) < batch) {
		n = i
	}
	return n
}

// flush scrubs pend[:n] and keeps it.
func (s *Writer) flush(n int) {
	out := scrub(string(s.pend[:n]), s.known)
	s.pend = s.pend[:copy(s.pend, s.pend[n:])]
	if s.headLeft >= 0 {
		fit := len(out)
		if fit > s.headLeft { // the head ends at a line break
			fit = strings.LastIndexByte(out[:s.headLeft], '\n') + 1
		}
		s.write([]byte(out[:fit]))
		s.headLeft -= fit
		if fit == len(out) {
			return
		}
		out, s.headLeft = out[fit:], -1
	}
	s.keepTail(out)
}

// keepTail appends out to the ring, dropping (and counting) its oldest bytes.
func (s *Writer) keepTail(out string) {
	if len(out) >= s.tailMax {
		s.omitted += int64(len(s.ring) + len(out) - s.tailMax)
		s.ring = append(s.ring[:0], out[len(out)-s.tailMax:]...)
		s.start = 0
		return
	}
	if free := s.tailMax - len(s.ring); free > 0 {
		n := min(free, len(out))
		s.ring = append(s.ring, out[:n]...)
		out = out[n:]
	}
	for len(out) > 0 { // full: overwrite the oldest bytes
		n := copy(s.ring[s.start:], out)
		s.omitted += int64(n)
		out = out[n:]
		s.start = (s.start + n) % len(s.ring)
	}
}

func (s *Writer) write(p []byte) {
	if s.err == nil && len(p) > 0 {
		_, s.err = s.w.Write(p)
	}
}
