package amqp

import (
	"encoding/binary"
	"fmt"
)

// FrameReader cuts a byte stream into frames without doing any I/O: the
// caller feeds it whatever arrived (a TCP read, a WebSocket message), split
// at any point, and takes out complete frames. It is nats-server's parser
// idea without the coupling: no socket, lock or connection state inside.
//
// It reads a frame's payload in place when the whole frame is in the slice
// passed to Feed, and copies only a frame that straddles two Feeds. A
// frame's size is checked against frame-max as soon as its 7-byte header is
// in, before any of its payload is buffered, and nothing is ever allocated
// from a size read off the wire.
//
// Errors are sticky: after one, the stream is out of sync, every later Next
// returns the same error and Feed is ignored.
type FrameReader struct {
	// buf is the input not yet consumed. It aliases either the caller's
	// last Feed (borrowed) or own.
	buf      []byte
	borrowed bool
	// own holds input kept across Feeds: a partial frame and what followed.
	own          []byte
	frameMax     uint32
	headerNeeded bool
	err          error
}

// Buffered is how many bytes Feed gave that Next has not consumed yet
// (a partial frame, or frames not yet read): a driver that has none left
// and an empty socket has nothing to do but wait.
func (r *FrameReader) Buffered() int { return len(r.buf) }

// ReaderConfig configures a FrameReader.
type ReaderConfig struct {
	// FrameMax is the frame-max in force until SetFrameMax changes it (see
	// there for what it admits). Zero means FrameMinSize (4096), which is
	// RabbitMQ's limit before connection.tune-ok.
	FrameMax uint32
	// NoProtocolHeader says the stream starts with frames rather than the
	// protocol header: the case of a client reading a server, and of tests.
	NoProtocolHeader bool
}

// NewFrameReader returns a reader for one connection's input.
func NewFrameReader(cfg ReaderConfig) *FrameReader {
	r := &FrameReader{headerNeeded: !cfg.NoProtocolHeader}
	if cfg.FrameMax == 0 {
		cfg.FrameMax = FrameMinSize
	}
	r.SetFrameMax(cfg.FrameMax)
	return r
}

// maxFrameMax keeps a frame's total size within an int on 32-bit platforms.
const maxFrameMax = 1<<31 - 1 - frameOverhead

// SetFrameMax sets the frame-max negotiated by connection.tune and
// tune-ok. The spec counts the 8 bytes of frame overhead in it; like
// RabbitMQ, which forgives clients that forget them, the reader admits a
// payload of up to frameMax bytes and refuses a larger one at its header,
// reporting the limit as frameMax-8 ({frame_too_large,Size,frameMax-8}).
// AMQP lets 0 mean "no limit", but the connection layer must negotiate a
// bound, so 0 is a bug in the caller and panics. Values above 2^31-9 are
// lowered to it, so that sizes fit an int everywhere.
func (r *FrameReader) SetFrameMax(frameMax uint32) {
	if frameMax == 0 {
		panic("amqp: SetFrameMax(0); negotiate a bounded frame-max")
	}
	r.frameMax = min(frameMax, maxFrameMax)
}

// Feed adds input. The reader may keep using p, without copying it, until
// Next reports that no complete frame is left, so the caller must not
// modify p before then. Call Next until it reports no frame before feeding
// again; Feed copies unconsumed input when that is not done, and keeps
// working, but does not bound how much it buffers.
func (r *FrameReader) Feed(p []byte) {
	if r.err != nil || len(p) == 0 {
		return
	}
	if len(r.buf) == 0 {
		r.buf, r.borrowed = p, true
		return
	}
	r.keep(0)
	r.own = append(r.own, p...)
	r.buf = r.own
}

// ReadProtocolHeader consumes the 8-byte protocol header that opens a
// connection. It returns false until 8 bytes have arrived, then true. Any
// other 8 bytes are a *ProtocolHeaderError, after which the server writes
// ProtocolHeader and closes, as the spec and RabbitMQ do.
func (r *FrameReader) ReadProtocolHeader() (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	if !r.headerNeeded {
		return true, nil
	}
	if len(r.buf) < len(ProtocolHeader) {
		r.keep(len(ProtocolHeader))
		return false, nil
	}
	if [8]byte(r.buf[:8]) != ProtocolHeader {
		r.err = &ProtocolHeaderError{Got: [8]byte(r.buf[:8])}
		r.buf = nil
		return false, r.err
	}
	r.buf = r.buf[8:]
	r.headerNeeded = false
	return true, nil
}

// Next returns the next complete frame, or ok false when more input is
// needed. The frame's Payload aliases the reader's or the caller's memory:
// it is valid until the next call to Next or Feed. Errors are *Error with
// code 501 (FRAME_ERROR): a frame larger than frame-max, or a frame not
// followed by the frame-end octet. Calling Next before ReadProtocolHeader
// has returned true is a bug in the caller and panics.
func (r *FrameReader) Next() (f Frame, ok bool, err error) {
	if r.err != nil {
		return Frame{}, false, r.err
	}
	if r.headerNeeded {
		panic("amqp: FrameReader.Next before ReadProtocolHeader")
	}
	if len(r.buf) < 7 {
		r.keep(0)
		return Frame{}, false, nil
	}
	typ := r.buf[0]
	channel := binary.BigEndian.Uint16(r.buf[1:])
	size := binary.BigEndian.Uint32(r.buf[3:])
	// RabbitMQ accepts a payload up to frame-max itself, 8 bytes more than
	// the spec allows, "since quite a few [clients] get it wrong", but
	// reports the limit as frame-max - 8.
	if size > r.frameMax {
		r.err = frameError(typ, channel, nil, fmt.Sprintf("{frame_too_large,%d,%d}", size, r.frameMax-min(r.frameMax, frameOverhead)))
		r.buf = nil
		return Frame{}, false, r.err
	}
	total := 7 + int(size) + 1
	if len(r.buf) < total {
		r.keep(total)
		return Frame{}, false, nil
	}
	payload := r.buf[7 : total-1 : total-1]
	if end := r.buf[total-1]; end != FrameEnd {
		r.err = frameError(typ, channel, payload, fmt.Sprintf("{invalid_frame_end_marker,%d}", end))
		r.buf = nil
		return Frame{}, false, r.err
	}
	r.buf = r.buf[total:]
	return Frame{Type: typ, Channel: channel, Payload: payload}, true, nil
}

// keep moves the unconsumed input to the front of the reader's own buffer,
// so that the caller may reuse the memory it fed and so that own does not
// grow with input already consumed. want, when non-zero, is the size of
// the frame being waited for (already checked against frame-max), so that
// its payload is buffered without repeated growth.
func (r *FrameReader) keep(want int) {
	n := len(r.buf)
	if !r.borrowed && n > 0 && &r.buf[0] == &r.own[0] && cap(r.own) >= want {
		return // already at the front of own, with room enough
	}
	if cap(r.own) < max(n, want) {
		grown := make([]byte, n, max(n, want))
		copy(grown, r.buf)
		r.own = grown
	} else {
		r.own = r.own[:n]
		copy(r.own, r.buf) // copy is memmove: buf may overlap own
	}
	r.buf, r.borrowed = r.own, false
}
