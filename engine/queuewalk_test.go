package engine_test

import (
	"fmt"
	"testing"

	"warren/engine"
)

// walkWorld is a broker with vhost "v" holding queues q00..q34, each with
// one one-byte message, and a connection with a channel there.
type walkWorld struct {
	b  *engine.Broker
	ch engine.ChannelID
}

const walkQueues = 35

func newWalkWorld(t *testing.T, cfg engine.Config) walkWorld {
	t.Helper()
	b := engine.New(cfg)
	ok(t, b.AddVhost("v"))
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "v", User: "guest"})
	ok(t, err)
	ch, err := b.OpenChannel(conn, 1)
	ok(t, err)
	for i := range walkQueues {
		name := fmt.Sprintf("q%02d", i)
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name})
		ok(t, err)
		ok(t, b.BasicPublish(ch, engine.BasicPublish{RoutingKey: name, Body: []byte{'m'}}))
	}
	b.DrainEvents(nil)
	return walkWorld{b: b, ch: ch}
}

// workOffAll calls AdvanceTo(Now()) while a continuation is due, checking
// that no call makes more than max events of the kinds counted, and
// returns every event.
func workOffAll(t *testing.T, b *engine.Broker, all []engine.Event, max int, kinds ...engine.EventKind) ([]engine.Event, int) {
	t.Helper()
	calls := 0
	for due(b) {
		b.AdvanceTo(b.Now())
		evs := b.DrainEvents(nil)
		c := 0
		for _, k := range kinds {
			c += count(evs, k)
		}
		if c > max {
			t.Fatalf("a call made %d %v events, want at most %d", c, kinds, max)
		}
		all = append(all, evs...)
		calls++
	}
	return all, calls
}

// ttlZero is a policy that expires every message of the queues named q…
// at once.
var ttlZero = engine.Policy{Vhost: "v", Name: "p", Pattern: "^q", ApplyTo: "queues", Definition: engine.Table{"message-ttl": int64(0)}}

// TestPolicyWalkInBatches: a policy change over many queues applies to a
// batch of them per call, each visit's events counting against the batch,
// and in all makes the events one unbounded call makes, in order; a
// policy cleared goes the same way.
func TestPolicyWalkInBatches(t *testing.T) {
	const batch = 10
	run := func(cfg engine.Config) []engine.Event {
		w := newWalkWorld(t, cfg)
		ok(t, w.b.SetPolicy(ttlZero))
		all := w.b.DrainEvents(nil)
		// A visit makes two events (the policy, the expiry): a batch
		// of 10 visits 5 queues.
		if c := count(all, engine.EvQueuePolicyChanged); c != min(walkQueues, cfg.MaxBatch/2) {
			t.Fatalf("the command applied the policy to %d queues, want %d", c, min(walkQueues, cfg.MaxBatch/2))
		}
		all, _ = workOffAll(t, w.b, all, batch/2, engine.EvQueuePolicyChanged)
		ok(t, w.b.ClearPolicy("v", "p"))
		all = append(all, w.b.DrainEvents(nil)...)
		all, _ = workOffAll(t, w.b, all, batch, engine.EvQueuePolicyChanged)
		if c := count(all, engine.EvQueuePolicyChanged); c != 2*walkQueues {
			t.Fatalf("%d queue policy changes, want %d", c, 2*walkQueues)
		}
		if c := count(all, engine.EvExpired); c != walkQueues {
			t.Fatalf("%d expired, want %d", c, walkQueues)
		}
		return all
	}
	want := run(engine.Config{Seed: 1, MaxBatch: 1000})
	got := run(engine.Config{Seed: 1, MaxBatch: batch})
	sameTrace(t, got, want)
}

