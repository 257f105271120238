package mgmt

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"time"

	"warren/server/netwatch"
)

// A long reply (a whole list, the definitions document) is written as it
// is read, never held whole: each item is encoded here, outside the
// engine's turns, into a buffer that goes to the client every streamChunk
// bytes. The bytes are those marshal gives the whole value: encoding/json
// writes an array as its items' encodings between commas.

// streamChunk is how much of a reply is buffered before it is written.
const streamChunk = 64 << 10

// After writing each piece the stream yields its processor (Gosched).
// Encoding a long reply keeps a CPU busy for a second or more; on a
// machine of two cores a connection's goroutine made ready meanwhile
// (a client's round trip) would otherwise wait for the scheduler to
// preempt the encoder, up to 10 ms, behind another's work. A yield a
// piece makes that wait one piece's encoding, well under a millisecond.
// A yield lets run only what is already runnable, though: a client whose
// request is still in its socket is made runnable by a thread that polls
// the network, and with the encoder busy on one P and the other P idle
// none may be (server/netwatch). So each piece also nudges one awake.

// jsonStream writes a JSON reply in pieces. The first failure to encode
// or write is kept (err) and the rest is skipped.
type jsonStream struct {
	w     io.Writer
	buf   []byte
	first bool // no item yet in the array being written
	err   error
	// enc encodes each item into one (marshal's settings), so that an
	// item costs no encoder and buffer of its own.
	enc     *json.Encoder
	scratch bytes.Buffer
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: w}
	s.enc = json.NewEncoder(&s.scratch)
	s.enc.SetEscapeHTML(false)
	return s
}

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

// item appends v, encoded, to the array being written. v may point to a
// variable the caller reuses for every item: it is encoded before item
// returns.
func (s *jsonStream) item(v any) {
	if s.err != nil {
		return
	}
	s.scratch.Reset()
	if err := s.enc.Encode(v); err != nil {
		s.err = err
		return
	}
	if !s.first {
		s.buf = append(s.buf, ',')
	}
	s.first = false
	s.buf = append(s.buf, bytes.TrimSuffix(s.scratch.Bytes(), []byte("\n"))...)
	s.spill()
}

// close ends the array being written.
func (s *jsonStream) close() { s.raw("]") }

// spill writes the buffer once it holds streamChunk bytes.
func (s *jsonStream) spill() {
	if len(s.buf) >= streamChunk {
		s.flush()
		netwatch.Nudge(time.Now())
		runtime.Gosched()
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
