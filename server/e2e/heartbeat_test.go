package e2e

import (
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestIdleWithShortHeartbeat: amqp091-go with a 1 s heartbeat stays
// connected while idle (it sends only heartbeats), and the connection
// works afterwards. Real time, since this proves the interplay with a
// real client; the exact timing is tested on virtual time in driver/conn.
func TestIdleWithShortHeartbeat(t *testing.T) {
	srv := startServer(t)
	c, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", amqp.Config{Heartbeat: time.Second})
	must(t, err)
	t.Cleanup(func() { c.Close() })
	closed := c.NotifyClose(make(chan *amqp.Error, 1))
	time.Sleep(3 * time.Second) // beyond two intervals: the server's missed-heartbeat timeout
	ch, err := c.Channel()
	if err != nil {
		t.Fatalf("after 3 s idle: %v", err)
	}
	if _, err := ch.QueueDeclare("", false, true, true, false, nil); err != nil {
		t.Fatalf("after 3 s idle: %v", err)
	}
	select {
	case e := <-closed:
		t.Fatalf("connection closed while idle: %v", e)
	default:
	}
}
