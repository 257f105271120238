package conn

import (
	"strings"
	"testing"
	"time"

	"warren/engine"
	"warren/engine/amqp"
)

// TestSinkActsOnItsKindsOnly: a connection's sink does something (queues
// a frame, closes a channel or the connection) for an
// event of its own connection exactly when the event's kind is one of
// sinkKinds, and nothing for another connection's event of any kind. The
// broker hands it other kinds, and other connections' events, only in a
// batch it may ignore (broker.KindFilter), so a kind it acted on and
// sinkKinds left out would be lost there.
func TestSinkActsOnItsKindsOnly(t *testing.T) {
	const own, other engine.ConnID = 7, 8
	acted := func(k engine.EventKind, of engine.ConnID) bool {
		cfg := &Config{}
		cfg.Defaults()
		c := &conn{cfg: cfg, b: cfg.Broker, home: cfg.shared.home, out: newOutbox(), id: own, closeWait: time.Hour,
			caps: amqp.Table{"consumer_cancel_notify": true}}
		c.chans.set(1, chanOpen)
		defer c.stopClosingTimer()
		ev := engine.Event{Kind: k, Channel: engine.ChannelID{Conn: of, Num: 1}, Code: engine.PreconditionFailed,
			Text: "PRECONDITION_FAILED", Reason: "queue-deleted", ConsumerTag: "ctag", Msg: &engine.Message{}}
		sink{c}.Events(nil, []engine.Event{ev})
		return c.out.size() > 0 || c.dead || c.closeSent.Load() || c.chans.get(1) != chanOpen
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
