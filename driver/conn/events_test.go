package conn

import (
	"net"
	"strings"
	"testing"

	"warren/engine"
	"warren/server/tcp"
)

func init() { checkOwners = true } // every connection in the tests asserts its owner

// TestSinkActsOnItsKindsOnly: a connection's sink does something (queues
// a frame, keeps the event for the owner) for an event
// of its own connection exactly when the event's kind is one of
// sinkKinds, and nothing for another connection's event of any kind. The
// broker hands it other kinds, and other connections' events, only in a
// batch it may ignore (sink.Filter), so a kind it acted on and
// sinkKinds left out would be lost there.
func TestSinkActsOnItsKindsOnly(t *testing.T) {
	const own, other engine.ConnID = 7, 8
	acted := func(k engine.EventKind, of engine.ConnID) bool {
		cfg := &Config{}
		cfg.Defaults()
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		c := &conn{cfg: cfg, b: cfg.Broker, home: cfg.shared.home, out: newOutbox(), connID: own,
			notifyCancel: true}
		c.wake.init(tcp.New(a))
		ev := engine.Event{Kind: k, Channel: engine.ChannelID{Conn: of, Num: 1}, Code: engine.PreconditionFailed,
			Text: "PRECONDITION_FAILED", Reason: "queue-deleted", ConsumerTag: "ctag", Msg: &engine.Message{}}
		eventSink{c}.Events([]engine.Event{ev})
		return c.out.size() > 0 || len(c.inbox.evs) > 0 || c.wake.woken.Load()
	}
	for k := engine.EvNone; !strings.HasPrefix(k.String(), "event("); k++ {
		if got, want := acted(k, own), sinkKinds.Has(k); got != want {
			t.Errorf("%s of its own connection: acted %v, in sinkKinds %v", k, got, want)
		}
		if acted(k, other) {
			t.Errorf("%s of another connection: acted on", k)
		}
	}
}

// TestOwnerCheck: the owner check passes on the owner and panics
// elsewhere.
func TestOwnerCheck(t *testing.T) {
	g := currentOwner()
	g.check()
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		g.check()
	}()
	if r := <-done; r == nil || !strings.Contains(r.(string), "owned by goroutine") {
		t.Fatalf("check on another goroutine: recovered %v, want the owner panic", r)
	}
}

// TestSinkKeepsWhileApplying: while the owner applies commands the sink
// keeps the connection's events for it, so that each reply goes before
// what its command caused, unless the machine said no reply can be
// overtaken (EventsGoNow, inbox.begin's direct): then it queues the
// stateless ones (a delivery, a confirm) itself, as it does while no
// command is out, and still keeps those that need the machine (a channel
// closed).
func TestSinkKeepsWhileApplying(t *testing.T) {
	const own engine.ConnID = 7
	for _, tc := range []struct {
		direct     bool
		kind       engine.EventKind
		kept, sent bool
	}{
		{false, engine.EvDelivered, true, false},
		{false, engine.EvConfirmed, true, false},
		{false, engine.EvChannelClosed, true, false},
		{true, engine.EvDelivered, false, true},
		{true, engine.EvConfirmed, false, true},
		{true, engine.EvChannelClosed, true, false},
	} {
		cfg := &Config{}
		cfg.Defaults()
		a, b := net.Pipe()
		c := &conn{cfg: cfg, b: cfg.Broker, home: cfg.shared.home, out: newOutbox(), connID: own}
		c.wake.init(tcp.New(a))
		c.inbox.begin(tc.direct)
		ev := engine.Event{Kind: tc.kind, Channel: engine.ChannelID{Conn: own, Num: 1}, Code: engine.PreconditionFailed,
			Text: "PRECONDITION_FAILED", Msg: &engine.Message{}}
		eventSink{c}.Events([]engine.Event{ev})
		kept, sent := len(c.inbox.evs) == 1, c.out.size() > 0
		if kept != tc.kept || sent != tc.sent {
			t.Errorf("%s, direct %v: kept %v sent %v, want kept %v sent %v", tc.kind, tc.direct, kept, sent, tc.kept, tc.sent)
		}
		if c.wake.woken.Load() {
			t.Errorf("%s, direct %v: woke the owner, which takes the inbox once its commands are applied", tc.kind, tc.direct)
		}
		a.Close()
		b.Close()
	}
}
