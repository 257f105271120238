package broker

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"warren/engine"
)

// deliveries counts the Delivered events the broker hands out, and notes
// how many preceded the declaration of queue "elsewhere".
type deliveries struct {
	n, beforeElsewhere atomic.Int64
}

func (d *deliveries) Events(evs []engine.Event) {
	for i := range evs {
		switch {
		case evs[i].Kind == engine.EvDelivered:
			d.n.Add(1)
		case evs[i].Kind == engine.EvQueueDeclared && evs[i].Queue == "elsewhere":
			d.beforeElsewhere.Store(d.n.Load())
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
		busy, other := openChannel(t, b), openChannel(t, b)
		mustApply(t, b, engine.CmdQueueDeclare{Channel: busy, Declare: engine.QueueDeclare{Queue: "backlog"}})
		publishes := make([]engine.Command, 0, 4096)
		for i := 0; i < n; i += len(publishes) {
			publishes = publishes[:0]
			for j := i; j < min(n, i+cap(publishes)); j++ {
				publishes = append(publishes, engine.CmdBasicPublish{Channel: busy, Publish: engine.BasicPublish{RoutingKey: "backlog", Body: []byte{'m'}}})
			}
			mustApply(t, b, publishes...)
		}
		delivered := &deliveries{}
		delivered.beforeElsewhere.Store(-1) // not seen yet
		b.Observe(delivered)
		mustApply(t, b, engine.CmdBasicConsume{Channel: busy, Consume: engine.BasicConsume{Queue: "backlog", ConsumerTag: "c"}})
		// The observer sees the declaration's event in order with the
		// deliveries: got is how many preceded it.
		ok := mustApply(t, b, engine.CmdQueueDeclare{Channel: other, Declare: engine.QueueDeclare{Queue: "elsewhere"}})[0].Declared
		got := delivered.beforeElsewhere.Load()
		if ok.Queue != "elsewhere" || got < 0 || got >= n/2 {
			t.Fatalf("the other connection's declare (%+v) was answered after %d of %d deliveries, want before half", ok, got, n)
		}
		// Each turn is served between two batches; the backlog finishes.
		for turns := 0; delivered.n.Load() < n; turns++ {
			if turns > 2*n/engine.DefaultMaxBatch {
				t.Fatalf("%d of %d delivered after %d more turns", delivered.n.Load(), n, turns)
			}
			b.Reader(nil).Now() // a turn that does nothing
		}
	})
}
