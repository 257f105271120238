package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/conn"
	"warren/engine"
	"warren/server"
)

// TestDirectReplyTo: a requester consumes from amq.rabbitmq.reply-to, the
// server rewrites reply_to, and the responder's reply reaches the requester
// through no queue.
func TestDirectReplyTo(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	req, resp := channel(t, c), channel(t, c)
	_, err := resp.QueueDeclare("rpc", false, false, false, false, nil)
	must(t, err)
	replies, err := req.Consume("amq.rabbitmq.reply-to", "", true, false, false, false, nil)
	must(t, err)
	publish(t, req, "", "rpc", amqp.Publishing{Body: []byte("ping"), ReplyTo: "amq.rabbitmq.reply-to", CorrelationId: "1"})
	m, ok, err := resp.Get("rpc", true)
	must(t, err)
	if !ok || !strings.HasPrefix(m.ReplyTo, "amq.rabbitmq.reply-to.") {
		t.Fatalf("request reply_to %q ok=%v", m.ReplyTo, ok)
	}
	publish(t, resp, "", m.ReplyTo, amqp.Publishing{Body: []byte("pong"), CorrelationId: m.CorrelationId})
	r := recv(t, replies)
	if string(r.Body) != "pong" || r.CorrelationId != "1" {
		t.Fatalf("reply %q corr %q", r.Body, r.CorrelationId)
	}
}

// TestDeclareReplyTo: queue.declare of the pseudo-queue answers 0
// messages and 1 consumer, and of a reply address while its consumer
// lives; an unknown address is 404 (observed, RabbitMQ 3.10.8).
func TestDeclareReplyTo(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	req, resp := channel(t, c), channel(t, c)
	_, err := resp.QueueDeclare("rpc", false, false, false, false, nil)
	must(t, err)
	_, err = req.Consume("amq.rabbitmq.reply-to", "", true, false, false, false, nil)
	must(t, err)
	publish(t, req, "", "rpc", amqp.Publishing{Body: []byte("ping"), ReplyTo: "amq.rabbitmq.reply-to"})
	m, _, err := resp.Get("rpc", true)
	must(t, err)
	for _, name := range []string{"amq.rabbitmq.reply-to", m.ReplyTo} {
		q, err := resp.QueueDeclarePassive(name, false, false, false, false, nil)
		if err != nil || q.Name != name || q.Messages != 0 || q.Consumers != 1 {
			t.Fatalf("passive declare %q: %+v %v, want 0 messages 1 consumer", name, q, err)
		}
	}
	_, err = resp.QueueDeclarePassive("amq.rabbitmq.reply-to.nope", false, false, false, false, nil)
	var e *amqp.Error
	if !errors.As(err, &e) || e.Code != 404 || e.Reason != "NOT_FOUND - no queue 'amq.rabbitmq.reply-to.nope' in vhost '/'" {
		t.Fatalf("unknown reply address: %v", err)
	}
}

// TestDirectReplyToNeedsConsumer: publishing with reply_to
// amq.rabbitmq.reply-to without the consumer is RabbitMQ's 406, checked
// after the exchange is found (observed, RabbitMQ 3.10.8: to a missing
// exchange it is 404).
func TestDirectReplyToNeedsConsumer(t *testing.T) {
	srv := startServer(t)
	for _, tc := range []struct{ exchange, want string }{
		{"", "PRECONDITION_FAILED - fast reply consumer does not exist"},
		{"nope", "NOT_FOUND - no exchange 'nope' in vhost '/'"},
	} {
		ch := channel(t, dial(t, srv))
		closed := ch.NotifyClose(make(chan *amqp.Error, 1))
		publish(t, ch, tc.exchange, "anything", amqp.Publishing{ReplyTo: "amq.rabbitmq.reply-to"})
		select {
		case e := <-closed:
			if e == nil || e.Reason != tc.want {
				t.Fatalf("to %q: close %+v, want %q", tc.exchange, e, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no channel.close")
		}
	}
}

// TestChannelMax: past the negotiated channel_max, channel.open is a 530
// connection error.
func TestChannelMax(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{ChannelMax: 2}})
	c := dial(t, srv)
	channel(t, c)
	channel(t, c)
	// amqp091-go itself refuses beyond the negotiated max, so check the
	// negotiation reached it.
	if c.Config.ChannelMax != 2 {
		t.Fatalf("negotiated channel_max %d, want 2", c.Config.ChannelMax)
	}
	if _, err := c.Channel(); err == nil {
		t.Fatal("third channel opened")
	}
}

