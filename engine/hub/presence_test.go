package hub

import (
	"fmt"
	"testing"
)

func names(p *Presence) string {
	s := ""
	for _, x := range p.Participants {
		s += fmt.Sprintf("%d:%s:%s ", x.ID, x.Name, x.Role)
	}
	for _, c := range p.Connections {
		s += "amqp:" + c.ID + " "
	}
	return s
}

// TestPresence: joins, leaves and AMQP connections are broadcast to
// everyone; a joiner's welcome lists who is already there.
func TestPresence(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("Ada", Editor)
	b := h.join("Bo", ReadOnly)
	want := "1:Ada:editor 2:Bo:read-only "
	if names(a.presence) != want || names(b.presence) != want {
		t.Fatalf("presence %q / %q, want %q", names(a.presence), names(b.presence), want)
	}
	if you := b.messages[0].You; you.ID != 2 || you.Role != ReadOnly {
		t.Fatalf("welcome.you %+v", you)
	}
	h.s.ConnectionOpened(Connection{ID: "c1", Client: "amqp091-go", Address: "127.0.0.1:4000"})
	h.pump()
	if names(b.presence) != want+"amqp:c1 " {
		t.Fatalf("after the connection: %q", names(b.presence))
	}
	h.s.ConnectionClosed("c1")
	h.s.ConnectionClosed("unknown")
	h.pump()
	h.s.Leave(h.nowMs, a.id)
	h.s.Leave(h.nowMs, 99) // unknown: nothing
	h.pump()
	if got := names(b.presence); got != "2:Bo:read-only " {
		t.Fatalf("after the leave: %q", got)
	}
	if got := names(&Presence{Participants: h.s.Presence().Participants}); got != "2:Bo:read-only " {
		t.Fatalf("Session.Presence: %q", got)
	}
}

// TestLeaveClosesConnections: a participant's connections close when it
// leaves, as a client's do: its unacked message returns to the queue, in
// an entry of origin leave.
func TestLeaveClosesConnections(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("Ada", Editor)
	b := h.join("Bo", Editor)
	h.cmd(a, "declare queue q")
	h.cmd(a, "consume q")
	h.cmd(b, "publish q hi")
	if queueReady(t, h.s.b, "q") != 0 {
		t.Fatal("not delivered")
	}
	h.s.Leave(h.nowMs, a.id)
	delete(h.pages, a.id)
	h.pump()
	e := b.entries[len(b.entries)-1]
	if e.Origin.Kind != OriginLeave || e.Origin.Name != "Ada" {
		t.Fatalf("leave entry %+v", e)
	}
	if queueReady(t, b.replica.B, "q") != 1 {
		t.Fatal("the unacked message did not return to q")
	}
	h.inSync()
	// Bo's own channel named app is unaffected.
	h.cmd(b, "consume q")
	if queueReady(t, h.s.b, "q") != 0 {
		t.Fatal("Bo's consumer got nothing")
	}
}
