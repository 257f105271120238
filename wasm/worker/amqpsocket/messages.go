// Package amqpsocket is the edge's AMQP transport (driver/conn's
// Transport) for a WebSocket its driver holds itself: the Durable Object
// whose JavaScript accepts the socket and hands Go each binary message.
// It owns the socket's messages and nothing of the protocol. Pure Go, so
// that native tests (driver/sessions) run it too.
package amqpsocket

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// Messages carries AMQP over a WebSocket its driver holds itself: the
// edge's Durable Object, whose JavaScript accepts the socket. The driver
// passes in each binary message the client sent (Deliver) and says when
// the socket closed (Closed); the connection's frames go out through
// send, one frame per message, and close closes the socket, as warren
// serve's WebSocket transport does. Client messages are read as one byte
// stream, so several frames per message and frames split across
// messages are fine; a message longer than the bound (see server/ws's
// BoundMessages) ends the connection, since a client cannot be made to stop.
type Messages struct {
	remote, local net.Addr
	send          func(frame []byte) error
	closeFn       func(code int, reason string)

	mu       sync.Mutex
	wake     chan struct{} // closed and replaced when something arrives
	queue    [][]byte
	head     []byte // the rest of the first queued message
	eof      bool
	closed   bool
	deadline time.Time
	limit    int64 // the largest message taken; 0 before bound
}

// NewMessages returns the transport of one socket. remote names the
// client (for presence and logs); send writes one binary message; close
// closes the socket with a WebSocket close code and reason.
func NewMessages(remote string, send func(frame []byte) error, close func(code int, reason string)) *Messages {
	return &Messages{remote: stringAddr(remote), local: stringAddr("edge"), send: send, closeFn: close,
		wake: make(chan struct{}), limit: amqp.FrameMinSize + 8}
}

// Deliver passes one binary message from the client. A message past the
// bound closes the socket with 1009 (message too big) and ends the
// connection.
func (t *Messages) Deliver(msg []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.eof || t.closed {
		return
	}
	if int64(len(msg)) > t.limit {
		t.eof = true
		t.signal()
		go t.closeFn(1009, "message too big")
		return
	}
	if len(msg) == 0 {
		return // nothing to read
	}
	t.queue = append(t.queue, append([]byte(nil), msg...))
	t.signal()
}

// Closed tells the transport the client's socket has closed: the
// connection reads the end of its stream.
func (t *Messages) Closed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.eof = true
	t.signal()
}

// signal wakes a waiting Read; t.mu is held.
func (t *Messages) signal() {
	close(t.wake)
	t.wake = make(chan struct{})
}

// Read reads the client's messages as one stream, until its socket
// closes or the read deadline passes.
func (t *Messages) Read(p []byte) (int, error) {
	for {
		t.mu.Lock()
		for len(t.head) == 0 && len(t.queue) > 0 {
			t.head, t.queue = t.queue[0], t.queue[1:]
		}
		if len(t.head) > 0 {
			n := copy(p, t.head)
			t.head = t.head[n:]
			t.mu.Unlock()
			return n, nil
		}
		if t.eof || t.closed {
			t.mu.Unlock()
			return 0, io.EOF
		}
		wake, deadline := t.wake, t.deadline
		t.mu.Unlock()
		if deadline.IsZero() {
			<-wake
			continue
		}
		d := time.Until(deadline)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		timer := time.NewTimer(d)
		select {
		case <-wake:
			timer.Stop()
		case <-timer.C:
			return 0, os.ErrDeadlineExceeded
		}
	}
}

// errClosed is a write after Close.
var errClosed = errors.New("amqpsocket: the socket is closed")

// WriteFrames sends each frame as a message of its own.
func (t *Messages) WriteFrames(frames [][]byte) error {
	for _, f := range frames {
		t.mu.Lock()
		closed := t.closed
		t.mu.Unlock()
		if closed {
			return errClosed
		}
		if err := t.send(f); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the socket (normal closure) once.
func (t *Messages) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.signal()
	t.mu.Unlock()
	t.closeFn(1000, "")
	return nil
}

// RemoteAddr names the client; LocalAddr the edge.
func (t *Messages) RemoteAddr() net.Addr { return t.remote }

// LocalAddr names the edge.
func (t *Messages) LocalAddr() net.Addr { return t.local }

// SetReadDeadline bounds the next reads.
func (t *Messages) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	t.deadline = d
	t.signal()
	t.mu.Unlock()
	return nil
}

// BoundMessages sets the largest client message once the client has
// tuned (see server/ws's BoundMessages).
func (t *Messages) BoundMessages(frameMax uint32, maxMessageSize uint64) {
	t.mu.Lock()
	t.limit = amqpconn.LargestPublish(frameMax, maxMessageSize)
	t.mu.Unlock()
}

// stringAddr is an address known only as text.
type stringAddr string

func (a stringAddr) Network() string { return "ws" }
func (a stringAddr) String() string  { return string(a) }
