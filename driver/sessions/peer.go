package sessions

import (
	"github.com/coder/websocket"

	"warren/engine/hub"
)

// Peer is a page's socket as its session sees it, whoever owns the
// socket: warren serve's WebSocket handler (socket.go), or the edge's
// Durable Object, whose JavaScript holds the WebSocket (Host). The owner
// passes in what the page sends (Receive; the first message is its
// join), says when the socket has closed (Gone), and pumps what the
// session sends back (Pump) on a goroutine of its own.
type Peer struct {
	s      *session
	k      *socket
	joined bool
	gone   bool
}

// newPeer returns a peer of role in s with an outgoing queue of queueLen
// messages.
func newPeer(s *session, role hub.Role, queueLen int) *Peer {
	return &Peer{s: s, k: &socket{role: role, out: make(chan []byte, queueLen), closing: make(chan struct{})}}
}

// OnJoin sets what to do, on the session's goroutine, when the page's
// join is taken: a Durable Object writes the participant's id on its
// socket, to adopt it after hibernating (Host.AdoptPage). Call it before
// the first Receive.
func (p *Peer) OnJoin(fn func(id hub.ParticipantID)) { p.k.onJoin = fn }

// Receive passes one message from the page to the session: the first is
// its join. It reports false once the session has ended (the pump then
// closes the socket).
func (p *Peer) Receive(data []byte) bool {
	kind := inMessage
	if !p.joined {
		kind = inJoin
	}
	if !p.s.send(input{kind: kind, sock: p.k, data: data}) {
		return false
	}
	p.joined = true
	return true
}

// Gone tells the session the socket has closed; the page leaves.
func (p *Peer) Gone() {
	if p.gone {
		return
	}
	p.gone = true
	if p.joined {
		p.s.send(input{kind: inLeave, sock: p.k})
	}
	p.k.finish(websocket.StatusNormalClosure, "", false)
}

// Refuse closes the socket before it joined, with code and reason.
func (p *Peer) Refuse(code websocket.StatusCode, reason string) {
	p.k.finish(code, reason, false)
}

// Pump sends what the session queues for the page, in order, with send,
// until the socket is to close; then it sends what is still queued when
// the close says so (the session's last words: "ended", a refused
// join) and closes the socket with close. A send that fails ends it:
// the page is gone. Pump returns when the socket is closed. It runs on
// the owner's goroutine for the socket, one per page.
func (p *Peer) Pump(send func([]byte) bool, close func(code websocket.StatusCode, reason string)) bool {
	k := p.k
	for {
		select {
		case data := <-k.out:
			if !send(data) {
				return false
			}
			continue
		case <-k.closing:
		case <-p.s.done:
			k.finish(websocket.StatusNormalClosure, hub.CloseReason(hub.NewError(hub.KeyEnded)), true)
		}
		break
	}
	for k.flush {
		select {
		case data := <-k.out:
			if !send(data) {
				return false
			}
			continue
		default:
		}
		break
	}
	close(k.code, k.reason)
	return true
}
