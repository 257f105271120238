package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestPoisonedDeadLetterRoutingKey: a dead-letter routing key longer than
// an AMQP short string (255 bytes) used to be accepted, and every message
// dead-lettered with it then killed the connection of whoever consumed or
// got it, for good. Now the declare (and a policy carrying such a key) is
// refused where the key enters, and the consumer's connection lives on.
func TestPoisonedDeadLetterRoutingKey(t *testing.T) {
	srv := startServer(t)
	long := strings.Repeat("k", 300)

	// The victim consumes from the queue the dead letters reach.
	victim := dial(t, srv)
	vch := channel(t, victim)
	must(t, vch.ExchangeDeclare("dlx", "fanout", false, false, false, false, nil))
	_, err := vch.QueueDeclare("dead", false, false, false, false, nil)
	must(t, err)
	must(t, vch.QueueBind("dead", "", "dlx", false, nil))
	deliveries, err := vch.Consume("dead", "victim", true, false, false, false, nil)
	must(t, err)

	// The attacker declares a queue whose dead letters carry the long key.
	attacker := dial(t, srv)
	ach := channel(t, attacker)
	_, err = ach.QueueDeclare("poison", false, false, false, false,
		amqp.Table{"x-dead-letter-exchange": "dlx", "x-dead-letter-routing-key": long, "x-message-ttl": int32(0)})
	e := amqpErr(t, err)
	want := "PRECONDITION_FAILED - invalid arg 'x-dead-letter-routing-key' for queue 'poison' in vhost '/': 300 bytes long, more than the 255 an AMQP short string holds"
	if e.Code != 406 || e.Reason != want {
		t.Fatalf("declare with a 300-byte DLRK: %d %q, want 406 %q", e.Code, e.Reason, want)
	}

	// The same key through a policy is a 400 from the management API.
	ach = channel(t, attacker)
	_, err = ach.QueueDeclare("poison", false, false, false, false, amqp.Table{"x-dead-letter-exchange": "dlx", "x-message-ttl": int32(0)})
	must(t, err)
	status, body := mgmtDo(t, srv.HTTPAddr(), http.MethodPut, "/api/policies/%2F/poison",
		`{"pattern":"^poison$","definition":{"dead-letter-routing-key":"`+long+`"},"apply-to":"queues"}`)
	if status != http.StatusBadRequest || !strings.Contains(body, `"error":"bad_request"`) || !strings.Contains(body, "300 bytes long") {
		t.Fatalf("PUT policy with a 300-byte dead-letter-routing-key: %d %s", status, body)
	}

	// A message dead-lettered by the queue reaches the victim, whose
	// connection survives it.
	publish(t, ach, "", "poison", amqp.Publishing{Body: []byte("dies")})
	if m := recv(t, deliveries); string(m.Body) != "dies" || m.RoutingKey != "poison" {
		t.Fatalf("dead letter %q with key %q", m.Body, m.RoutingKey)
	}
	publish(t, vch, "", "dead", amqp.Publishing{Body: []byte("after")})
	if m := recv(t, deliveries); string(m.Body) != "after" {
		t.Fatalf("after the dead letter: %q", m.Body)
	}
	if victim.IsClosed() {
		t.Fatal("the consumer's connection was closed")
	}
}

// mgmtDo sends one management API request as guest and returns the status
// and body.
func mgmtDo(t *testing.T, addr, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	must(t, err)
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(data)
}
