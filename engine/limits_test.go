package engine_test

import (
	"testing"

	"warren/engine"
)

// TestVhostLimits: past MaxQueuesPerVhost a declare is a 406, past
// MaxMessagesPerVhost a publish is; what was accepted stays.
func TestVhostLimits(t *testing.T) {
	b := engine.New(engine.Config{MaxQueuesPerVhost: 1, MaxMessagesPerVhost: 2})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "a"}); err != nil {
		t.Fatal(err)
	}
	_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "b"})
	e, ok := err.(*engine.Error)
	if !ok || e.Code != 406 || e.Text != "PRECONDITION_FAILED - cannot declare queue 'b': queue limit in vhost '/' (1) is reached" {
		t.Fatalf("second queue: %v", err)
	}
	ch, _ = b.OpenChannel(conn, 2)
	for i := 0; i < 2; i++ {
		if err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "a", Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	err = b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "a", Body: []byte("x")})
	if e, ok := err.(*engine.Error); !ok || e.Code != 406 || e.Text != "PRECONDITION_FAILED - message limit in vhost '/' (2) is reached" {
		t.Fatalf("third message: %v", err)
	}
	if msgs, bytes := b.ReadyTotals(); msgs != 2 || bytes != 2 {
		t.Fatalf("totals %d msgs %d bytes, want 2 and 2", msgs, bytes)
	}
}
