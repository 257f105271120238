// Package ws is the AMQP connection's WebSocket transport for warren
// serve (driver/conn's Transport): binary messages read as one byte
// stream, each server frame in a message of its own, messages bounded by
// what the tuned connection may send. It owns the socket and nothing of
// the protocol. (The edge's WebSocket, whose socket its Durable Object
// holds, is wasm/worker/amqpsocket.)
package ws

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// Transport carries AMQP in binary WebSocket messages. Client messages
// are read as one byte stream (websocket.NetConn), never whole: several
// frames per message and frames split across messages are both fine, and
// the connection's frame reader checks every frame against frame-max at
// its header, before its payload is read, exactly as for TCP. Messages are
// bounded too (see bound), so that a client cannot keep the server reading
// one message that never ends. Each server frame goes in a message of its
// own, as @cloudamqp/amqp-client needs.
//
// The stream is read by a goroutine of the transport's own (pump) into
// one of two buffers, and Read takes from there: so a read deadline, even
// one set to now to wake the connection's owner (driver/conn's wake.go),
// ends a Read without ending the stream. websocket.NetConn's own
// deadline cancels its read and the socket with it.
type Transport struct {
	ws     *websocket.Conn
	in     net.Conn // ws's reading side as a stream (no deadlines)
	remote net.Addr
	local  net.Addr
	ctx    context.Context
	cancel context.CancelFunc
	// readFailed is set when a read failed (an over-long message, a text
	// message, a broken socket): Close then drops the socket at once
	// rather than wait for the client's close frame while draining the
	// rest of its message.
	readFailed atomic.Bool

	// What the pump read, and the buffers it may read into next.
	reads chan readResult
	free  chan []byte
	// Read's own: the rest of the last result, and its error once
	// everything before it was read.
	cur  []byte
	left []byte
	err  error
	// deadline, under mu, is the read deadline; changed closes and
	// replaces the channel a Read waits on, so that a new deadline takes
	// effect at once. timer is Read's, reused.
	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{}
	timer    *time.Timer
}

// readResult is one read of the pump's.
type readResult struct {
	buf []byte
	n   int
	err error
}

// readBuffer is the size of each of the pump's two buffers.
const readBuffer = 32 << 10

// Accept accepts an upgrade for AMQP over WebSocket. No subprotocol is
// required; "amqp" is answered only when the client offers it.
func Accept(w http.ResponseWriter, r *http.Request, originPatterns []string) (*Transport, error) {
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
	t := &Transport{ws: ws, in: websocket.NetConn(ctx, ws, websocket.MessageBinary), remote: remote, local: local, ctx: ctx, cancel: cancel,
		reads: make(chan readResult, 1), free: make(chan []byte, 2), changed: make(chan struct{})}
	t.ws.SetReadLimit(amqp.FrameMinSize + 8) // NetConn lifted the limit
	t.free <- make([]byte, readBuffer)
	t.free <- make([]byte, readBuffer)
	go t.pump()
	return t, nil
}

// pump reads the stream until it fails (the socket closed, a text
// message, a message past the bound), handing each read to Read.
func (t *Transport) pump() {
	for {
		var buf []byte
		select {
		case buf = <-t.free:
		case <-t.ctx.Done():
			return
		}
		n, err := t.in.Read(buf)
		if err != nil {
			t.readFailed.Store(true)
		}
		select {
		case t.reads <- readResult{buf, n, err}:
		case <-t.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// BoundMessages sets the largest client message once the client has logged in
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
func (t *Transport) BoundMessages(frameMax uint32, maxMessageSize uint64) {
	t.ws.SetReadLimit(amqpconn.LargestPublish(frameMax, maxMessageSize))
}

// stringAddr is an address known only as text.
type stringAddr string

func (a stringAddr) Network() string { return "ws" }
func (a stringAddr) String() string  { return string(a) }

// Read reads the client's messages as one stream, until the read
// deadline (os.ErrDeadlineExceeded). A text message ends the connection
// (close 1003, unsupported data).
func (t *Transport) Read(p []byte) (int, error) {
	for {
		if len(t.left) > 0 {
			n := copy(p, t.left)
			t.left = t.left[n:]
			if len(t.left) == 0 {
				t.free <- t.cur
				t.cur = nil
			}
			return n, nil
		}
		if t.err != nil {
			return 0, t.err
		}
		t.mu.Lock()
		deadline, changed := t.deadline, t.changed
		t.mu.Unlock()
		var expired <-chan time.Time
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			if t.timer == nil {
				t.timer = time.NewTimer(d)
			} else {
				t.timer.Reset(d)
			}
			expired = t.timer.C
		}
		select {
		case r := <-t.reads:
			t.cur, t.left, t.err = r.buf, r.buf[:r.n], r.err
			if r.n == 0 {
				t.free <- r.buf
				t.cur = nil
			}
		case <-changed:
		case <-expired:
		}
		if t.timer != nil {
			t.timer.Stop()
		}
	}
}

func (t *Transport) WriteFrames(frames [][]byte) error {
	for _, f := range frames {
		if err := t.ws.Write(t.ctx, websocket.MessageBinary, f); err != nil {
			return err
		}
	}
	return nil
}

func (t *Transport) Close() error {
	var err error
	if t.readFailed.Load() {
		err = t.ws.CloseNow()
	} else {
		err = t.in.Close() // closes ws with 1000, normal closure
	}
	t.cancel()
	return err
}

func (t *Transport) RemoteAddr() net.Addr { return t.remote }

func (t *Transport) LocalAddr() net.Addr { return t.local }

// SetReadDeadline bounds Read, and ends a Read under way when d has
// passed (a wake-up).
func (t *Transport) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	t.deadline = d
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	return nil
}