// TestCommandsBetweenPolicyBatches: a queue the policy walk has not yet
// reached behaves by the new policy when anything touches it, and the walk
// then passes it by.
func TestCommandsBetweenPolicyBatches(t *testing.T) {
	const batch = 10
	last := fmt.Sprintf("q%02d", walkQueues-1)
	for _, tc := range []struct {
		name string
		// touch touches queue last and returns the events it made.
		touch func(t *testing.T, w walkWorld) []engine.Event
	}{
		{"passive declare counts", func(t *testing.T, w walkWorld) []engine.Event {
			d, err := w.b.QueueDeclare(w.ch, engine.QueueDeclare{Queue: last, Passive: true})
			ok(t, err)
			if d.MessageCount != 0 {
				t.Fatalf("declare-ok counts %d, want 0: the message expired by the policy", d.MessageCount)
			}
			return w.b.DrainEvents(nil)
		}},
		{"basic.get finds nothing", func(t *testing.T, w walkWorld) []engine.Event {
			_, got, err := w.b.BasicGet(w.ch, engine.BasicGet{Queue: last})
			ok(t, err)
			if got {
				t.Fatal("basic.get got a message the policy expired")
			}
			return w.b.DrainEvents(nil)
		}},
		{"a consumer gets nothing", func(t *testing.T, w walkWorld) []engine.Event {
			_, err := w.b.BasicConsume(w.ch, engine.BasicConsume{Queue: last, ConsumerTag: "c"})
			ok(t, err)
			evs := w.b.DrainEvents(nil)
			if count(evs, engine.EvDelivered) != 0 || count(evs, engine.EvExpired) != 1 {
				t.Fatalf("the consume expired %d and delivered %d, want the message expired: %v", count(evs, engine.EvExpired), count(evs, engine.EvDelivered), trace(evs))
			}
			return evs
		}},
		{"a publish expires", func(t *testing.T, w walkWorld) []engine.Event {
			ok(t, w.b.BasicPublish(w.ch, engine.BasicPublish{RoutingKey: last, Body: []byte("late")}))
			evs := w.b.DrainEvents(nil)
			if count(evs, engine.EvExpired) != 2 {
				t.Fatalf("the publish expired %d messages, want the queued one and itself: %v", count(evs, engine.EvExpired), trace(evs))
			}
			return evs
		}},
		{"the view shows the policy", func(t *testing.T, w walkWorld) []engine.Event {
			qv := w.b.QueueSummaries("v", []string{last})[0]
			if qv.Effective.Policy != "p" || qv.Effective.MessageTTLMs != 0 {
				t.Fatalf("the view shows policy %q and TTL %d, want p and 0", qv.Effective.Policy, qv.Effective.MessageTTLMs)
			}
			if w.b.PendingEvents() != 0 {
				t.Fatal("a view made events")
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWalkWorld(t, engine.Config{Seed: 1, MaxBatch: batch})
			ok(t, w.b.SetPolicy(ttlZero))
			first := w.b.DrainEvents(nil)
			if !due(w.b) || count(first, engine.EvQueuePolicyChanged) >= walkQueues-1 {
				t.Fatalf("the policy reached %d queues in the command, want a batch and a continuation", count(first, engine.EvQueuePolicyChanged))
			}
			all := append(first, tc.touch(t, w)...)
			all, _ = workOffAll(t, w.b, all, batch, engine.EvQueuePolicyChanged)
			// The walk passed the touched queue by: one change each.
			if c := count(all, engine.EvQueuePolicyChanged); c != walkQueues {
				t.Fatalf("%d queue policy changes, want %d", c, walkQueues)
			}
		})
	}

	t.Run("a second change", func(t *testing.T) {
		w := newWalkWorld(t, engine.Config{Seed: 1, MaxBatch: batch})
		ok(t, w.b.SetPolicy(ttlZero))
		second := engine.Policy{Vhost: "v", Name: "p2", Pattern: "^q", ApplyTo: "queues", Priority: 1, Definition: engine.Table{"max-length": int64(7)}}
		ok(t, w.b.SetPolicy(second))
		w.b.Settle(w.b.Now())
		var names []string
		for i := range walkQueues {
			names = append(names, fmt.Sprintf("q%02d", i))
		}
		for _, qv := range w.b.QueueSummaries("v", names) {
			if qv.Effective.Policy != "p2" || qv.Effective.MaxLength != 7 {
				t.Fatalf("queue %s has policy %q max-length %d, want p2 and 7", qv.Name, qv.Effective.Policy, qv.Effective.MaxLength)
			}
		}
	})
}

// deletionWorld is walkWorld with more in vhost "v" to end: q00 holds 25
// more messages, and 15 deliveries from it unacknowledged on a second
// channel; a delayed-message exchange holds 25 messages; another, deleted,
// holds 5 more, still scheduled (the plugin keeps them).
func deletionWorld(t *testing.T, cfg engine.Config) (walkWorld, engine.ChannelID) {
	w := newWalkWorld(t, cfg)
	for range 25 {
		ok(t, w.b.BasicPublish(w.ch, engine.BasicPublish{RoutingKey: "q00", Body: []byte{'m'}}))
	}
	con, err := w.b.OpenChannel(w.ch.Conn, 2)
	ok(t, err)
	ok(t, w.b.BasicQos(con, engine.BasicQos{PrefetchCount: 15}))
	_, err = w.b.BasicConsume(con, engine.BasicConsume{Queue: "q00", ConsumerTag: "c"})
	ok(t, err)
	delayed := engine.Properties{Headers: engine.Table{"x-delay": int32(1000)}}
	for _, x := range []struct {
		name string
		n    int
	}{{"gone", 5}, {"xd", 25}} {
		ok(t, w.b.ExchangeDeclare(w.ch, engine.ExchangeDeclare{Exchange: x.name, Type: engine.KindDelayed, Args: engine.Table{"x-delayed-type": "direct"}}))
		for range x.n {
			ok(t, w.b.BasicPublish(w.ch, engine.BasicPublish{Exchange: x.name, RoutingKey: "q01", Props: &delayed, Body: []byte{'d'}}))
		}
	}
	ok(t, w.b.ExchangeDelete(w.ch, engine.ExchangeDelete{Exchange: "gone"}))
	w.b.Settle(w.b.Now())
	w.b.DrainEvents(nil)
	return w, con
}

// TestVhostDeletionInBatches: deleting a vhost closes its connections and
// takes it away at once; its queues are deleted a batch per call, then its
// delayed messages dropped, VhostDeleted last: in all the events one
// unbounded call makes, in the same order for each kind (a queue deleted
// with more than a batch of messages is reported deleted after the first
// batch of them, as by queue.delete). Every message ends with an event:
// the deliveries the closed channel gives back are back in their queue
// before it goes, with or without a return already in progress, and a
// message the deleted exchange held ends when its delay elapses.
func TestVhostDeletionInBatches(t *testing.T) {
	const batch = 10
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, w walkWorld, con engine.ChannelID)
	}{
		{"connections open", nil},
		{"a return in progress", func(t *testing.T, w walkWorld, con engine.ChannelID) {
			w.b.CloseChannel(con)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cfg engine.Config) []engine.Event {
				w, con := deletionWorld(t, cfg)
				if tc.before != nil {
					tc.before(t, w, con)
					if cfg.MaxBatch == batch && !due(w.b) {
						t.Fatal("the close left no returns for later")
					}
				}
				all := w.b.DrainEvents(nil)
				ok(t, w.b.DeleteVhost("v"))
				first := w.b.DrainEvents(nil)
				all = append(all, first...)
				if c := count(first, engine.EvConnectionClosed); c != 1 {
					t.Fatalf("the deletion closed %d connections, want 1", c)
				}
				if cfg.MaxBatch == batch {
					if !due(w.b) || count(first, engine.EvVhostDeleted) != 0 {
						t.Fatal("the deletion left nothing for later")
					}
					// Meanwhile the vhost is gone for every command.
					if _, err := w.b.OpenConnection(engine.ConnectionOpen{Vhost: "v", User: "guest"}); err == nil {
						t.Fatal("connection.open to the vhost being deleted succeeded")
					}
					if err := w.b.SetPolicy(ttlZero); err == nil {
						t.Fatal("a policy on the vhost being deleted was set")
					}
					if _, ok := w.b.VhostTotals("v"); ok {
						t.Fatal("the vhost being deleted still has totals")
					}
				}
				var calls int
				all, calls = workOffAll(t, w.b, all, batch, engine.EvQueueDeleted)
				if cfg.MaxBatch == batch && calls < walkQueues/batch {
					t.Fatalf("%d calls, want at least %d", calls, walkQueues/batch)
				}
				if c := count(all, engine.EvQueueDeleted); c != walkQueues {
					t.Fatalf("%d queues deleted, want %d", c, walkQueues)
				}
				if all[len(all)-1].Kind != engine.EvVhostDeleted {
					t.Fatalf("the last event is %v, want vhost.deleted", all[len(all)-1])
				}
				// The deleted exchange's messages end when their delay
				// elapses.
				w.b.Settle(5000)
				all = append(all, w.b.DrainEvents(nil)...)
				if c := count(all, engine.EvRequeued); c != 15 {
					t.Fatalf("%d deliveries given back, want 15", c)
				}
				if c := count(all, engine.EvDiscarded); c != walkQueues+25 {
					t.Fatalf("%d messages discarded, want %d", c, walkQueues+25)
				}
				if c := count(all, engine.EvDropped); c != 30 {
					t.Fatalf("%d delayed messages dropped, want 30", c)
				}
				if msgs, _ := w.b.ReadyTotals(); msgs != 0 {
					t.Fatalf("%d messages still counted ready", msgs)
				}
				if tot := w.b.MessageTotals(); tot.Unacked.Msgs != 0 || tot.Delayed.Msgs != 0 {
					t.Fatalf("still counted: %+v", tot)
				}
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: 1000})
			got := run(engine.Config{Seed: 1, MaxBatch: batch})
			for _, k := range []engine.EventKind{engine.EvRequeued, engine.EvDiscarded, engine.EvConsumerCancelled, engine.EvChannelClosed,
				engine.EvConnectionClosed, engine.EvQueueDeleted, engine.EvDropped, engine.EvVhostDeleted} {
				sameTrace(t, only(got, k), only(want, k))
			}
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
		})
	}
}

