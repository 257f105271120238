package mgmt

import (
	"strconv"
	"strings"
	"testing"
)

// TestPublishBoundedAsAMQP: an HTTP publish larger than the listeners'
// largest message is refused as basic.publish would be, and nothing is
// queued.
func TestPublishBoundedAsAMQP(t *testing.T) {
	f := newFixture(t)
	f.api.maxMessageSize = 4
	f.must(201, "PUT", "/api/queues/%2F/q", `{}`)
	r := f.do("POST", "/api/exchanges/%2F/amq.default/publish", `{"routing_key":"q","payload":"hello","payload_encoding":"string","properties":{}}`)
	f.wantError(r, 400, `{"error":"bad_request","reason":"406 PRECONDITION_FAILED - message size 5 is larger than configured max size 4"}`)
	f.must(200, "POST", "/api/exchanges/%2F/amq.default/publish", `{"routing_key":"q","payload":"four","payload_encoding":"string","properties":{}}`)
	if got := f.readyBodies("/", "q"); strings.Join(got, ",") != "four" {
		t.Errorf("queued %q, want only four", got)
	}
}

// TestGetAckModes: what each ack mode leaves in the queue. ack_requeue_true
// and reject_requeue_true put the messages back in their order, marked
// redelivered; reject_requeue_false dead-letters them (reason rejected);
// ack_requeue_false takes them. A count past 10000 is refused.
func TestGetAckModes(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/dead", `{}`)
	f.must(201, "PUT", "/api/queues/%2F/q", `{"arguments":{"x-dead-letter-exchange":"","x-dead-letter-routing-key":"dead"}}`)
	f.publish("/", "q", "a", "b", "c")
	get := func(mode string, count int) []map[string]any {
		t.Helper()
		return f.must(200, "POST", "/api/queues/%2F/q/get", `{"count":`+strconv.Itoa(count)+`,"ackmode":"`+mode+`","encoding":"auto"}`).list(t)
	}
	for _, mode := range []string{"ack_requeue_true", "reject_requeue_true"} {
		if got := get(mode, 2); len(got) != 2 || got[0]["payload"] != "a" || got[1]["payload"] != "b" {
			t.Fatalf("%s: %v", mode, got)
		}
		if q := f.readyBodies("/", "q"); strings.Join(q, "") != "abc" {
			t.Fatalf("after %s the queue holds %q", mode, q)
		}
	}
	got := get("reject_requeue_false", 1)
	if len(got) != 1 || got[0]["payload"] != "a" || got[0]["redelivered"] != true {
		t.Fatalf("reject_requeue_false: %v", got)
	}
	dead := f.must(200, "POST", "/api/queues/%2F/dead/get", `{"count":1,"ackmode":"ack_requeue_false","encoding":"auto"}`).list(t)
	props, _ := dead[0]["properties"].(map[string]any)
	headers, _ := props["headers"].(map[string]any)
	deaths, _ := headers["x-death"].([]any)
	if len(deaths) != 1 || deaths[0].(map[string]any)["reason"] != "rejected" || deaths[0].(map[string]any)["queue"] != "q" {
		t.Fatalf("dead-lettered: %v", dead)
	}
	if got := get("ack_requeue_false", 10); len(got) != 2 || got[0]["message_count"] != float64(1) || got[1]["message_count"] != float64(0) {
		t.Fatalf("ack_requeue_false: %v", got)
	}
	if q := f.readyBodies("/", "q"); len(q) != 0 {
		t.Fatalf("ack_requeue_false left %q", q)
	}
	r := f.do("POST", "/api/queues/%2F/q/get", `{"count":10001,"ackmode":"ack_requeue_false","encoding":"auto"}`)
	f.wantError(r, 400, `{"error":"bad_request","reason":"count 10001 is out of range: it must be from 0 to 10000 (count 必须在 0 到 10000 之间)"}`)
}
