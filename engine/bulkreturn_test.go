package engine_test

import (
	"testing"

	"warren/engine"
)

// TestReturnsInBatches: a channel closing, basic.recover and basic.nack
// multiple with requeue give many deliveries back; the command brings a
// batch back and later calls a batch each (bulkreturn.go). Between the
// calls every copy is counted (ready or unacknowledged) and nothing is
// delivered from the queue; the calls together make the events one
// unbounded call makes, in order (a close's ChannelClosed comes after the
// first batch).
func TestReturnsInBatches(t *testing.T) {
	const n, batch = 35, 10
	for _, tc := range []struct {
		name   string
		give   func(b *engine.Broker, ch engine.ChannelID) error
		closes bool
	}{
		{"channel.close", func(b *engine.Broker, ch engine.ChannelID) error { b.CloseChannel(ch); return nil }, true},
		{"basic.recover", func(b *engine.Broker, ch engine.ChannelID) error {
			return b.Apply(engine.CmdBasicRecover{Channel: ch, Requeue: true}).Err
		}, false},
		{"basic.nack multiple requeue", func(b *engine.Broker, ch engine.ChannelID) error {
			return b.Apply(engine.CmdBasicNack{Channel: ch, DeliveryTag: 0, Multiple: true, Requeue: true}).Err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cfg engine.Config) []engine.Event {
				q := newBacklog(t, cfg, n, 0, false)
				_, err := q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
				ok(t, err)
				q.b.Settle(q.b.Now())
				// A second consumer, on another channel, waits for what
				// comes back.
				other, err := q.b.OpenChannel(q.pub.Conn, 3)
				ok(t, err)
				_, err = q.b.BasicConsume(other, engine.BasicConsume{Queue: "q", ConsumerTag: "other"})
				ok(t, err)
				q.b.DrainEvents(nil)

				ok(t, tc.give(q.b, q.con))
				first := q.b.DrainEvents(nil)
				if c := count(first, engine.EvRequeued); c != min(n, cfg.MaxBatch) {
					t.Fatalf("the command made %d requeued events, want %d", c, min(n, cfg.MaxBatch))
				}
				all := append([]engine.Event(nil), first...)
				for count(all, engine.EvRequeued) < n {
					// None is missing from the counts meanwhile.
					tot := q.b.MessageTotals()
					if tot.Ready.Msgs+tot.Unacked.Msgs != n {
						t.Fatalf("between batches the broker counts %+v, want %d in all", tot, n)
					}
					qv := q.b.QueueSummaries("/", []string{"q"})[0]
					if qv.ReadyCount+qv.Unacked != n {
						t.Fatalf("between batches the queue counts %d ready and %d unacked, want %d in all", qv.ReadyCount, qv.Unacked, n)
					}
					if !due(q.b) {
						t.Fatal("copies are on their way back, but no continuation is due")
					}
					q.b.AdvanceTo(q.b.Now())
					evs := q.b.DrainEvents(nil)
					if c := count(evs, engine.EvRequeued); c == 0 || c > batch {
						t.Fatalf("a call made %d requeued events, want 1..%d", c, batch)
					}
					all = append(all, evs...)
				}
				// Nothing left the queue while copies were on their way
				// back.
				back := 0
				for _, e := range all {
					if e.Kind == engine.EvDelivered {
						break
					}
					if e.Kind == engine.EvRequeued {
						back++
					}
				}
				if back != n {
					t.Fatalf("only %d of %d copies were back at the first delivery", back, n)
				}
				q.b.Settle(q.b.Now())
				all = append(all, q.b.DrainEvents(nil)...)
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: n + 1})
			got := run(engine.Config{Seed: 1, MaxBatch: batch})
			if tc.closes {
				// The close is told after the first batch.
				got, want = without(got, engine.EvChannelClosed), without(want, engine.EvChannelClosed)
			}
			sameTrace(t, got, want)
		})
	}
}

