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

// And a long reply takes at most about half of one CPU: after each
// paceWork of encoding the stream rests as long (pacer). On two cores a
// reply encoded flat out, the client reading it and the collector's mark
// workers keep both busy, and every other client's request then waits for
// the kernel to give it a CPU: the healthy client's p99 was 2 to 5 ms
// during listings of 100,000 queues, 1.3 to 1.6 ms paced, and each
// listing took 1.8 times as long (0.44 s for 46 MB). Rests of a piece's
// length (0.3 ms) would be better still, but a sleep here lasts at least
// a millisecond, which would make a listing four times as long.

// paceWork is how long a stream encodes between two rests.
const paceWork = time.Millisecond

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
	pace    pacer
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: w, pace: pacer{now: time.Now, sleep: time.Sleep, since: time.Now()}}
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
		netwatch.Nudge(s.pace.piece())
		runtime.Gosched()
	}
}

// pacer rests a stream as long as it has worked, once it has worked
// paceWork since its last rest.
type pacer struct {
	now   func() time.Time
	sleep func(time.Duration)
	// since is when the stream began, or last began to work after a
	// rest.
	since time.Time
}

// piece is called after each piece the stream writes; it returns the time
// after any rest.
func (p *pacer) piece() time.Time {
	now := p.now()
	if worked := now.Sub(p.since); worked >= paceWork {
		p.sleep(worked)
		now = p.now()
		p.since = now
	}
	return now
}

// flush writes what is buffered and returns the first failure.
func (s *jsonStream) flush() error {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
	return s.err
}
