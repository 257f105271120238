package conn

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"warren/engine/amqp"
)

// tcpTransport is a plain socket; frames are coalesced in one write.
type tcpTransport struct {
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
}

// TCP wraps an accepted TCP connection.
func TCP(nc net.Conn) Transport {
	t := &tcpTransport{Conn: nc}
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

func (t *tcpTransport) WriteFrames(frames [][]byte) error {
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
func (t *tcpTransport) sock() io.Writer {
	if t.raw == nil {
		return t.Conn
	}
	return socketWriter{t}
}

// socketWriter writes all of b, waiting in the netpoller while the
// socket is full, as net.Conn's Write does.
type socketWriter struct{ t *tcpTransport }

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
func (t *tcpTransport) TryWrite(b []byte) (blocked bool, err error) {
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

// canTryWrite says whether TryWrite works on this connection.
func (t *tcpTransport) canTryWrite() bool { return t.raw != nil }

// keepSmall empties a buffer, keeping its array unless it grew large.
func keepSmall(b []byte) []byte {
	if cap(b) > writeBufferBytes {
		return nil
	}
	return b[:0]
}

// tryWriter is a transport whose writes can be tried without waiting
// (TCP): the connection's goroutine then writes its own replies.
type tryWriter interface {
	TryWrite(b []byte) (blocked bool, err error)
	canTryWrite() bool
}

// wsTransport carries AMQP in binary WebSocket messages. Client messages
// are read as one byte stream (websocket.NetConn), never whole: several
// frames per message and frames split across messages are both fine, and
// the connection's frame reader checks every frame against frame-max at
// its header, before its payload is read, exactly as for TCP. Messages are
// bounded too (see bound), so that a client cannot keep the server reading
// one message that never ends. Each server frame goes in a message of its
// own, as @cloudamqp/amqp-client needs.
type wsTransport struct {
	ws     *websocket.Conn
	in     net.Conn // ws's reading side as a stream, with read deadlines
	remote net.Addr
	local  net.Addr
	ctx    context.Context
	cancel context.CancelFunc
	// readFailed is set when a read failed (an over-long message, a text
	// message, a broken socket): Close then drops the socket at once
	// rather than wait for the client's close frame while draining the
	// rest of its message.
	readFailed atomic.Bool
}

// WebSocket accepts an upgrade for AMQP over WebSocket. No subprotocol is
// required; "amqp" is answered only when the client offers it.
func WebSocket(w http.ResponseWriter, r *http.Request, originPatterns []string) (Transport, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"amqp"}, OriginPatterns: originPatterns})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, _ := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	var remote net.Addr = addr
	if addr == nil {
		remote = stringAddr(r.RemoteAddr)
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		local = stringAddr(r.Host)
	}
	t := &wsTransport{ws: ws, in: websocket.NetConn(ctx, ws, websocket.MessageBinary), remote: remote, local: local, ctx: ctx, cancel: cancel}
	t.ws.SetReadLimit(amqp.FrameMinSize + 8) // NetConn lifted the limit
	return t, nil
}

// bound sets the largest client message once the client has logged in
// and tuned: the largest publish a client sends in one message, with its
// method and content header frames and a body of maxMessageSize bytes cut
// into frames of frameMax. Until then a message may hold one frame of
// RabbitMQ's pre-tune frame-max, 4096 bytes plus 8 of frame overhead,
// which is all a client sends at a time during the handshake. The bound is
// not the frame-max itself because @cloudamqp/amqp-client 4 sends a whole
// publish, body frames and all, in one message. A longer message ends the
// connection with close 1009 (message too big) as soon as its bytes pass
// the bound, whatever length its header announced. It applies from the
// next message.
func (t *wsTransport) bound(frameMax uint32, maxMessageSize uint64) {
	t.ws.SetReadLimit(largestPublish(frameMax, maxMessageSize))
}

// largestPublish is the size in bytes of a publish with a body of
// maxMessageSize bytes framed under frameMax: a method frame and a content
// header frame of at most frameMax+8 bytes each, and body frames carrying
// frameMax-8 bytes each plus 8 of overhead.
func largestPublish(frameMax uint32, maxMessageSize uint64) int64 {
	chunk := uint64(frameMax - 8)
	bodyFrames := (maxMessageSize + chunk - 1) / chunk
	return int64(2*(uint64(frameMax)+8) + maxMessageSize + 8*bodyFrames)
}

// messageBounder is a transport with messages of its own (WebSocket) that
// must be bounded once the connection is tuned.
type messageBounder interface {
	bound(frameMax uint32, maxMessageSize uint64)
}

// boundMessages applies the negotiated frame-max and the largest message
// body to t's messages, if t has any.
func boundMessages(t Transport, frameMax uint32, maxMessageSize uint64) {
	if mb, ok := t.(messageBounder); ok {
		mb.bound(frameMax, maxMessageSize)
	}
}

type stringAddr string

func (a stringAddr) Network() string { return "ws" }
func (a stringAddr) String() string  { return string(a) }

// Read reads the client's messages as one stream. A text message ends the
// connection (close 1003, unsupported data).
func (t *wsTransport) Read(p []byte) (int, error) {
	n, err := t.in.Read(p)
	if err != nil {
		t.readFailed.Store(true)
	}
	return n, err
}

func (t *wsTransport) WriteFrames(frames [][]byte) error {
	for _, f := range frames {
		if err := t.ws.Write(t.ctx, websocket.MessageBinary, f); err != nil {
			return err
		}
	}
	return nil
}

func (t *wsTransport) Close() error {
	var err error
	if t.readFailed.Load() {
		err = t.ws.CloseNow()
	} else {
		err = t.in.Close() // closes ws with 1000, normal closure
	}
	t.cancel()
	return err
}

func (t *wsTransport) RemoteAddr() net.Addr { return t.remote }

func (t *wsTransport) LocalAddr() net.Addr { return t.local }

func (t *wsTransport) SetReadDeadline(d time.Time) error { return t.in.SetReadDeadline(d) }

// resetOnClose makes closing a TCP transport reset the connection
// (SO_LINGER 0) rather than end it in order: RabbitMQ's sockets linger 0,
// and a socket dropped at the handshake timeout is reset.
func resetOnClose(t Transport) {
	if tt, ok := t.(*tcpTransport); ok {
		if tc, ok := tt.Conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
	}
}