// TestMaxConnections: past the limit connection.open gets 530.
func TestMaxConnections(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{MaxConnections: 1}})
	first := dial(t, srv)
	// amqp091-go reports any refusal of connection.open as ErrVhost; the
	// exact 530 and text are checked in driver/conn's pipe tests.
	if c, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/"); err == nil {
		c.Close()
		t.Fatal("second connection opened")
	}
	first.Close()
	// The slot frees when the first connection goes (its close is
	// processed asynchronously, so allow a few attempts).
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/")
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection after the first closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMessageTooLarge: a body over the limit is a 406 channel error; the
// connection survives.
func TestMessageTooLarge(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{MaxMessageSize: 1000}})
	c := dial(t, srv)
	ch := channel(t, c)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	publish(t, ch, "", "q", amqp.Publishing{Body: make([]byte, 2000)})
	select {
	case e := <-closed:
		if e == nil || e.Code != 406 || e.Reason != "PRECONDITION_FAILED - message size 2000 is larger than configured max size 1000" {
			t.Fatalf("close %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no channel.close")
	}
	ch2 := channel(t, c)
	_, err := ch2.QueueDeclare("still-fine", false, false, false, false, nil)
	must(t, err)
}

// TestVhostLimits: queue and message limits per vhost are 406s.
func TestVhostLimits(t *testing.T) {
	srv := startServerWith(t, server.Options{Engine: engine.Config{MaxQueuesPerVhost: 1}})
	c := dial(t, srv)
	ch := channel(t, c)
	_, err := ch.QueueDeclare("one", false, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("two", false, false, false, false, nil)
	if e := amqpErr(t, err); e.Code != 406 || !strings.Contains(e.Reason, "queue limit in vhost '/' (1) is reached") {
		t.Fatalf("%d %q", e.Code, e.Reason)
	}
}

// TestMemoryAlarmBlocksPublishers: past the watermark the publisher is sent
// connection.blocked and its publishes wait; draining the queue unblocks
// it, and every message arrives — nothing is dropped.
func TestMemoryAlarmBlocksPublishers(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{Alarm: &conn.Alarm{HighWatermark: 10_000, PerMessageBytes: 100, MonitorInterval: 10 * time.Millisecond}}})
	pubConn := dial(t, srv)
	blocked := pubConn.NotifyBlocked(make(chan amqp.Blocking, 4))
	pub := channel(t, pubConn)
	_, err := pub.QueueDeclare("big", false, false, false, false, nil)
	must(t, err)
	body := make([]byte, 1000)
	publish(t, pub, "", "big", amqp.Publishing{Body: body})
	for range 10 {
		publish(t, pub, "", "big", amqp.Publishing{Body: body})
	}
	// The connection is told it is blocked when it publishes past the
	// watermark; this publish then waits in the server until memory is
	// freed.
	b, probes := publishUntilBlocked(t, pub, "big", blocked)
	if !b.Active || b.Reason != "low on memory" {
		t.Fatalf("blocking %+v", b)
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- pub.PublishWithContext(ctx, "", "big", false, false, amqp.Publishing{Body: []byte("last")})
	}()
	cons := channel(t, dial(t, srv))
	d, err := cons.Consume("big", "", true, false, false, false, nil)
	must(t, err)
	got := 0
	all := 12 + probes
	for got < all {
		m := recv(t, d)
		got++
		if string(m.Body) == "last" {
			break
		}
	}
	must(t, <-done)
	select {
	case b := <-blocked:
		if b.Active {
			t.Fatalf("second blocking notice %+v, want unblocked", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no connection.unblocked")
	}
	if got != all {
		t.Fatalf("received %d messages, want all %d", got, all)
	}
}
