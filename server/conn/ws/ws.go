// Package ws is the AMQP connection's WebSocket transport for warren
// serve (server/conn's Transport): binary messages read as one byte
// stream, each server frame in a message of its own, messages bounded by
// what the tuned connection may send. It owns the socket and nothing of
// the protocol. (The edge's WebSocket, whose socket its Durable Object
// holds, is wasm/worker/amqpsocket.)
package ws

import (
	"context"
	"net"
	"net/http"
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
type Transport struct {
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
	t := &Transport{ws: ws, in: websocket.NetConn(ctx, ws, websocket.MessageBinary), remote: remote, local: local, ctx: ctx, cancel: cancel}
	t.ws.SetReadLimit(amqp.FrameMinSize + 8) // NetConn lifted the limit
	return t, nil
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

// Read reads the client's messages as one stream. A text message ends the
// connection (close 1003, unsupported data).
func (t *Transport) Read(p []byte) (int, error) {
	n, err := t.in.Read(p)
	if err != nil {
		t.readFailed.Store(true)
	}
	return n, err
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

func (t *Transport) SetReadDeadline(d time.Time) error { return t.in.SetReadDeadline(d) }
