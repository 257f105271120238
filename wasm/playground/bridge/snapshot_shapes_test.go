package bridge_test

import (
	"testing"

	"warren/wasm/playground/bridge"
)

// TestSnapshotShapes checks the parts of the snapshot the TTL tests do
// not reach: bindings, policies, a delayed exchange's held messages, typed
// header values, properties, quorum and priority settings.
func TestSnapshotShapes(t *testing.T) {
	s := bridge.New()
	run(t, s,
		`set_policy lim "^p" '{"max-length":5}' --apply-to queues --priority 2`,
		"declare exchange later x-delayed-message delayed-type=direct",
		"declare queue p max-priority=10",
		"bind p later k x-note=hi",
		"publish later k held delay=2s header.trace=[1,true,x] content-type=text/plain persistent",
		"declare queue qq type=quorum delivery-limit=3",
		"@c1 qos 5",
	)
	snap := asMap(t, s.Snapshot())
	vh := path(t, snap, "vhosts", 0)
	check(t, "policy", path(t, vh, "policies", 0), map[string]any{"name": "lim", "pattern": "^p", "applyTo": "queues", "priority": 2.0, "definition": map[string]any{"max-length": 5.0}})
	check(t, "operator policies", path(t, vh, "operatorPolicies"), []any{})
	check(t, "binding", path(t, vh, "bindings", 0), map[string]any{"source": "later", "destination": "p", "destinationType": "queue", "routingKey": "k", "args": map[string]any{"x-note": "hi"}})
	later := path(t, vh, "exchanges", "name=later")
	check(t, "exchange args", path(t, later, "args"), map[string]any{"x-delayed-type": "direct"})
	check(t, "heldCount", path(t, later, "heldCount"), 1.0)
	held := path(t, later, "held", 0)
	check(t, "releaseAt", path(t, held, "releaseAt"), 2000.0)
	check(t, "held body", path(t, held, "body"), "held")
	check(t, "typed header", path(t, held, "headers", "trace"), []any{1.0, true, "x"})
	check(t, "x-delay header", path(t, held, "headers", "x-delay"), 2000.0)
	check(t, "properties", path(t, held, "properties"), map[string]any{"contentType": "text/plain", "deliveryMode": 2.0})
	p := path(t, vh, "queues", "name=p", "effective")
	check(t, "policy applied", path(t, p, "policy"), "lim")
	check(t, "maxLength from policy", path(t, p, "maxLength"), 5.0)
	check(t, "maxPriority", path(t, p, "maxPriority"), 10.0)
	qq := path(t, vh, "queues", "name=qq")
	check(t, "quorum", path(t, qq, "type"), "quorum")
	check(t, "durable", path(t, qq, "durable"), true)
	check(t, "deliveryLimit", path(t, qq, "effective", "deliveryLimit"), 3.0)
	check(t, "prefetch", path(t, vh, "connections", "name=c1", "channels", 0, "prefetch"), 5.0)
	check(t, "timer", path(t, snap, "timers", 0), map[string]any{"at": 2000.0, "kind": "delayed-release", "vhost": "/", "exchange": "later", "msgId": 1.0})
}

// TestTypedTexts: JSON writes the float 1.0 as 1, so the snapshot also
// carries each header and a headers binding's arguments as show msg and
// the trace write them, where '1' (a string), 1 and 1.0 differ; a headers
// exchange routes on that difference, and the inspector shows it.
func TestTypedTexts(t *testing.T) {
	s := bridge.New()
	run(t, s,
		"declare exchange docs headers",
		"declare queue q",
		"bind q docs '' level=1.0 x-match=all",
		"publish docs '' m header.level=1.0 header.n=1 header.s='1' header.w=word",
	)
	msg := path(t, asMap(t, s.Snapshot()), "vhosts", 0, "queues", "name=q", "ready", 0)
	check(t, "headersText", path(t, msg, "headersText"), map[string]any{"level": "1.0", "n": "1", "s": "'1'", "w": "word"})
	check(t, "headers", path(t, msg, "headers", "s"), "1")
	check(t, "via argsText", path(t, msg, "via", "argsText"), "{level:1.0,x-match:all}")
}

// TestPresentProperties: a property present but empty or zero is in the
// snapshot with its value ("" or 0), an absent one is not, and headers
// present with nothing in them say so, as a consumer would receive them
// (RabbitMQ 3.10.8 hands pika content_type "", priority 0, headers {}).
// A dead letter's headers are present: x-death was added.
func TestPresentProperties(t *testing.T) {
	s := bridge.New()
	run(t, s,
		"declare queue q",
		`publish q a content-type="" priority=0 timestamp=0 cluster-id="" headers={}`,
		"publish q b",
	)
	q := path(t, asMap(t, s.Snapshot()), "vhosts", 0, "queues", "name=q")
	a, b := path(t, q, "ready", 0), path(t, q, "ready", 1)
	check(t, "present properties", path(t, a, "properties"), map[string]any{"contentType": "", "priority": 0.0, "timestamp": 0.0, "clusterId": ""})
	check(t, "headers present", path(t, a, "headersPresent"), true)
	check(t, "no properties", path(t, b, "properties"), map[string]any{})
	if _, ok := b.(map[string]any)["headersPresent"]; ok {
		t.Errorf("headersPresent for a message without headers: %v", b)
	}
}