// without returns evs without those of kind k.
func without(evs []engine.Event, k engine.EventKind) []engine.Event {
	var out []engine.Event
	for _, e := range evs {
		if e.Kind != k {
			out = append(out, e)
		}
	}
	return out
}

// TestCommandsBetweenReturnBatches: a command that reads or takes from a
// queue with copies on their way back first brings them back, as
// RabbitMQ's queue process finishes a requeue before its next request; a
// publish goes behind them; a command on another queue does not wait.
func TestCommandsBetweenReturnBatches(t *testing.T) {
	const n, batch = 35, 10
	setup := func(t *testing.T) backlog {
		q := newBacklog(t, engine.Config{Seed: 1, MaxBatch: batch}, n, 0, false)
		_, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "elsewhere"})
		ok(t, err)
		ok(t, q.b.BasicPublish(q.pub, engine.BasicPublish{RoutingKey: "elsewhere", Body: []byte("x")}))
		_, err = q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
		ok(t, err)
		q.b.Settle(q.b.Now())
		q.b.CloseChannel(q.con)
		if !due(q.b) {
			t.Fatal("the close left no returns for later")
		}
		q.b.DrainEvents(nil)
		return q
	}

	t.Run("queue.declare counts every copy", func(t *testing.T) {
		q := setup(t)
		d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: true})
		ok(t, err)
		if d.MessageCount != n {
			t.Fatalf("declare-ok counts %d, want %d", d.MessageCount, n)
		}
	})
	t.Run("basic.get takes the first copy", func(t *testing.T) {
		q := setup(t)
		g, got, err := q.b.BasicGet(q.pub, engine.BasicGet{Queue: "q", NoAck: true})
		ok(t, err)
		if !got || !g.Redelivered || g.Msg.ID != 1 || g.MessageCount != n-1 {
			t.Fatalf("basic.get gave message %d redelivered %v with %d left, want message 1 redelivered with %d left", g.Msg.ID, g.Redelivered, g.MessageCount, n-1)
		}
	})
	t.Run("queue.purge ends every copy", func(t *testing.T) {
		q := setup(t)
		p, err := q.b.QueuePurge(q.pub, "q")
		ok(t, err)
		if p != n {
			t.Fatalf("purged %d, want %d", p, n)
		}
	})
	t.Run("a publish goes behind", func(t *testing.T) {
		q := setup(t)
		ok(t, q.b.BasicPublish(q.pub, engine.BasicPublish{RoutingKey: "q", Body: []byte("late")}))
		_, err := q.b.BasicConsume(q.pub, engine.BasicConsume{Queue: "q", ConsumerTag: "after"})
		ok(t, err)
		if evs := q.b.DrainEvents(nil); count(evs, engine.EvDelivered) != 0 {
			t.Fatal("the queue delivered while copies were on their way back")
		}
		q.b.Settle(q.b.Now())
		var order []uint64
		for _, e := range q.b.DrainEvents(nil) {
			if e.Kind == engine.EvDelivered {
				order = append(order, e.MsgID)
			}
		}
		if len(order) != n+1 || order[0] != 1 || order[n] != n+2 {
			t.Fatalf("delivered %v, want messages 1..%d, then the late one", order, n)
		}
		for i, id := range order[:n] {
			if id != uint64(i+1) {
				t.Fatalf("delivered %v, want the returned copies in their order first", order)
			}
		}
	})
	t.Run("another queue does not wait", func(t *testing.T) {
		q := setup(t)
		g, got, err := q.b.BasicGet(q.pub, engine.BasicGet{Queue: "elsewhere", NoAck: true})
		ok(t, err)
		if !got || string(g.Msg.Body) != "x" {
			t.Fatal("basic.get on another queue found nothing")
		}
		if qv := q.b.QueueSummaries("/", []string{"q"})[0]; qv.ReadyCount != batch || qv.Unacked != n-batch {
			t.Fatalf("queue q holds %d ready and %d unacked, want the %d of the first batch back and %d on their way", qv.ReadyCount, qv.Unacked, batch, n-batch)
		}
	})
}
