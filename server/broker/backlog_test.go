package broker

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"warren/engine"
)

// deliveries counts the Delivered events the broker hands out.
type deliveries struct{ n atomic.Int64 }

func (d *deliveries) Events(_ *engine.Broker, evs []engine.Event) {
	for i := range evs {
		if evs[i].Kind == engine.EvDelivered {
			d.n.Add(1)
		}
	}
}

// TestOtherCommandsRunBetweenBatches: while a consumer with unlimited
// prefetch works through a 400,000-message backlog, a command from another
// connection is served between the engine's batches, not after the last of
// them. Counted, not timed: when the other command's reply arrives, most of
// the backlog is still to be delivered; later every message is.
func TestOtherCommandsRunBetweenBatches(t *testing.T) {
	const n = 400_000
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		var busy, other engine.ChannelID
		err := b.Do(func(e *engine.Broker) {
			conn, _ := e.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			busy, _ = e.OpenChannel(conn, 1)
			e.QueueDeclare(busy, engine.QueueDeclare{Queue: "backlog"})
			for i := 0; i < n; i++ {
				e.BasicPublish(busy, engine.BasicPublish{RoutingKey: "backlog", Body: []byte{'m'}})
				if i%4096 == 0 {
					e.DrainEvents(nil)
				}
			}
			conn2, _ := e.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			other, _ = e.OpenChannel(conn2, 1)
		})
		if err != nil {
			t.Fatal(err)
		}
		delivered := &deliveries{}
		b.Observe(delivered)
		if err := b.Do(func(e *engine.Broker) {
			e.BasicConsume(busy, engine.BasicConsume{Queue: "backlog", ConsumerTag: "c"})
		}); err != nil {
			t.Fatal(err)
		}
		// The reply is made under the broker's lock, as the observer
		// counts the deliveries: got is how many preceded it.
		var ok engine.QueueDeclareOk
		var got int64
		if err := b.Do(func(e *engine.Broker) {
			ok, _ = e.QueueDeclare(other, engine.QueueDeclare{Queue: "elsewhere"})
			got = delivered.n.Load()
		}); err != nil {
			t.Fatal(err)
		}
		if ok.Queue != "elsewhere" || got >= n/2 {
			t.Fatalf("the other connection's declare (%+v) was answered after %d of %d deliveries, want before half", ok, got, n)
		}
		// Each Do is served between two batches; the backlog finishes.
		for turns := 0; delivered.n.Load() < n; turns++ {
			if turns > 2*n/engine.DefaultMaxBatch {
				t.Fatalf("%d of %d delivered after %d more turns", delivered.n.Load(), n, turns)
			}
			b.Do(func(*engine.Broker) {})
		}
	})
}
