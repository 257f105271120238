package e2e

import (
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/engine"
	"warren/server"
)

// channelClosedWith waits for a channel's close notification and checks
// its code and text.
func channelClosedWith(t *testing.T, closed <-chan *amqp.Error, code int, reason string) {
	t.Helper()
	select {
	case e := <-closed:
		if e == nil || e.Code != code || e.Reason != reason {
			t.Fatalf("channel closed with %v, want %d %q", e, code, reason)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no channel.close (want %d %q)", code, reason)
	}
}

// connectionSurvives checks that the connection is open, reported no
// close, and that another channel on it still works.
func connectionSurvives(t *testing.T, c *amqp.Connection, connClosed <-chan *amqp.Error, other *amqp.Channel) {
	t.Helper()
	if _, err := other.QueueDeclare("", false, true, true, false, nil); err != nil {
		t.Fatalf("the other channel: %v", err)
	}
	select {
	case e := <-connClosed:
		t.Fatalf("connection closed: %v", e)
	default:
	}
	if c.IsClosed() {
		t.Fatal("connection closed")
	}
}

// TestPublishLoopToMissingExchange: amqp091-go publishing in a loop to an
// exchange that does not exist (publishes are pipelined, so many are on
// the wire when the 404 comes) loses the channel each time and keeps the
// connection and its other channels (amqp091-go's ...Issue46 test).
func TestPublishLoopToMissingExchange(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	connClosed := c.NotifyClose(make(chan *amqp.Error, 1))
	other := channel(t, c)
	for round := 0; round < 3; round++ {
		ch := channel(t, c)
		closed := ch.NotifyClose(make(chan *amqp.Error, 1))
		for i := 0; i < 200; i++ {
			if ch.Publish("missing", "k", false, false, amqp.Publishing{Body: []byte("m")}) != nil {
				break // the channel.close has arrived
			}
		}
		channelClosedWith(t, closed, 404, "NOT_FOUND - no exchange 'missing' in vhost '/'")
		connectionSurvives(t, c, connClosed, other)
	}
}

// TestDoubleAck: acknowledging deliveries twice, with more acks behind,
// closes the channel with 406 and keeps the connection.
func TestDoubleAck(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	connClosed := c.NotifyClose(make(chan *amqp.Error, 1))
	other := channel(t, c)
	ch := channel(t, c)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	must(t, err)
	for i := 0; i < 10; i++ {
		publish(t, ch, "", q.Name, amqp.Publishing{Body: []byte("m")})
	}
	d, err := ch.Consume(q.Name, "", false, false, false, false, nil)
	must(t, err)
	var got []amqp.Delivery
	for i := 0; i < 10; i++ {
		got = append(got, recv(t, d))
	}
	for _, m := range got {
		if m.Ack(false) != nil || m.Ack(false) != nil {
			break
		}
	}
	channelClosedWith(t, closed, 406, "PRECONDITION_FAILED - unknown delivery tag 1")
	connectionSurvives(t, c, connClosed, other)
}

// TestMaxMessagesIsChannelError: past the vhost's message limit
// (--max-messages) a pipelined publish closes its channel with 406; the
// connection stays.
func TestMaxMessagesIsChannelError(t *testing.T) {
	srv := startServerWith(t, server.Options{Engine: engine.Config{MaxMessagesPerVhost: 5}})
	c := dial(t, srv)
	connClosed := c.NotifyClose(make(chan *amqp.Error, 1))
	other := channel(t, c)
	ch := channel(t, c)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	must(t, err)
	for i := 0; i < 50; i++ {
		if ch.Publish("", q.Name, false, false, amqp.Publishing{Body: []byte("m")}) != nil {
			break
		}
	}
	channelClosedWith(t, closed, 406, "PRECONDITION_FAILED - message limit in vhost '/' (5) is reached")
	connectionSurvives(t, c, connClosed, other)
}

// TestNotImplementedByRabbit: channel.flow(active=false) and basic.recover
// with requeue=false are 540 NOT_IMPLEMENTED connection errors in
// RabbitMQ; flow(true) is answered.
func TestNotImplementedByRabbit(t *testing.T) {
	srv := startServer(t)
	tests := []struct {
		name string
		op   func(ch *amqp.Channel) error
		text string
	}{
		{"flow active=false", func(ch *amqp.Channel) error { return ch.Flow(false) }, "NOT_IMPLEMENTED - active=false"},
		{"recover requeue=false", func(ch *amqp.Channel) error { return ch.Recover(false) }, "NOT_IMPLEMENTED - requeue=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, srv)
			connClosed := c.NotifyClose(make(chan *amqp.Error, 1))
			ch := channel(t, c)
			must(t, ch.Flow(true))
			tt.op(ch)
			select {
			case e := <-connClosed:
				if e == nil || e.Code != 540 || e.Reason != tt.text {
					t.Fatalf("connection closed with %v, want 540 %q", e, tt.text)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("connection not closed")
			}
		})
	}
}
