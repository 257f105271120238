package conn

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// tcpTransport is a plain socket; frames are coalesced in one write.
type tcpTransport struct {
	net.Conn
	mu sync.Mutex
	w  *bufio.Writer
}

// TCP wraps an accepted TCP connection.
func TCP(nc net.Conn) Transport {
	return &tcpTransport{Conn: nc, w: bufio.NewWriterSize(nc, 64<<10)}
}

func (t *tcpTransport) WriteFrames(frames [][]byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range frames {
		if _, err := t.w.Write(f); err != nil {
			return err
		}
	}
	return t.w.Flush()
}

// wsTransport carries AMQP in binary WebSocket messages: client messages
// are one byte stream (several frames per message and frames split across
// messages are both fine), and each server frame goes in a message of its
// own, as @cloudamqp/amqp-client needs.
type wsTransport struct {
	ws     *websocket.Conn
	remote net.Addr
	local  net.Addr
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	pending  []byte
	deadline time.Time
}

// WebSocket accepts an upgrade for AMQP over WebSocket. No subprotocol is
// required; "amqp" is answered only when the client offers it.
func WebSocket(w http.ResponseWriter, r *http.Request, originPatterns []string) (Transport, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"amqp"}, OriginPatterns: originPatterns})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1)
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
	return &wsTransport{ws: ws, remote: remote, local: local, ctx: ctx, cancel: cancel}, nil
}

type stringAddr string

func (a stringAddr) Network() string { return "ws" }
func (a stringAddr) String() string  { return string(a) }

func (t *wsTransport) Read(p []byte) (int, error) {
	for len(t.pending) == 0 {
		ctx := t.ctx
		t.mu.Lock()
		dl := t.deadline
		t.mu.Unlock()
		var cancel context.CancelFunc
		if !dl.IsZero() {
			ctx, cancel = context.WithDeadline(ctx, dl)
		}
		typ, data, err := t.ws.Read(ctx)
		if cancel != nil {
			cancel()
		}
		if err != nil {
			return 0, err
		}
		if typ != websocket.MessageBinary {
			continue
		}
		t.pending = data
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
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
	err := t.ws.Close(websocket.StatusNormalClosure, "")
	t.cancel()
	return err
}

func (t *wsTransport) RemoteAddr() net.Addr { return t.remote }

func (t *wsTransport) LocalAddr() net.Addr { return t.local }

func (t *wsTransport) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	t.deadline = d
	t.mu.Unlock()
	return nil
}
