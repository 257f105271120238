package mgmt

import (
	"testing"

	"warren/engine"
)

func TestQueues(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q1", `{"durable":true,"arguments":{"x-max-length":10,"x-dead-letter-exchange":"dlx","x-single-active-consumer":true}}`)
	f.must(204, "PUT", "/api/queues/%2F/q1", `{"durable":true,"arguments":{"x-max-length":10,"x-dead-letter-exchange":"dlx","x-single-active-consumer":true}}`)
	f.wantError(f.do("PUT", "/api/queues/%2F/q1", `{"durable":false,"arguments":{"x-max-length":10,"x-dead-letter-exchange":"dlx","x-single-active-consumer":true}}`),
		400, `{"error":"bad_request","reason":"inequivalent arg 'durable' for queue 'q1' in vhost '/': received 'false' but current is 'true'"}`)
	f.wantError(f.do("PUT", "/api/queues/%2F/amq.x", `{}`), 401, `{"error":"not_authorised","reason":"Access refused."}`)
	f.wantError(f.do("PUT", "/api/queues/%2F/q9", `{"durable":"yes"}`), 400, `{"error":"bad_request","reason":["not_boolean","yes"]}`)
	f.wantError(f.do("PUT", "/api/queues/novh/q", `{}`), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.must(201, "PUT", "/api/queues/%2F/qq", `{"durable":true,"arguments":{"x-queue-type":"quorum"}}`)
	f.publish("/", "q1", "hello", "world!")

	q := f.must(200, "GET", "/api/queues/%2F/q1", "").object(t)
	for k, want := range map[string]int{"messages": 2, "messages_ready": 2, "messages_unacknowledged": 0, "consumers": 0, "message_bytes": 11, "message_bytes_ready": 11} {
		if got := num(t, q, k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	if q["durable"] != true || q["auto_delete"] != false || q["exclusive"] != false || q["type"] != "classic" || q["vhost"] != "/" || q["policy"] != nil || q["state"] != "running" {
		t.Errorf("queue %v", q)
	}
	args := q["arguments"].(map[string]any)
	if num(t, args, "x-max-length") != 10 || args["x-dead-letter-exchange"] != "dlx" || args["x-single-active-consumer"] != true {
		t.Errorf("arguments %v", args)
	}
	if _, ok := q["consumer_details"].([]any); !ok {
		t.Errorf("consumer_details missing: %v", q)
	}
	l := f.must(200, "GET", "/api/queues", "").list(t)
	if len(l) != 2 || l[0]["name"] != "q1" || l[1]["name"] != "qq" || l[1]["type"] != "quorum" {
		t.Errorf("list %v", l)
	}
	if l := f.must(200, "GET", "/api/queues/%2F", "").list(t); len(l) != 2 {
		t.Errorf("list / %v", l)
	}
	f.wantError(f.do("GET", "/api/queues/%2F/nope", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)

	f.wantError(f.do("DELETE", "/api/queues/%2F/q1?if-empty=true", ""), 400, `{"error":"bad_request","reason":"queue 'q1' in vhost '/' not empty"}`)
	f.must(204, "DELETE", "/api/queues/%2F/q1/contents", "")
	if q := f.must(200, "GET", "/api/queues/%2F/q1", "").object(t); num(t, q, "messages") != 0 {
		t.Errorf("after purge %v", q)
	}
	f.wantError(f.do("DELETE", "/api/queues/%2F/nope/contents", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.must(204, "DELETE", "/api/queues/%2F/q1?if-empty=true", "")
	f.wantError(f.do("DELETE", "/api/queues/%2F/q1", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}

func TestExchanges(t *testing.T) {
	f := newFixture(t)
	l := f.must(200, "GET", "/api/exchanges/%2F", "").list(t)
	names := []string{}
	for _, x := range l {
		names = append(names, x["name"].(string))
	}
	if len(names) != 7 || names[0] != "" || names[6] != "amq.topic" {
		t.Errorf("predeclared %q", names)
	}
	f.must(201, "PUT", "/api/exchanges/%2F/x1", `{"type":"topic","durable":true,"arguments":{"alternate-exchange":"ae"}}`)
	f.must(204, "PUT", "/api/exchanges/%2F/x1", `{"type":"topic","durable":true,"arguments":{"alternate-exchange":"ae"}}`)
	want := `{"arguments":{"alternate-exchange":"ae"},"auto_delete":false,"durable":true,"internal":false,"name":"x1","type":"topic","vhost":"/","incoming":[],"outgoing":[]}`
	if r := f.must(200, "GET", "/api/exchanges/%2F/x1", ""); r.body != want {
		t.Errorf("x1:\n%s\nwant\n%s", r.body, want)
	}
	f.wantError(f.do("PUT", "/api/exchanges/%2F/x1", `{"type":"direct","durable":true}`), 400,
		`{"error":"bad_request","reason":"inequivalent arg 'type' for exchange 'x1' in vhost '/': received 'direct' but current is 'topic'"}`)
	f.wantError(f.do("PUT", "/api/exchanges/%2F/x2", `{"type":"bogus"}`), 400, `{"error":"bad_request","reason":"unknown exchange type 'bogus'"}`)
	f.wantError(f.do("PUT", "/api/exchanges/%2F/amq.foo", `{"type":"direct"}`), 401, `{"error":"not_authorised","reason":"Access refused."}`)
	f.wantError(f.do("DELETE", "/api/exchanges/%2F/amq.direct", ""), 401, `{"error":"not_authorised","reason":"Access refused."}`)
	f.wantError(f.do("DELETE", "/api/exchanges/%2F/amq.default", ""), 401, `{"error":"not_authorised","reason":"Access refused."}`)
	if x := f.must(200, "GET", "/api/exchanges/%2F/amq.default", "").object(t); x["name"] != "" || x["type"] != "direct" {
		t.Errorf("amq.default %v", x)
	}
	f.wantError(f.do("DELETE", "/api/exchanges/%2F/nope", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)

	f.must(201, "PUT", "/api/queues/%2F/q", `{}`)
	f.must(201, "POST", "/api/bindings/%2F/e/x1/q/q", `{"routing_key":"a.#"}`)
	f.wantError(f.do("DELETE", "/api/exchanges/%2F/x1?if-unused=true", ""), 400, `{"error":"bad_request","reason":"exchange 'x1' in vhost '/' in use"}`)
	f.must(204, "DELETE", "/api/exchanges/%2F/x1", "")
	f.wantError(f.do("GET", "/api/exchanges/%2F/x1", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}

func TestBindings(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/exchanges/%2F/x1", `{"type":"topic"}`)
	f.must(201, "PUT", "/api/queues/%2F/q1", `{}`)
	r := f.must(201, "POST", "/api/bindings/%2F/e/x1/q/q1", `{"routing_key":"a.#","arguments":{}}`)
	if loc := r.header.Get("Location"); loc != "q1/a.%2523" {
		t.Errorf("Location %q (RabbitMQ: q1/a.%%2523)", loc)
	}
	f.must(201, "POST", "/api/bindings/%2F/e/x1/q/q1", `{}`)
	f.must(201, "POST", "/api/bindings/%2F/e/x1/e/amq.fanout", `{"routing_key":"k","arguments":{"a":"b","n":1}}`)
	f.wantError(f.do("POST", "/api/bindings/%2F/e/nope/q/q1", `{"routing_key":"x"}`), 404, `{"error":"not_found","reason":"no exchange 'nope' in vhost '/'"}`)
	f.wantError(f.do("POST", "/api/bindings/%2F/e/x1/q/nope", `{"routing_key":"x"}`), 404, `{"error":"not_found","reason":"no queue 'nope' in vhost '/'"}`)
	f.wantError(f.do("POST", "/api/bindings/%2F/e/amq.default/q/q1", `{"routing_key":"x"}`), 401, `{"error":"not_authorised","reason":"Access refused."}`)

	want := `[{"source":"","vhost":"/","destination":"q1","destination_type":"queue","routing_key":"q1","arguments":{},"properties_key":"q1"},` +
		`{"source":"x1","vhost":"/","destination":"amq.fanout","destination_type":"exchange","routing_key":"k","arguments":{"a":"b","n":1},"properties_key":"k~`
	if r := f.must(200, "GET", "/api/bindings/%2F", ""); len(r.body) < len(want) || r.body[:len(want)] != want {
		t.Errorf("bindings:\n%s\nwant prefix\n%s", r.body, want)
	}
	between := f.must(200, "GET", "/api/bindings/%2F/e/x1/q/q1", "").list(t)
	if len(between) != 2 {
		t.Fatalf("x1 -> q1: %v", between)
	}
	keys := map[string]bool{}
	for _, b := range between {
		keys[b["properties_key"].(string)] = true
	}
	if !keys["a.%23"] || !keys["~"] {
		t.Errorf("properties keys %v (RabbitMQ: a.%%23 and ~)", keys)
	}
	if b := f.must(200, "GET", "/api/bindings/%2F/e/x1/q/q1/a.%2523", "").object(t); b["routing_key"] != "a.#" {
		t.Errorf("one binding: %v", b)
	}
	if l := f.must(200, "GET", "/api/exchanges/%2F/x1/bindings/source", "").list(t); len(l) != 3 {
		t.Errorf("x1's bindings: %v", l)
	}
	if l := f.must(200, "GET", "/api/exchanges/%2F/amq.fanout/bindings/destination", "").list(t); len(l) != 1 {
		t.Errorf("bindings to amq.fanout: %v", l)
	}
	if l := f.must(200, "GET", "/api/queues/%2F/q1/bindings", "").list(t); len(l) != 3 {
		t.Errorf("q1's bindings: %v", l)
	}

	// A binding routes: publish through x1.
	ch := f.client("/", "pub")
	f.apply(engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "x1", RoutingKey: "a.b", Body: []byte("m")}})
	if got := f.readyBodies("/", "q1"); len(got) != 1 {
		t.Errorf("routed %v", got)
	}

	f.must(204, "DELETE", "/api/bindings/%2F/e/x1/q/q1/a.%2523", "")
	f.wantError(f.do("DELETE", "/api/bindings/%2F/e/x1/q/q1/a.%2523", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	args := f.must(200, "GET", "/api/bindings/%2F/e/x1/e/amq.fanout", "").list(t)
	f.must(204, "DELETE", "/api/bindings/%2F/e/x1/e/amq.fanout/"+args[0]["properties_key"].(string), "")
	if l := f.must(200, "GET", "/api/exchanges/%2F/x1/bindings/source", "").list(t); len(l) != 1 {
		t.Errorf("after unbinding: %v", l)
	}
}
