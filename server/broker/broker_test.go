package broker

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"warren/engine"
)

type recorder struct {
	mu  sync.Mutex
	evs []engine.Event
}

func (r *recorder) Events(_ *engine.Broker, evs []engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, evs...)
}

func (r *recorder) kinds() []engine.EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []engine.EventKind
	for _, e := range r.evs {
		ks = append(ks, e.Kind)
	}
	return ks
}

// TestTimersFireOnWallClock runs the driver in a synctest bubble, whose
// clock is virtual: a message with a 5 s TTL expires when 5 s have passed,
// without the test sleeping for real.
func TestTimersFireOnWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		var conn engine.ConnID
		var ch engine.ChannelID
		rec := &recorder{}
		b.Observe(rec)
		err := b.Do(func(e *engine.Broker) {
			conn, _ = e.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			ch, _ = e.OpenChannel(conn, 1)
			e.QueueDeclare(ch, engine.QueueDeclare{Queue: "q", Args: engine.Table{"x-message-ttl": int64(5000)}})
			e.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("hi")})
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(4999 * time.Millisecond)
		synctest.Wait()
		for _, k := range rec.kinds() {
			if k == engine.EvExpired {
				t.Fatal("expired early")
			}
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		found := false
		for _, k := range rec.kinds() {
			found = found || k == engine.EvExpired
		}
		if !found {
			t.Fatalf("no expiry after 5 s: %v", rec.kinds())
		}
	})
}

// TestEventsGoToTheirConnection checks that a connection's sink sees its
// own deliveries and not another connection's.
func TestEventsGoToTheirConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		a, c := &recorder{}, &recorder{}
		var connA, connC engine.ConnID
		b.Do(func(e *engine.Broker) {
			connA, _ = e.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			connC, _ = e.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
		})
		b.Attach(connA, a)
		b.Attach(connC, c)
		b.Do(func(e *engine.Broker) {
			chA, _ := e.OpenChannel(connA, 1)
			chC, _ := e.OpenChannel(connC, 1)
			e.QueueDeclare(chA, engine.QueueDeclare{Queue: "q"})
			e.BasicConsume(chA, engine.BasicConsume{Queue: "q", NoAck: true})
			e.BasicPublish(chC, engine.BasicPublish{RoutingKey: "q", Body: []byte("x")})
		})
		has := func(r *recorder, k engine.EventKind) bool {
			for _, got := range r.kinds() {
				if got == k {
					return true
				}
			}
			return false
		}
		if !has(a, engine.EvDelivered) || has(c, engine.EvDelivered) {
			t.Fatalf("a=%v c=%v", a.kinds(), c.kinds())
		}
		if !has(c, engine.EvPublished) || has(a, engine.EvPublished) {
			t.Fatalf("a=%v c=%v", a.kinds(), c.kinds())
		}
	})
}
