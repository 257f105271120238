package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestHeadersExchangeAndCC: headers routing (x-match any) and
// sender-selected distribution with CC (BCC never reaches a consumer).
func TestHeadersExchangeAndCC(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("h", false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("h", "", "amq.headers", false, amqp.Table{"x-match": "any", "format": "pdf", "type": "report"}))
	publish(t, ch, "amq.headers", "", amqp.Publishing{Body: []byte("yes"), Headers: amqp.Table{"format": "pdf"}})
	publish(t, ch, "amq.headers", "", amqp.Publishing{Body: []byte("no"), Headers: amqp.Table{"format": "doc"}})
	if m, ok, _ := ch.Get("h", true); !ok || string(m.Body) != "yes" {
		t.Fatalf("headers: %q %v", m.Body, ok)
	}
	if _, ok, _ := ch.Get("h", true); ok {
		t.Fatal("headers: non-matching message routed")
	}
	for _, q := range []string{"main", "cc", "bcc"} {
		_, err := ch.QueueDeclare(q, false, false, false, false, nil)
		must(t, err)
	}
	publish(t, ch, "", "main", amqp.Publishing{Body: []byte("x"), Headers: amqp.Table{"CC": []interface{}{"cc"}, "BCC": []interface{}{"bcc"}}})
	for _, q := range []string{"main", "cc", "bcc"} {
		m, ok, err := ch.Get(q, true)
		must(t, err)
		if !ok {
			t.Fatalf("%s got nothing", q)
		}
		if _, has := m.Headers["BCC"]; has {
			t.Fatalf("%s sees the BCC header", q)
		}
	}
}

// TestNackRequeueAndConsumerPriority: a nacked message comes back
// redelivered; the higher-priority consumer gets messages first.
func TestNackRequeueAndConsumerPriority(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	ch := channel(t, c)
	_, err := ch.QueueDeclare("work", false, false, false, false, nil)
	must(t, err)
	low, high := channel(t, c), channel(t, c)
	must(t, low.Qos(10, 0, false))
	must(t, high.Qos(1, 0, false))
	dl, err := low.Consume("work", "low", false, false, false, false, amqp.Table{"x-priority": int32(1)})
	must(t, err)
	dh, err := high.Consume("work", "high", false, false, false, false, amqp.Table{"x-priority": int32(10)})
	must(t, err)
	publish(t, ch, "", "work", amqp.Publishing{Body: []byte("1")})
	m := recv(t, dh)
	if string(m.Body) != "1" || m.ConsumerTag != "high" {
		t.Fatalf("first message to %s", m.ConsumerTag)
	}
	publish(t, ch, "", "work", amqp.Publishing{Body: []byte("2")})
	if m2 := recv(t, dl); string(m2.Body) != "2" {
		t.Fatalf("low got %q", m2.Body)
	}
	must(t, m.Nack(false, true))
	again := recv(t, dh)
	if string(again.Body) != "1" || !again.Redelivered {
		t.Fatalf("requeued: %q redelivered=%v", again.Body, again.Redelivered)
	}
}

