package sessions

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"warren/server/hub"
)

// socket is one page's WebSocket in a session. Its reader is the HTTP
// handler's goroutine (serveSocket); its writer (write) sends what the
// session's goroutine queues in out, so that no page's slow network holds
// up the session: when out is full the session drops the page.
type socket struct {
	ws   *websocket.Conn
	role hub.Role
	out  chan []byte

	// finish sets code, reason and flush once and closes closing: the
	// writer then sends what is queued (if flush) and closes the socket
	// with code and reason.
	once    sync.Once
	closing chan struct{}
	code    websocket.StatusCode
	reason  string
	flush   bool
}

// Timeouts of a page's socket.
const (
	// joinTimeout bounds the wait for a page's first message.
	joinTimeout = 30 * time.Second
	// writeTimeout bounds one message's write: a page that takes longer
	// is gone.
	writeTimeout = 10 * time.Second
	// readSlack is what a message may hold beyond the longest command
	// line, for its other fields. The hub checks the exact bound
	// (DecodeInbound) and says so to the page; the socket's own limit
	// only keeps a page from sending a message of any size.
	readSlack = 8 << 10
)

// enqueue queues data for the writer, and reports false when the queue is
// full. Only the session's goroutine calls it.
func (k *socket) enqueue(data []byte) bool {
	select {
	case k.out <- data:
		return true
	default:
		return false
	}
}

// finish asks the writer to close the socket with code and reason, after
// sending what is queued when flush is set. The first call wins.
func (k *socket) finish(code websocket.StatusCode, reason string, flush bool) {
	k.once.Do(func() {
		k.code, k.reason, k.flush = code, reason, flush
		close(k.closing)
	})
}

// serveSocket is GET /ws/sessions/{id}: it accepts the WebSocket, passes
// the page's first message to the session as its join and every later one
// as a message, and tells the session when the socket closes.
func (m *Manager) serveSocket(w http.ResponseWriter, r *http.Request, id string) {
	s, role, ok := m.find(id)
	m.mu.Lock()
	if m.closed {
		ok = false
	}
	if ok {
		m.wg.Add(1)
	}
	m.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no session has this id (it may have ended)")
		return
	}
	defer m.wg.Done()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: m.cfg.OriginPatterns})
	if err != nil {
		return // Accept has answered the request
	}
	ws.SetReadLimit(int64(max(m.cfg.Hub.MaxLineBytes, hub.DefaultMaxLineBytes)) + readSlack)
	k := &socket{ws: ws, role: role, out: make(chan []byte, m.cfg.QueueLen), closing: make(chan struct{})}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		k.write(s.done)
	}()
	defer func() { <-wrote }()
	go k.keepAlive(m.cfg.PingInterval, wrote)

	kind := inJoin
	for {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if kind == inJoin {
			ctx, cancel = context.WithTimeout(ctx, joinTimeout)
		}
		typ, data, err := ws.Read(ctx)
		cancel()
		if err != nil {
			if kind == inJoin && ctx.Err() == context.DeadlineExceeded {
				k.finish(websocket.StatusPolicyViolation, "no join message came", false)
			}
			break
		}
		if typ != websocket.MessageText {
			k.finish(websocket.StatusUnsupportedData, "the session protocol is JSON text messages", false)
			break
		}
		if !s.send(input{kind: kind, sock: k, data: data}) {
			break // the session has ended: the writer closes the socket
		}
		kind = inMessage
	}
	if kind == inMessage {
		s.send(input{kind: inLeave, sock: k})
	}
	k.finish(websocket.StatusNormalClosure, "", false)
}

// write sends the queued messages until the socket is to close, then
// closes it. ended closes when the session has ended: whatever the session
// queued last (its "ended" message) is sent before the close.
func (k *socket) write(ended <-chan struct{}) {
	for {
		select {
		case data := <-k.out:
			if !k.send(data) {
				k.ws.CloseNow()
				return
			}
			continue
		case <-k.closing:
		case <-ended:
			k.finish(websocket.StatusNormalClosure, "the session has ended", true)
		}
		break
	}
	for k.flush {
		select {
		case data := <-k.out:
			if !k.send(data) {
				k.ws.CloseNow()
				return
			}
			continue
		default:
		}
		break
	}
	k.ws.Close(k.code, k.reason)
}

// keepAlive pings the page every interval, until gone closes. A page that
// does not answer within the interval is gone without a word (its network
// dropped, its laptop slept): the socket closes, so the session sees it
// leave rather than list it for ever. Browsers answer pings by themselves.
func (k *socket) keepAlive(interval time.Duration, gone <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-gone:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		err := k.ws.Ping(ctx)
		cancel()
		if err != nil {
			k.ws.CloseNow()
			return
		}
	}
}

// send writes one message, within writeTimeout.
func (k *socket) send(data []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return k.ws.Write(ctx, websocket.MessageText, data) == nil
}