// TestVhostDeletionLeavesANewVhostAlone: a vhost of the same name added
// while the old one's queues are still being deleted is a vhost of its
// own: the old walk deletes none of its queues.
func TestVhostDeletionLeavesANewVhostAlone(t *testing.T) {
	w := newWalkWorld(t, engine.Config{Seed: 1, MaxBatch: 10})
	ok(t, w.b.DeleteVhost("v"))
	ok(t, w.b.AddVhost("v"))
	conn, err := w.b.OpenConnection(engine.ConnectionOpen{Vhost: "v", User: "guest"})
	ok(t, err)
	ch, err := w.b.OpenChannel(conn, 1)
	ok(t, err)
	last := fmt.Sprintf("q%02d", walkQueues-1)
	_, err = w.b.QueueDeclare(ch, engine.QueueDeclare{Queue: last})
	ok(t, err)
	ok(t, w.b.BasicPublish(ch, engine.BasicPublish{RoutingKey: last, Body: []byte("new")}))
	w.b.Settle(w.b.Now())
	d, err := w.b.QueueDeclare(ch, engine.QueueDeclare{Queue: last, Passive: true})
	ok(t, err)
	if d.MessageCount != 1 {
		t.Fatalf("the new vhost's %s holds %d, want 1", last, d.MessageCount)
	}
	if v, _ := w.b.VhostTotals("v"); v.Queues != 1 {
		t.Fatalf("the new vhost counts %d queues, want 1", v.Queues)
	}
}