// TestQueueExpires: an unused queue with x-expires is deleted when its
// lease lapses.
func TestQueueExpires(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("lease", false, false, false, false, amqp.Table{"x-expires": int32(100)})
	must(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for {
		probe := channel(t, dial(t, srv))
		_, err := probe.QueueDeclarePassive("lease", false, false, false, false, nil)
		if err != nil {
			if e := amqpErr(t, err); e.Code != 404 {
				t.Fatalf("passive declare: %v", e)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("queue still there 5 s after a 100 ms x-expires")
		}
		// Each passive declare renews the lease, so wait past it.
		time.Sleep(150 * time.Millisecond)
	}
}

// TestQuorumDeliveryLimit: a quorum queue dead-letters a message returned
// more than x-delivery-limit times, with reason delivery_limit.
func TestQuorumDeliveryLimit(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("dead", false, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("qq", true, false, false, false, amqp.Table{"x-queue-type": "quorum", "x-delivery-limit": int32(1),
		"x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"})
	must(t, err)
	publish(t, ch, "", "qq", amqp.Publishing{Body: []byte("poison")})
	for i := 0; i < 2; i++ {
		m, ok, err := ch.Get("qq", false)
		must(t, err)
		if !ok {
			t.Fatalf("get %d: empty", i)
		}
		must(t, m.Nack(false, true))
	}
	m, ok, err := ch.Get("dead", true)
	must(t, err)
	if !ok {
		t.Fatal("nothing dead-lettered")
	}
	if x := m.Headers["x-death"].([]interface{})[0].(amqp.Table); x["reason"] != "delivery_limit" {
		t.Fatalf("x-death %v", x)
	}
}

// TestQuorumDeliveryCountHeader: a quorum queue's x-delivery-count header
// as RabbitMQ 3.10.8 sends it (observed): basic.get-ok always carries it,
// 0 the first time; basic.deliver carries it only once the message has
// come back (1 after one return).
func TestQuorumDeliveryCountHeader(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("qc", true, false, false, false, amqp.Table{"x-queue-type": "quorum", "x-delivery-limit": int32(5)})
	must(t, err)
	publish(t, ch, "", "qc", amqp.Publishing{Body: []byte("a")})
	publish(t, ch, "", "qc", amqp.Publishing{Body: []byte("b")})
	m, ok, err := ch.Get("qc", false)
	must(t, err)
	if !ok || m.Headers["x-delivery-count"] != int64(0) {
		t.Fatalf("first basic.get: ok=%v headers %v, want x-delivery-count 0", ok, m.Headers)
	}
	must(t, m.Nack(false, true))
	d, err := ch.Consume("qc", "", false, false, false, false, nil)
	must(t, err)
	for _, want := range []struct {
		body  string
		count any
	}{{"a", int64(1)}, {"b", nil}} {
		x := <-d
		if string(x.Body) != want.body || x.Headers["x-delivery-count"] != want.count {
			t.Fatalf("delivered %q with headers %v, want %q with x-delivery-count %v", x.Body, x.Headers, want.body, want.count)
		}
		must(t, x.Ack(false))
	}
}

// TestPolicyThroughManagementAPI: a policy PUT over HTTP changes an
// existing queue: max-length 1 drops the older message.
func TestPolicyThroughManagementAPI(t *testing.T) {
	srv := startServer(t)
	ch := channel(t, dial(t, srv))
	_, err := ch.QueueDeclare("capped", false, false, false, false, nil)
	must(t, err)
	publish(t, ch, "", "capped", amqp.Publishing{Body: []byte("old")})
	publish(t, ch, "", "capped", amqp.Publishing{Body: []byte("new")})
	req, _ := http.NewRequest(http.MethodPut, "http://"+srv.HTTPAddr()+"/api/policies/%2F/cap",
		strings.NewReader(`{"pattern":"^capped$","definition":{"max-length":1},"apply-to":"queues"}`))
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("PUT policy: %d", resp.StatusCode)
	}
	m, ok, err := ch.Get("capped", true)
	must(t, err)
	if !ok || string(m.Body) != "new" || m.MessageCount != 0 {
		t.Fatalf("after policy: %q ok=%v left=%d", m.Body, ok, m.MessageCount)
	}
}

// TestSingleActiveConsumer: only the first consumer receives; when it
// cancels, the next takes over.
func TestSingleActiveConsumer(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv)
	ch := channel(t, c)
	_, err := ch.QueueDeclare("sac", false, false, false, false, amqp.Table{"x-single-active-consumer": true})
	must(t, err)
	a, b := channel(t, c), channel(t, c)
	da, err := a.Consume("sac", "a", true, false, false, false, nil)
	must(t, err)
	db, err := b.Consume("sac", "b", true, false, false, false, nil)
	must(t, err)
	publish(t, ch, "", "sac", amqp.Publishing{Body: []byte("1")})
	if m := recv(t, da); m.ConsumerTag != "a" {
		t.Fatalf("first went to %s", m.ConsumerTag)
	}
	must(t, a.Cancel("a", false))
	publish(t, ch, "", "sac", amqp.Publishing{Body: []byte("2")})
	if m := recv(t, db); m.ConsumerTag != "b" || string(m.Body) != "2" {
		t.Fatalf("after cancel: %s %q", m.ConsumerTag, m.Body)
	}
}
