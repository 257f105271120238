package mgmt

import (
	"strings"
	"testing"

	"warren/engine"
)

func TestConnectionsChannelsConsumers(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q1", `{}`)
	f.publish("/", "q1", "hello")
	ch := f.client("/", "127.0.0.1:39666 -> 127.0.0.1:5672")
	f.apply(engine.CmdBasicQos{Channel: ch, Qos: engine.BasicQos{PrefetchCount: 7}},
		engine.CmdBasicConsume{Channel: ch, Consume: engine.BasicConsume{Queue: "q1", ConsumerTag: "ctag1", Args: engine.Table{"x-priority": int64(3)}}})

	conns := f.must(200, "GET", "/api/connections", "").list(t)
	if len(conns) != 1 {
		t.Fatalf("connections %v", conns)
	}
	c := conns[0]
	if c["name"] != "127.0.0.1:39666 -> 127.0.0.1:5672" || c["user"] != "guest" || c["vhost"] != "/" || num(t, c, "channels") != 1 ||
		c["peer_host"] != "127.0.0.1" || num(t, c, "peer_port") != 39666 || num(t, c, "port") != 5672 || c["protocol"] != "AMQP 0-9-1" {
		t.Errorf("connection %v", c)
	}

	chans := f.must(200, "GET", "/api/channels", "").list(t)
	if len(chans) != 1 {
		t.Fatalf("channels %v", chans)
	}
	cj := chans[0]
	if cj["name"] != "127.0.0.1:39666 -> 127.0.0.1:5672 (1)" || num(t, cj, "number") != 1 || num(t, cj, "prefetch_count") != 7 ||
		num(t, cj, "consumer_count") != 1 || num(t, cj, "messages_unacknowledged") != 1 || cj["user"] != "guest" {
		t.Errorf("channel %v", cj)
	}

	want := `[{"arguments":{"x-priority":3},"ack_required":true,"active":true,"activity_status":"up",` +
		`"channel_details":{"connection_name":"127.0.0.1:39666 -> 127.0.0.1:5672","name":"127.0.0.1:39666 -> 127.0.0.1:5672 (1)","node":"` + f.api.node + `","number":1,"peer_host":"127.0.0.1","peer_port":39666,"user":"guest"},` +
		`"consumer_tag":"ctag1","exclusive":false,"prefetch_count":7,"queue":{"name":"q1","vhost":"/"}}]`
	if r := f.must(200, "GET", "/api/consumers", ""); r.body != want {
		t.Errorf("consumers:\n%s\nwant\n%s", r.body, want)
	}
	if r := f.must(200, "GET", "/api/consumers/%2F", ""); r.body != want {
		t.Errorf("consumers in /: %s", r.body)
	}
	q := f.must(200, "GET", "/api/queues/%2F/q1", "").object(t)
	if num(t, q, "messages_unacknowledged") != 1 || num(t, q, "message_bytes_unacknowledged") != 5 || num(t, q, "consumers") != 1 || len(q["consumer_details"].([]any)) != 1 {
		t.Errorf("queue with a consumer: %v", q)
	}

	// Another user sees only their own connections.
	f.users.AddUser("mgr", "pw", []string{"management"})
	f.users.SetPermissions("mgr", "/", ".*", ".*", ".*")
	if r := f.as("mgr", "pw", "GET", "/api/connections", ""); r.body != "[]" {
		t.Errorf("mgr sees %s", r.body)
	}

	f.must(200, "GET", "/api/connections/127.0.0.1%3A39666%20-%3E%20127.0.0.1%3A5672", "")
	f.must(204, "DELETE", "/api/connections/127.0.0.1%3A39666%20-%3E%20127.0.0.1%3A5672", "")
	if r := f.must(200, "GET", "/api/connections", ""); r.body != "[]" {
		t.Errorf("after close: %s", r.body)
	}
	// Closing requeued the unacked message.
	if q := f.must(200, "GET", "/api/queues/%2F/q1", "").object(t); num(t, q, "messages_ready") != 1 || num(t, q, "consumers") != 0 {
		t.Errorf("after close: %v", q)
	}
	f.wantError(f.do("DELETE", "/api/connections/nope", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}

// TestConnectionClientProperties: a connection shows the client properties
// it opened with, and user_provided_name from their connection_name, in
// the list and on its own page; without connection_name there is no
// user_provided_name.
func TestConnectionClientProperties(t *testing.T) {
	f := newFixture(t)
	props := engine.Table{
		"product": "amqp091-go", "version": "β", "platform": "golang",
		"capabilities":    engine.Table{"connection.blocked": true, "consumer_cancel_notify": true},
		"connection_name": "orders-worker",
	}
	f.apply(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "127.0.0.1:1 -> 127.0.0.1:5672", ClientProperties: props}},
		engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "127.0.0.1:2 -> 127.0.0.1:5672"}})
	props["product"] = "changed after the open" // the engine keeps its own copy
	wantProps := `"client_properties":{"capabilities":{"connection.blocked":true,"consumer_cancel_notify":true},` +
		`"connection_name":"orders-worker","platform":"golang","product":"amqp091-go","version":"β"}`
	list := f.must(200, "GET", "/api/connections/", "").body
	one := f.must(200, "GET", "/api/connections/127.0.0.1%3A1%20-%3E%20127.0.0.1%3A5672", "").body
	for _, body := range []string{list, one} {
		if !strings.Contains(body, wantProps) || !strings.Contains(body, `"user":"guest","user_provided_name":"orders-worker","vhost":"/"`) {
			t.Errorf("connection with client properties: %s", body)
		}
	}
	other := f.must(200, "GET", "/api/connections/127.0.0.1%3A2%20-%3E%20127.0.0.1%3A5672", "").body
	if !strings.Contains(other, `"client_properties":{}`) || strings.Contains(other, "user_provided_name") {
		t.Errorf("connection without client properties: %s", other)
	}
}
