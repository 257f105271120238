package mgmt

import (
	"io"
)

// A long reply (a whole list, the definitions document) is written as it
// is read, never held whole: each item is encoded here, outside the
// engine's turns, into a buffer that goes to the client every streamChunk
// bytes. The bytes are those marshal gives the whole value: encoding/json
// writes an array as its items' encodings between commas.

// streamChunk is how much of a reply is buffered before it is written.
const streamChunk = 64 << 10

// jsonStream writes a JSON reply in pieces. The first failure to encode
// or write is kept (err) and the rest is skipped.
type jsonStream struct {
	w     io.Writer
	buf   []byte
	first bool // no item yet in the array being written
	err   error
}

func newJSONStream(w io.Writer) *jsonStream { return &jsonStream{w: w} }

// raw appends text as it is.
func (s *jsonStream) raw(text string) {
	s.buf = append(s.buf, text...)
	s.spill()
}

// open starts an array, after text (a key, say).
func (s *jsonStream) open(text string) {
	s.raw(text + "[")
	s.first = true
}

// item appends v, encoded, to the array being written.
func (s *jsonStream) item(v any) {
	if s.err != nil {
		return
	}
	data, err := marshal(v)
	if err != nil {
		s.err = err
		return
	}
	if !s.first {
		s.buf = append(s.buf, ',')
	}
	s.first = false
	s.buf = append(s.buf, data...)
	s.spill()
}

// close ends the array being written.
func (s *jsonStream) close() { s.raw("]") }

// spill writes the buffer once it holds streamChunk bytes.
func (s *jsonStream) spill() {
	if len(s.buf) >= streamChunk {
		s.flush()
	}
}

// flush writes what is buffered and returns the first failure.
func (s *jsonStream) flush() error {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
	return s.err
}
