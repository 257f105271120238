package engine_test

import (
	"testing"

	"warren/engine"
)

// TestMessageTotals: the totals a memory alarm reads follow every message
// the broker holds, wherever it waits: ready in a queue, delivered and
// unacked, or held by a delayed-message exchange.
func TestMessageTotals(t *testing.T) {
	b := engine.New(engine.Config{})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, want engine.MessageTotals) {
		t.Helper()
		if got := b.MessageTotals(); got != want {
			t.Fatalf("%s: totals %+v, want %+v", step, got, want)
		}
	}
	_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q"})
	must(err)
	must(b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "later", Type: engine.KindDelayed, Args: engine.Table{"x-delayed-type": "direct"}}))
	must(b.QueueBind(ch, engine.QueueBind{Queue: "q", Exchange: "later", RoutingKey: "q"}))

	must(b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("abc")}))
	must(b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("defgh")}))
	check("two published", engine.MessageTotals{Ready: engine.Tally{Msgs: 2, Bytes: 8}})

	get, _, err := b.BasicGet(ch, engine.BasicGet{Queue: "q"})
	must(err)
	check("one got, not acked", engine.MessageTotals{Ready: engine.Tally{Msgs: 1, Bytes: 5}, Unacked: engine.Tally{Msgs: 1, Bytes: 3}})

	must(b.BasicPublish(ch, engine.BasicPublish{Exchange: "later", RoutingKey: "q", Body: []byte("1234567"),
		Props: &engine.Properties{Headers: engine.Table{"x-delay": int32(1000)}}}))
	held := engine.MessageTotals{Ready: engine.Tally{Msgs: 1, Bytes: 5}, Unacked: engine.Tally{Msgs: 1, Bytes: 3}, Delayed: engine.Tally{Msgs: 1, Bytes: 7}}
	check("one delayed", held)
	if all := held.All(); all != (engine.Tally{Msgs: 3, Bytes: 15}) {
		t.Fatalf("All() = %+v", all)
	}

	must(b.Apply(engine.CmdBasicAck{Channel: ch, DeliveryTag: get.DeliveryTag}).Err)
	b.AdvanceTo(1000)
	check("acked, delay elapsed", engine.MessageTotals{Ready: engine.Tally{Msgs: 2, Bytes: 12}})

	_, _, err = b.BasicGet(ch, engine.BasicGet{Queue: "q"})
	must(err)
	check("one got again", engine.MessageTotals{Ready: engine.Tally{Msgs: 1, Bytes: 7}, Unacked: engine.Tally{Msgs: 1, Bytes: 5}})
	b.CloseConnection(conn)
	check("connection closed: requeued", engine.MessageTotals{Ready: engine.Tally{Msgs: 2, Bytes: 12}})
}
