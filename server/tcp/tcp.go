// Package tcp is the AMQP connection's TCP transport (driver/conn's
// Transport): the socket read and written through raw system calls on
// Linux, with reads that wait for a streaming client (read pacing) and
// writes a connection's goroutine can try without waiting (TryWrite). It
// owns the socket's bytes and nothing of the protocol: driver/conn turns
// them into frames and commands.
package tcp

import (
	"bufio"
	"io"
	"net"
	"os"
	"sync"
	"syscall"

	"warren/server/netwatch"
)

// Transport is a plain socket; frames are coalesced in one write.
type Transport struct {
	net.Conn
	raw syscall.RawConn // for TryWrite; nil when nc has no file descriptor
	mu  sync.Mutex
	// pending are bytes a TryWrite could not write without waiting: they
	// go out first, before anything written after them.
	pending []byte
	w       sockWrite // the write under way, under mu

	// Read's state (readwait_linux.go), the connection goroutine's alone.
	pace     readPacing
	rcvlowat int // SO_RCVLOWAT as last set; 0: never set (1)
	r        sockRead
	watch    netwatch.Watch
}

// sockWrite is a write on the socket through RawConn.Write: its bytes and
// its outcome are kept here, so that the functions RawConn calls are made
// once a connection (TCP). A closure made for each call escapes to the
// heap: an allocation for every write.
type sockWrite struct {
	b    []byte
	err  syscall.Errno
	now  func(fd uintptr) bool // w.writeNow
	wait func(fd uintptr) bool // w.writeAll
}

// sockRead is the same for reads (readwait_linux.go).
type sockRead struct {
	b        []byte
	n        int
	err      syscall.Errno
	before   int                   // bytes there when a wait began
	now      func(fd uintptr) bool // r.readNow
	waitThen func(fd uintptr) bool // r.waitThenRead
	queued   int                   // what InputQueued's SIOCINQ found
	count    func(fd uintptr)      // r.countQueued
	parked   bool                  // readNow found nothing: the goroutine waited in the netpoller
}

// New wraps an accepted TCP connection.
func New(nc net.Conn) *Transport {
	t := &Transport{Conn: nc}
	if sc, ok := nc.(syscall.Conn); ok && rawSockets {
		t.raw, _ = sc.SyscallConn()
	}
	t.w.now, t.w.wait = t.w.writeNow, t.w.writeAll
	return t
}

// writeBufferBytes is the size of the buffer a TCP write coalesces its
// frames in; frames beyond it go out in further writes.
const writeBufferBytes = 64 << 10

// writeBuffers holds the TCP transports' write buffers between writes. A
// connection needs one only while it writes, so the buffers are shared:
// an idle connection holds none (with one of its own each, 1,000 idle
// connections held 64 MB of heap in them, warren-bench idle-memory).
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBufferBytes) }}

func (t *Transport) WriteFrames(frames [][]byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		_, err := t.sock().Write(t.pending)
		t.pending = keepSmall(t.pending)
		if err != nil {
			return err
		}
	}
	if len(frames) == 0 {
		return nil
	}
	w := writeBuffers.Get().(*bufio.Writer)
	w.Reset(t.sock())
	defer func() {
		w.Reset(nil) // hold no connection in the pool
		writeBuffers.Put(w)
	}()
	for _, f := range frames {
		if _, err := w.Write(f); err != nil {
			return err
		}
	}
	return w.Flush()
}

// sock is what WriteFrames writes to: the socket through rawWrite when
// there is a file descriptor (see rawsys_linux.go for why), else the
// net.Conn.
func (t *Transport) sock() io.Writer {
	if t.raw == nil {
		return t.Conn
	}
	return socketWriter{t}
}

// socketWriter writes all of b, waiting in the netpoller while the
// socket is full, as net.Conn's Write does.
type socketWriter struct{ t *Transport }

func (sw socketWriter) Write(b []byte) (int, error) {
	w := &sw.t.w
	w.b, w.err = b, 0
	err := sw.t.raw.Write(w.wait)
	left, werr := len(w.b), w.err
	w.b = nil // hold no caller's bytes
	if err == nil && werr != 0 {
		err = &net.OpError{Op: "write", Net: "tcp", Source: sw.t.LocalAddr(), Addr: sw.t.RemoteAddr(), Err: os.NewSyscallError("write", werr)}
	}
	return len(b) - left, err
}

// write writes w.b until all of it is written, the socket is full (it
// returns true) or a write fails (w.err).
func (w *sockWrite) write(fd uintptr) (full bool) {
	for len(w.b) > 0 {
		n, e := rawWrite(fd, w.b)
		switch {
		case n > 0:
			w.b = w.b[n:]
		case e == syscall.EINTR:
		case e == syscall.EAGAIN:
			return true
		default:
			w.err = e
			return false
		}
	}
	return false
}

// writeNow writes as much of w.b as the socket takes at once.
func (w *sockWrite) writeNow(fd uintptr) bool {
	w.write(fd)
	return true // never wait for the socket
}

// writeAll writes all of w.b, asking RawConn to wait while the socket is
// full.
func (w *sockWrite) writeAll(fd uintptr) bool { return !w.write(fd) }

// TryWrite writes b as far as the socket takes it without waiting, and
// keeps the rest to go out before anything written after it (the next
// WriteFrames, which the caller must then see to: blocked says so). It is
// how a connection's own goroutine writes its replies without waking the
// writer, yet never waits for a client that does not read.
func (t *Transport) TryWrite(b []byte) (blocked bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		t.pending = append(t.pending, b...)
		return true, nil
	}
	t.w.b, t.w.err = b, 0
	err = t.raw.Write(t.w.now)
	b, werr := t.w.b, t.w.err
	t.w.b = nil // hold no caller's bytes
	if err == nil && werr != 0 {
		err = werr
	}
	if err != nil {
		return false, err
	}
	if len(b) > 0 {
		t.pending = append(t.pending, b...)
		return true, nil
	}
	return false, nil
}

// CanTryWrite says whether TryWrite works on this connection.
func (t *Transport) CanTryWrite() bool { return t.raw != nil }

// keepSmall empties a buffer, keeping its array unless it grew large.
func keepSmall(b []byte) []byte {
	if cap(b) > writeBufferBytes {
		return nil
	}
	return b[:0]
}

// ResetOnClose makes closing the transport reset the connection
// (SO_LINGER 0) rather than end it in order: RabbitMQ's sockets linger 0,
// and a socket dropped at the handshake timeout is reset.
func (t *Transport) ResetOnClose() {
	if tc, ok := t.Conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}
