package sessions

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"warren/engine/hub"
)

// socket is one page's connection to its session, as the session's
// goroutine sees it: the page's role, the queue of messages for it, and
// how it is to close. A Peer feeds and pumps it for the socket's owner:
// the WebSocket handler below, or the edge's Durable Object. When out is
// full the session drops the page, so that no page's slow network holds
// up the session.
type socket struct {
	role hub.Role
	// addr is the page's source address, for the logs ("" when the
	// driver does not know it: a hosted session's).
	addr string
	out  chan []byte
	// onJoin, if set, is told the participant's id when its join is
	// taken (Peer.OnJoin).
	onJoin func(hub.ParticipantID)

	// finish sets code, reason and flush once and closes closing: the
	// pump then sends what is queued (if flush) and closes the socket
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
		refuseUnknown(w, r, m.cfg.OriginPatterns)
		return
	}
	defer m.wg.Done()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: m.cfg.OriginPatterns})
	if err != nil {
		return // Accept has answered the request
	}
	ws.SetReadLimit(int64(max(m.cfg.Hub.MaxLineBytes, hub.DefaultMaxLineBytes)) + readSlack)
	p := newPeer(s, role, m.cfg.QueueLen)
	p.k.addr = remoteHost(r)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		if !p.Pump(func(data []byte) bool { return send(ws, data) }, func(code websocket.StatusCode, reason string) { ws.Close(code, reason) }) {
			ws.CloseNow()
		}
	}()
	defer func() { <-wrote }()
	go keepAlive(ws, m.cfg.PingInterval, wrote)

	for {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if !p.joined {
			ctx, cancel = context.WithTimeout(ctx, joinTimeout)
		}
		typ, data, err := ws.Read(ctx)
		cancel()
		if err != nil {
			if !p.joined && ctx.Err() == context.DeadlineExceeded {
				p.Refuse(websocket.StatusPolicyViolation, hub.CloseReason(hub.NewError(hub.KeyNoJoin)))
			}
			break
		}
		if typ != websocket.MessageText {
			p.Refuse(websocket.StatusUnsupportedData, hub.CloseReason(hub.NewError(hub.KeyTextOnly)))
			break
		}
		if !p.Receive(data) {
			break // the session has ended: the pump closes the socket
		}
	}
	p.Gone()
}

// keepAlive pings the page every interval, until gone closes. A page that
// does not answer within the interval is gone without a word (its network
// dropped, its laptop slept): the socket closes, so the session sees it
// leave rather than list it for ever. Browsers answer pings by themselves.
func keepAlive(ws *websocket.Conn, interval time.Duration, gone <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-gone:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		err := ws.Ping(ctx)
		cancel()
		if err != nil {
			ws.CloseNow()
			return
		}
	}
}

// send writes one message, within writeTimeout.
func send(ws *websocket.Conn, data []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, data) == nil
}

// refuseUnknown answers a page socket's request for a session that does
// not exist. A WebSocket handshake is accepted and closed at once with
// the reason, as the edge's session object does (session.mjs): a browser
// never sees the status of a refused handshake, so a page opened at the
// link of an ended session could only say "closed with code 1006". Any
// other request gets the 404 of the JSON API.
func refuseUnknown(w http.ResponseWriter, r *http.Request, origins []string) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		writeError(w, http.StatusNotFound, "not_found", ErrUnknownID.Error())
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: origins})
	if err != nil {
		return // Accept has answered the request
	}
	ws.Close(websocket.StatusPolicyViolation, hub.CloseReason(ErrUnknownID))
}
