package e2e

import (
	"context"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestPublishConsumeAck(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	q, err := ch.QueueDeclare("", false, false, true, false, nil)
	must(t, err)
	if len(q.Name) < 10 || q.Name[:8] != "amq.gen-" {
		t.Fatalf("server-named queue %q", q.Name)
	}
	publish(t, ch, "", q.Name, amqp.Publishing{Body: []byte("hello"), Headers: amqp.Table{"k": "v", "n": int32(7)}})
	d, err := ch.Consume(q.Name, "c1", false, false, false, false, nil)
	must(t, err)
	m := recv(t, d)
	if string(m.Body) != "hello" || m.Headers["k"] != "v" || m.Headers["n"] != int32(7) || m.ConsumerTag != "c1" || m.Redelivered {
		t.Fatalf("delivery %+v", m)
	}
	must(t, m.Ack(false))
}

func TestTopicAndFanoutRouting(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	must(t, ch.ExchangeDeclare("logs", "topic", false, false, false, false, nil))
	a, _ := ch.QueueDeclare("a", false, false, false, false, nil)
	b, _ := ch.QueueDeclare("b", false, false, false, false, nil)
	must(t, ch.QueueBind(a.Name, "*.error", "logs", false, nil))
	must(t, ch.QueueBind(b.Name, "app.#", "logs", false, nil))
	publish(t, ch, "logs", "app.error", amqp.Publishing{Body: []byte("1")})
	publish(t, ch, "logs", "db.error", amqp.Publishing{Body: []byte("2")})
	publish(t, ch, "logs", "app.info.x", amqp.Publishing{Body: []byte("3")})
	for _, tc := range []struct {
		q    string
		want []string
	}{{"a", []string{"1", "2"}}, {"b", []string{"1", "3"}}} {
		for _, w := range tc.want {
			m, ok, err := ch.Get(tc.q, true)
			must(t, err)
			if !ok || string(m.Body) != w {
				t.Fatalf("%s: got %q ok=%v want %q", tc.q, m.Body, ok, w)
			}
		}
		if _, ok, _ := ch.Get(tc.q, true); ok {
			t.Fatalf("%s: extra message", tc.q)
		}
	}
}

// TestTTLDeadLetterXDeath: a message outlives its queue TTL and arrives in
// the dead-letter queue with an x-death entry (reason expired).
func TestTTLDeadLetterXDeath(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	must(t, ch.ExchangeDeclare("dlx", "fanout", false, false, false, false, nil))
	_, err := ch.QueueDeclare("dead", false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("dead", "", "dlx", false, nil))
	_, err = ch.QueueDeclare("work", false, false, false, false, amqp.Table{"x-message-ttl": int32(50), "x-dead-letter-exchange": "dlx"})
	must(t, err)
	publish(t, ch, "", "work", amqp.Publishing{Body: []byte("job"), Expiration: "30"})
	d, err := ch.Consume("dead", "", true, false, false, false, nil)
	must(t, err)
	m := recv(t, d)
	deaths, ok := m.Headers["x-death"].([]interface{})
	if !ok || len(deaths) != 1 {
		t.Fatalf("x-death %#v", m.Headers["x-death"])
	}
	x := deaths[0].(amqp.Table)
	if x["reason"] != "expired" || x["queue"] != "work" || x["count"] != int64(1) || x["original-expiration"] != "30" {
		t.Fatalf("x-death entry %#v", x)
	}
	if ts, isTime := x["time"].(time.Time); !isTime || time.Since(ts) > time.Minute || time.Until(ts) > time.Minute {
		t.Fatalf("x-death time %v (%T), want about now", x["time"], x["time"])
	}
	if m.Expiration != "" || m.Headers["x-first-death-reason"] != "expired" {
		t.Fatalf("expiration %q first-death %v", m.Expiration, m.Headers["x-first-death-reason"])
	}
}

// TestMaxLengthRejectPublishNacks: reject-publish overflow nacks the
// publish through confirms.
func TestMaxLengthRejectPublishNacks(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("q", false, false, false, false, amqp.Table{"x-max-length": int32(1), "x-overflow": "reject-publish"})
	must(t, err)
	must(t, ch.Confirm(false))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 4))
	publish(t, ch, "", "q", amqp.Publishing{Body: []byte("1")})
	publish(t, ch, "", "q", amqp.Publishing{Body: []byte("2")})
	c1, c2 := <-confirms, <-confirms
	if !c1.Ack || c2.Ack || c1.DeliveryTag != 1 || c2.DeliveryTag != 2 {
		t.Fatalf("confirms %+v %+v", c1, c2)
	}
}

