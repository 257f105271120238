package engine_test

import (
	"fmt"
	"testing"

	"warren/engine"
)

// TestDurableLogMidWalk stops a broker while a policy change or a vhost's
// deletion is still on its way through the queues (queuewalk.go: a batch
// per call), as a crash may, and checks that a broker recovered from its
// durable log restarts into the state the stopped one restarts into. The
// property test compares only brokers with no work in flight (Save needs
// that), so this is where a walk cut short is compared: the recovered
// broker has the policy's record and the records of the queues the walk
// reached, and its restart takes the rest up (restart.go), as the stopped
// broker's restart finishes its walk.
func TestDurableLogMidWalk(t *testing.T) {
	policy := func(b *engine.Broker) error {
		return b.SetPolicy(engine.Policy{Vhost: "v", Name: "lim", Pattern: "^q", ApplyTo: "queues",
			Definition: engine.Table{"message-ttl": int64(1500), "max-length": int64(2), "dead-letter-exchange": "", "dead-letter-routing-key": "dead"}})
	}
	cases := []struct {
		name   string
		change func(b *engine.Broker) error
	}{
		{"policy set", policy},
		{"policy set twice", func(b *engine.Broker) error {
			if err := policy(b); err != nil {
				return err
			}
			return b.SetPolicy(engine.Policy{Vhost: "v", Name: "one", Pattern: "^q[02468]", ApplyTo: "queues", Priority: 1,
				Definition: engine.Table{"max-length": int64(1)}})
		}},
		{"policy cleared", func(b *engine.Broker) error {
			if err := policy(b); err != nil {
				return err
			}
			b.Settle(b.Now())
			return b.ClearPolicy("v", "lim")
		}},
		{"vhost deleted", func(b *engine.Broker) error { return b.DeleteVhost("v") }},
		{"vhost deleted and added", func(b *engine.Broker) error {
			if err := b.DeleteVhost("v"); err != nil {
				return err
			}
			return b.AddVhost("v")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := engine.New(engine.Config{Seed: 1, MaxBatch: 2, EpochMs: 1_700_000_000_000})
			b.EnableDurableLog()
			d := &durableDriver{base: b.Save()}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(b.AddVhost("v"))
			conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "v", User: "guest"})
			must(err)
			ch, err := b.OpenChannel(conn, 1)
			must(err)
			_, err = b.QueueDeclare(ch, engine.QueueDeclare{Queue: "dead", Durable: true})
			must(err)
			for i := range 10 {
				q := fmt.Sprintf("q%d", i)
				_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: q, Durable: true})
				must(err)
				for j := range 4 {
					b.AdvanceTo(b.Now() + 500)
					must(b.BasicPublish(ch, engine.BasicPublish{RoutingKey: q, Body: []byte{byte('a' + j)}, Props: &engine.Properties{DeliveryMode: 2, Present: engine.FlagDeliveryMode}}))
				}
			}
			_, err = b.BasicConsume(ch, engine.BasicConsume{Queue: "q3", ConsumerTag: "c"})
			must(err)
			b.DrainEvents(nil)
			d.collect(b)
			must(tc.change(b))
			b.DrainEvents(nil)
			d.collect(b)
			if !b.HasWorkInFlight() {
				t.Fatal("the walk finished in the command: nothing is cut short")
			}
			rec := d.recovered(t)
			engine.AlignCounters(b, rec)
			at := b.Now() + 1000
			restartAt(b, at)
			restartAt(rec, at)
			if a, r := durableDump(b), durableDump(rec); a != r {
				t.Fatalf("restarted from the durable log differs from restarted live:\n%s\nrecords:\n%s", diffLines(a, r), d.describe())
			}
		})
	}
}
