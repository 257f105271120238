package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/conn"
	"warren/server"
)

// awaitBlocking waits for the next connection.blocked or unblocked notice.
func awaitBlocking(t *testing.T, blocked <-chan amqp.Blocking, active bool) {
	t.Helper()
	select {
	case b := <-blocked:
		if b.Active != active || (active && b.Reason != "low on memory") {
			t.Fatalf("blocking notice %+v, want active=%t", b, active)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no connection.blocked notice with active=%t", active)
	}
}

// publishUntilBlocked publishes transient messages to queue until the
// connection is told connection.blocked, and returns the notice and how
// many it published: RabbitMQ tells a connection when it publishes while
// an alarm is set, and the publishes that set it may have come in one
// read with others (a batch), or set an alarm of the disk's, which comes
// on a goroutine of its own a little after.
func publishUntilBlocked(t *testing.T, ch *amqp.Channel, queue string, blocked <-chan amqp.Blocking) (amqp.Blocking, int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for n := 1; ; n++ {
		must(t, ch.Publish("", queue, false, false, amqp.Publishing{Body: []byte("probe")}))
		select {
		case b := <-blocked:
			return b, n
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatal("no connection.blocked notice")
		}
	}
}

// TestMemoryAlarmCountsUnacked: messages delivered to a consumer that never
// acks (with no prefetch limit) still take memory, so they count against
// the watermark: the publisher is blocked though no message is ready, and
// unblocked when the consumer acks.
func TestMemoryAlarmCountsUnacked(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{Alarm: &conn.Alarm{HighWatermark: 10_000, PerMessageBytes: 100, MonitorInterval: 10 * time.Millisecond}}})
	pubConn := dial(t, srv)
	blocked := pubConn.NotifyBlocked(make(chan amqp.Blocking, 4))
	pub := channel(t, pubConn)
	cons := channel(t, dial(t, srv))
	_, err := cons.QueueDeclare("hoard", false, false, false, false, nil)
	must(t, err)
	d, err := cons.Consume("hoard", "", false, false, false, false, nil)
	must(t, err)
	body := make([]byte, 1000)
	var last amqp.Delivery
	for range 10 { // 10 × (1000 + 100) bytes: past the 10,000 watermark
		publish(t, pub, "", "hoard", amqp.Publishing{Body: body})
		last = recv(t, d) // delivered, never acked: nothing stays ready
	}
	publish(t, pub, "", "hoard", amqp.Publishing{Body: body}) // told it is blocked
	awaitBlocking(t, blocked, true)
	must(t, last.Ack(true))
	awaitBlocking(t, blocked, false)
}

// TestBlockedConnectionThatDiesLeaves: a publisher blocked by the alarm
// whose socket then dies (connection.blocked sent, a publish waiting in the
// server) leaves the management API's connection list, and frees the
// alarm's hold, once the server's heartbeat to it fails.
func TestBlockedConnectionThatDiesLeaves(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{Alarm: &conn.Alarm{HighWatermark: 5_000, PerMessageBytes: 100, MonitorInterval: 10 * time.Millisecond}}})
	var sock net.Conn
	pubConn, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", amqp.Config{
		Heartbeat: time.Second,
		Dial: func(network, addr string) (net.Conn, error) {
			nc, err := net.Dial(network, addr)
			sock = nc
			return nc, err
		},
	})
	must(t, err)
	blocked := pubConn.NotifyBlocked(make(chan amqp.Blocking, 4))
	pub := channel(t, pubConn)
	_, err = pub.QueueDeclare("full", false, false, false, false, nil)
	must(t, err)
	for range 6 {
		publish(t, pub, "", "full", amqp.Publishing{Body: make([]byte, 1000)})
	}
	if b, _ := publishUntilBlocked(t, pub, "full", blocked); b.Reason != "low on memory" {
		t.Fatalf("blocking notice %+v, want low on memory", b)
	}
	if n := len(listConnections(t, srv)); n != 1 {
		t.Fatalf("%d connections listed while blocked, want 1", n)
	}
	sock.Close() // the client dies without a word

	deadline := time.Now().Add(10 * time.Second)
	for len(listConnections(t, srv)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the dead blocked connection is still listed after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// listConnections is GET /api/connections as guest.
func listConnections(t *testing.T, srv *server.Server) []map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+srv.HTTPAddr()+"/api/connections", nil)
	req.SetBasicAuth("guest", "guest")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var conns []map[string]any
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/connections: %s", resp.Status)
	}
	must(t, json.NewDecoder(resp.Body).Decode(&conns))
	return conns
}

// TestMemoryAlarmCountsDelayed: messages a delayed-message exchange holds
// take memory too, so they count against the watermark, until the
// exchange is deleted.
func TestMemoryAlarmCountsDelayed(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{Alarm: &conn.Alarm{HighWatermark: 10_000, PerMessageBytes: 100, MonitorInterval: 10 * time.Millisecond}}})
	// The publisher stays blocked to the end: its socket is closed then,
	// since a connection.close would wait for a server that no longer
	// reads it.
	var sock net.Conn
	pubConn, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", amqp.Config{
		Dial: func(network, addr string) (net.Conn, error) {
			nc, err := net.Dial(network, addr)
			sock = nc
			return nc, err
		},
	})
	must(t, err)
	defer sock.Close()
	blocked := pubConn.NotifyBlocked(make(chan amqp.Blocking, 4))
	pub, err := pubConn.Channel()
	must(t, err)
	must(t, pub.ExchangeDeclare("later", "x-delayed-message", false, false, false, false, amqp.Table{"x-delayed-type": "direct"}))
	for range 10 {
		publish(t, pub, "later", "nowhere", amqp.Publishing{Body: make([]byte, 1000), Headers: amqp.Table{"x-delay": int32(3_600_000)}})
	}
	if b, _ := publishUntilBlocked(t, pub, "nowhere", blocked); b.Reason != "low on memory" {
		t.Fatalf("blocking notice %+v, want low on memory", b)
	}
}
