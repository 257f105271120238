package engine

import "testing"

// TestConfirmSaysWhetherItWaitsForTheDisk: a confirm is marked Durable
// exactly when some queue (or a delayed-message exchange) keeps the
// message across a restart, so a driver with a disk holds just those
// confirms until the log is written (confirms.md: for persistent messages
// routed to durable queues, the ack means persisted to disk).
func TestConfirmSaysWhetherItWaitsForTheDisk(t *testing.T) {
	b := New(Config{Seed: 1})
	conn, _ := b.OpenConnection(ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	must(t, b.ConfirmSelect(ch))
	for _, d := range []QueueDeclare{
		{Queue: "durable", Durable: true},
		{Queue: "scratch"},
		{Queue: "quorum", Durable: true, Args: Table{"x-queue-type": "quorum"}},
	} {
		if _, err := b.QueueDeclare(ch, d); err != nil {
			t.Fatal(err)
		}
	}
	must(t, b.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "later", Type: KindDelayed, Args: Table{"x-delayed-type": "direct"}}))
	must(t, b.QueueBind(ch, QueueBind{Queue: "scratch", Exchange: "later", RoutingKey: "scratch"}))
	persistent := &Properties{DeliveryMode: 2}
	for _, c := range []struct {
		name     string
		exchange string
		key      string
		props    *Properties
		durable  bool
	}{
		{"persistent to a durable queue", "", "durable", persistent, true},
		{"transient to a durable queue", "", "durable", nil, false},
		{"persistent to a non-durable queue", "", "scratch", persistent, false},
		{"transient to a quorum queue", "", "quorum", nil, true},
		{"routed to no queue", "", "nowhere", persistent, false},
		{"held by a delayed-message exchange", "later", "scratch", &Properties{Headers: Table{"x-delay": int32(1000)}}, true},
	} {
		b.DrainEvents(nil)
		must(t, b.BasicPublish(ch, BasicPublish{Exchange: c.exchange, RoutingKey: c.key, Props: c.props, Body: []byte("m")}))
		var got *Event
		evs := b.DrainEvents(nil)
		for i := range evs {
			if evs[i].Kind == EvConfirmed {
				got = &evs[i]
			}
		}
		if got == nil {
			t.Fatalf("%s: no confirm", c.name)
		}
		if got.Durable != c.durable {
			t.Errorf("%s: confirm Durable = %t, want %t", c.name, got.Durable, c.durable)
		}
	}
}
