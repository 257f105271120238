package engine_test

import (
	"testing"

	"warren/engine"
)

// TestPauseConnectionHoldsDeliveries checks back-pressure: a paused
// connection's consumers get nothing, the messages wait ready, and resuming
// delivers them in order.
func TestPauseConnectionHoldsDeliveries(t *testing.T) {
	b := engine.New(engine.Config{})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "q", ConsumerTag: "c", NoAck: true}); err != nil {
		t.Fatal(err)
	}
	b.Apply(engine.CmdPauseConnection{Conn: conn, Paused: true})
	for _, body := range []string{"a", "b"} {
		if err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	var delivered []string
	collect := func() {
		for _, e := range b.DrainEvents(nil) {
			if e.Kind == engine.EvDelivered {
				delivered = append(delivered, string(e.Msg.Body))
			}
		}
	}
	collect()
	if len(delivered) != 0 {
		t.Fatalf("delivered %v while paused", delivered)
	}
	if q := b.Snapshot().Vhosts[0].Queues[0]; len(q.Ready) != 2 {
		t.Fatalf("ready %d, want 2", len(q.Ready))
	}
	b.Apply(engine.CmdPauseConnection{Conn: conn})
	collect()
	if len(delivered) != 2 || delivered[0] != "a" || delivered[1] != "b" {
		t.Fatalf("delivered %v after resume, want [a b]", delivered)
	}
}
