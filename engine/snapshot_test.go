package engine_test

import (
	"testing"

	"warren/engine"
)

// TestSnapshotShowsEverythingAUIDraws builds a small topology and checks that
// the snapshot carries each thing the playground draws: exchanges with
// alternates, bindings, queues with their ready messages (expiry, priority,
// headers), unacked deliveries at their owners, consumers with credit, and
// pending timers in firing order.
func TestSnapshotShowsEverythingAUIDraws(t *testing.T) {
	b := engine.New(engine.Config{Seed: 7})
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", Name: "ui"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := b.OpenChannel(conn, 1)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "ae", Type: "fanout"}))
	must(b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "orders", Type: "topic", Args: engine.Table{"alternate-exchange": "ae"}}))
	_, err = b.QueueDeclare(ch, engine.QueueDeclare{Queue: "work", Args: engine.Table{"x-message-ttl": int64(5000), "x-max-priority": int64(5)}})
	must(err)
	must(b.QueueBind(ch, engine.QueueBind{Queue: "work", Exchange: "orders", RoutingKey: "order.*"}))
	must(b.BasicPublish(ch, engine.BasicPublish{Exchange: "orders", RoutingKey: "order.new", Body: []byte("a"),
		Props: &engine.Properties{Priority: 3, Headers: engine.Table{"k": "v"}}}))
	must(b.BasicPublish(ch, engine.BasicPublish{Exchange: "orders", RoutingKey: "order.new", Body: []byte("b")}))
	must(b.BasicQos(ch, engine.BasicQos{PrefetchCount: 1}))
	tag, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "work", ConsumerTag: "c1"})
	must(err)
	b.AdvanceTo(1000)

	s := b.Snapshot()
	if s.Now != 1000 || len(s.Vhosts) != 1 {
		t.Fatalf("now=%d vhosts=%d", s.Now, len(s.Vhosts))
	}
	v := s.Vhosts[0]
	var orders *engine.ExchangeView
	for i := range v.Exchanges {
		if v.Exchanges[i].Name == "orders" {
			orders = &v.Exchanges[i]
		}
	}
	if orders == nil || orders.Alternate != "ae" || orders.Type != "topic" {
		t.Fatalf("orders exchange view: %+v", orders)
	}
	if len(v.Bindings) != 1 || v.Bindings[0].Source != "orders" || v.Bindings[0].Destination != "work" || v.Bindings[0].RoutingKey != "order.*" {
		t.Fatalf("bindings: %+v", v.Bindings)
	}
	if len(v.Queues) != 1 {
		t.Fatalf("queues: %+v", v.Queues)
	}
	q := v.Queues[0]
	// The priority-3 message went first to the consumer (prefetch 1); "b"
	// waits, with its expiry 5 s after publication.
	if len(q.Ready) != 1 || string(q.Ready[0].Msg.Body) != "b" || q.Ready[0].ExpiresAt != 5000 || q.Unacked != 1 {
		t.Fatalf("queue view: ready=%+v unacked=%d", q.Ready, q.Unacked)
	}
	if q.Effective.MessageTTLMs != 5000 || q.Effective.MaxPriority != 5 {
		t.Fatalf("effective settings: %+v", q.Effective)
	}
	if len(q.Consumers) != 1 || q.Consumers[0].Tag != tag || q.Consumers[0].HasCredit || q.Consumers[0].Unacked != 1 {
		t.Fatalf("consumers: %+v", q.Consumers)
	}
	if len(v.Connections) != 1 || len(v.Connections[0].Channels) != 1 {
		t.Fatalf("connections: %+v", v.Connections)
	}
	un := v.Connections[0].Channels[0].Unacked
	if len(un) != 1 || string(un[0].Msg.Body) != "a" || un[0].Msg.Headers()["k"] != "v" || un[0].ConsumerTag != "c1" {
		t.Fatalf("unacked: %+v", un)
	}
	if len(s.Timers) != 2 || s.Timers[0].Kind != "message-ttl" || s.Timers[0].At != 5000 || s.Timers[1].Kind != "consumer-timeout" {
		t.Fatalf("timers: %+v", s.Timers)
	}
}
