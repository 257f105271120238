package sessions

import (
	"strings"
	"testing"

	"github.com/coder/websocket"

	"warren/engine/hub"
)

// TestSlowPageDropped: a page whose writer's queue is full when the
// session has a message for it is dropped, with a close reason that says
// so, and leaves the session; the others go on. The session is driven
// here without its goroutine or sockets, as its goroutine would.
func TestSlowPageDropped(t *testing.T) {
	logs := &logBook{}
	m := New(Config{QueueLen: 1, Logf: logs.logf})
	s := newSession(m, m.cfg.Hub, "")
	join := []byte(`{"type":"join","name":"Slow"}`)
	slow := &socket{role: hub.Editor, out: make(chan []byte, 1), closing: make(chan struct{})}
	s.take(input{kind: inJoin, sock: slow, data: join})
	s.deliver() // the welcome fills Slow's queue
	fast := &socket{role: hub.Editor, out: make(chan []byte, 8), closing: make(chan struct{})}
	s.take(input{kind: inJoin, sock: fast, data: []byte(`{"type":"join","name":"Fast"}`)})
	s.deliver() // the presence for Slow finds its queue full
	select {
	case <-slow.closing:
	default:
		t.Fatal("the slow page was not dropped")
	}
	if slow.code != websocket.StatusPolicyViolation || !strings.HasPrefix(slow.reason, "tooSlow: too slow") || slow.flush {
		t.Fatalf("slow page closed with %d %q flush=%v", slow.code, slow.reason, slow.flush)
	}
	if pr := s.hub.Presence(); len(pr.Participants) != 1 || pr.Participants[0].Name != "Fast" {
		t.Fatalf("presence after the drop: %+v", pr)
	}
	if len(fast.out) != 2 { // welcome, then presence without Slow
		t.Fatalf("Fast has %d messages queued", len(fast.out))
	}
	if !strings.Contains(logs.text(), "dropped participant 1") {
		t.Fatalf("the drop was not logged: %q", logs.text())
	}
	if s.summary.Participants != 1 {
		t.Fatalf("the list would show %d participants", s.summary.Participants)
	}
}