// TestPipelinedConfirms: 2,000 publishes written without waiting are all
// confirmed, each tag once and in order, nacks included, whether the server
// acked them one by one or several at once (multiple=true, as RabbitMQ
// coalesces confirms and Warren's writer does for adjacent acks).
func TestPipelinedConfirms(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("q", false, false, false, false, amqp.Table{"x-max-length": int32(1500), "x-overflow": "reject-publish"})
	must(t, err)
	must(t, ch.Confirm(false))
	const n = 2000
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, n))
	for i := 0; i < n; i++ {
		publish(t, ch, "", "q", amqp.Publishing{Body: []byte("m")})
	}
	for tag := uint64(1); tag <= n; tag++ {
		select {
		case c := <-confirms:
			if want := tag <= 1500; c.DeliveryTag != tag || c.Ack != want {
				t.Fatalf("confirm %+v, want tag %d ack=%v", c, tag, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no confirm for tag %d", tag)
		}
	}
}

// TestMandatoryReturnBeforeAck: an unroutable mandatory publish is
// returned (312 NO_ROUTE), then acked.
func TestMandatoryReturnBeforeAck(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	must(t, ch.Confirm(false))
	returns := ch.NotifyReturn(make(chan amqp.Return, 1))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	must(t, ch.PublishWithContext(ctx, "amq.direct", "nowhere", true, false, amqp.Publishing{Body: []byte("x")}))
	select {
	case r := <-returns:
		if r.ReplyCode != 312 || r.ReplyText != "NO_ROUTE" || string(r.Body) != "x" {
			t.Fatalf("return %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no return")
	}
	if c := <-confirms; !c.Ack {
		t.Fatalf("confirm %+v", c)
	}
}

// TestPriorities: higher priority first.
func TestPriorities(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("p", false, false, false, false, amqp.Table{"x-max-priority": int32(10)})
	must(t, err)
	for i, p := range []uint8{1, 9, 5} {
		publish(t, ch, "", "p", amqp.Publishing{Priority: p, Body: []byte{byte('a' + i)}})
	}
	var got string
	for range 3 {
		m, ok, err := ch.Get("p", true)
		must(t, err)
		if !ok {
			t.Fatal("get-empty")
		}
		got += string(m.Body)
	}
	if got != "bca" {
		t.Fatalf("order %q, want bca", got)
	}
}

// TestChannelCloseRequeuesWithRedelivered: unacked messages go back in
// order and come again with redelivered set.
func TestChannelCloseRequeuesWithRedelivered(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("r", false, false, false, false, nil)
	must(t, err)
	for _, b := range []string{"1", "2", "3"} {
		publish(t, ch, "", "r", amqp.Publishing{Body: []byte(b)})
	}
	must(t, ch.Qos(2, 0, false))
	d, err := ch.Consume("r", "", false, false, false, false, nil)
	must(t, err)
	recv(t, d)
	recv(t, d)
	must(t, ch.Close())
	ch2 := channel(t, conn)
	for i, want := range []string{"1", "2", "3"} {
		m, ok, err := ch2.Get("r", false)
		must(t, err)
		if !ok || string(m.Body) != want || m.Redelivered != (i < 2) {
			t.Fatalf("get %d: %q redelivered=%v", i, m.Body, m.Redelivered)
		}
	}
}

// TestTransactions: publishes wait for commit; rollback discards.
func TestTransactions(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("tq", false, false, false, false, nil)
	must(t, err)
	must(t, ch.Tx())
	publish(t, ch, "", "tq", amqp.Publishing{Body: []byte("a")})
	must(t, ch.TxRollback())
	publish(t, ch, "", "tq", amqp.Publishing{Body: []byte("b")})
	must(t, ch.TxCommit())
	q, err := ch.QueueDeclarePassive("tq", false, false, false, false, nil)
	must(t, err)
	if q.Messages != 1 {
		t.Fatalf("messages %d, want 1", q.Messages)
	}
}

// TestAlternateExchange: unroutable messages go to the alternate exchange.
func TestAlternateExchange(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	must(t, ch.ExchangeDeclare("ae", "fanout", false, false, false, false, nil))
	must(t, ch.ExchangeDeclare("main", "direct", false, false, false, false, amqp.Table{"alternate-exchange": "ae"}))
	_, err := ch.QueueDeclare("unrouted", false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("unrouted", "", "ae", false, nil))
	publish(t, ch, "main", "nothing", amqp.Publishing{Body: []byte("x")})
	if m, ok, _ := ch.Get("unrouted", true); !ok || string(m.Body) != "x" {
		t.Fatalf("ae got %q %v", m.Body, ok)
	}
}

// TestDelayedExchange: the message is routed when its delay elapses.
func TestDelayedExchange(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	must(t, ch.ExchangeDeclare("delayed", "x-delayed-message", false, false, false, false, amqp.Table{"x-delayed-type": "direct"}))
	_, err := ch.QueueDeclare("later", false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("later", "k", "delayed", false, nil))
	start := time.Now()
	publish(t, ch, "delayed", "k", amqp.Publishing{Body: []byte("x"), Headers: amqp.Table{"x-delay": int32(200)}})
	if _, ok, _ := ch.Get("later", true); ok {
		t.Fatal("delivered before its delay")
	}
	d, err := ch.Consume("later", "", true, false, false, false, nil)
	must(t, err)
	recv(t, d)
	// The engine keeps time in whole milliseconds, so the release may
	// come up to 1 ms before 200 ms of wall time have passed.
	if time.Since(start) < 198*time.Millisecond {
		t.Fatalf("arrived after %v, before the 200 ms delay", time.Since(start))
	}
}

// TestErrorCodes: channel and connection exceptions carry RabbitMQ's codes
// and texts.
func TestErrorCodes(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclarePassive("missing", false, false, false, false, nil)
	e := amqpErr(t, err)
	if e.Code != 404 || e.Reason != "NOT_FOUND - no queue 'missing' in vhost '/'" {
		t.Fatalf("passive declare: %d %q", e.Code, e.Reason)
	}
	ch = channel(t, conn)
	_, err = ch.QueueDeclare("bad", false, false, false, false, amqp.Table{"x-message-ttl": int32(-1)})
	if e := amqpErr(t, err); e.Code != 406 {
		t.Fatalf("bad ttl: %d %q", e.Code, e.Reason)
	}
	ch = channel(t, conn)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	must(t, ch.Ack(99, false)) // the error arrives asynchronously as channel.close
	select {
	case e := <-closed:
		if e == nil || e.Code != 406 || e.Reason != "PRECONDITION_FAILED - unknown delivery tag 99" {
			t.Fatalf("unknown tag: %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no channel.close for an unknown delivery tag")
	}
	ch = channel(t, conn)
	connClosed := conn.NotifyClose(make(chan *amqp.Error, 1))
	err = ch.ExchangeDeclare("weird", "foo", false, false, false, false, nil)
	if e := amqpErr(t, err); e.Code != 503 {
		t.Fatalf("bad exchange type: %d %q", e.Code, e.Reason)
	}
	select {
	case e := <-connClosed:
		if e == nil || e.Code != 503 {
			t.Fatalf("connection close: %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("503 should close the connection")
	}
}
