package mgmt

import (
	"slices"
	"testing"
)

func TestPolicyCRUD(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/policies/%2F/TTL", `{"pattern":"^q","definition":{"message-ttl":60000,"dead-letter-exchange":"dlx"},"priority":2,"apply-to":"queues"}`)
	want := `{"vhost":"/","name":"TTL","pattern":"^q","apply-to":"queues","definition":{"dead-letter-exchange":"dlx","message-ttl":60000},"priority":2}`
	if r := f.must(200, "GET", "/api/policies/%2F/TTL", ""); r.body != want {
		t.Errorf("get:\n%s\nwant\n%s", r.body, want)
	}
	if r := f.must(200, "GET", "/api/policies", ""); r.body != "["+want+"]" {
		t.Errorf("list %s", r.body)
	}
	if r := f.must(200, "GET", "/api/policies/%2F", ""); r.body != "["+want+"]" {
		t.Errorf("list / %s", r.body)
	}
	f.must(204, "PUT", "/api/policies/%2F/TTL", `{"pattern":"^q","definition":{"max-length":1}}`)
	if p := f.must(200, "GET", "/api/policies/%2F/TTL", "").object(t); p["apply-to"] != "all" || num(t, p, "priority") != 0 {
		t.Errorf("defaults: %v", p)
	}
	f.must(204, "DELETE", "/api/policies/%2F/TTL", "")
	f.wantError(f.do("DELETE", "/api/policies/%2F/TTL", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("GET", "/api/policies/%2F/TTL", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	f.wantError(f.do("PUT", "/api/policies/novh/p", `{"pattern":".*","definition":{"max-length":1}}`), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	if r := f.must(200, "GET", "/api/policies", ""); r.body != "[]" {
		t.Errorf("empty list %s", r.body)
	}
}

// TestPolicyValidation checks the error bodies against RabbitMQ 3.10.8's.
func TestPolicyValidation(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ body, want string }{
		{`{"pattern":"^q","definition":{"message-ttl":-1}}`, `{"error":"bad_request","reason":"Validation failed\n\n-1 is not a valid message TTL\n"}`},
		{`{"pattern":"^q","definition":{"foo":1}}`, `{"error":"bad_request","reason":"Validation failed\n\n[{&lt;&lt;\"foo\"&gt;&gt;,1}] are not recognised policy settings\n"}`},
		{`{"definition":{"message-ttl":1}}`, `{"error":"bad_request","reason":"[{key_missing,pattern}]"}`},
		{`{"pattern":"x"}`, `{"error":"bad_request","reason":"[{key_missing,definition}]"}`},
		{`notjson`, `{"error":"bad_request","reason":"not_json"}`},
		// JSON numbers keep their kind: 5.0 is a float, not an integer TTL.
		{`{"pattern":"^q","definition":{"message-ttl":5.0}}`, `{"error":"bad_request","reason":"Validation failed\n\n5.0 is not a valid message TTL\n"}`},
		{`{"pattern":"^q","definition":{"max-length":5},"priority":"3"}`, `{"error":"bad_request","reason":"Validation failed\n\npriority should be a number, actually was &lt;&lt;\"3\"&gt;&gt;\n"}`},
	} {
		f.wantError(f.do("PUT", "/api/policies/%2F/bad", c.body), 400, c.want)
	}
	// Operator policies accept only the keys operators may cap.
	f.wantError(f.do("PUT", "/api/operator-policies/%2F/op", `{"pattern":".*","definition":{"dead-letter-exchange":"x"}}`), 400,
		`{"error":"bad_request","reason":"Validation failed\n\n[{&lt;&lt;\"dead-letter-exchange\"&gt;&gt;,&lt;&lt;\"x\"&gt;&gt;}] are not recognised policy settings\n"}`)
}

// TestPolicyChangesExistingQueue sets policies on a queue that already
// holds messages: a message TTL expires them when the clock passes it, and
// a max-length drops from the head at once.
func TestPolicyChangesExistingQueue(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q.ttl", `{"durable":true}`)
	f.must(201, "PUT", "/api/queues/%2F/q.len", `{}`)
	f.publish("/", "q.ttl", "1", "2", "3")
	f.publish("/", "q.len", "a", "b", "c", "d", "e")

	f.advance(500)
	f.must(201, "PUT", "/api/policies/%2F/ttl", `{"pattern":"^q\\.ttl$","definition":{"message-ttl":1000},"apply-to":"queues"}`)
	q := f.must(200, "GET", "/api/queues/%2F/q.ttl", "").object(t)
	if num(t, q, "messages") != 3 || q["policy"] != "ttl" {
		t.Fatalf("before the TTL passes: %v", q)
	}
	if d := q["effective_policy_definition"].(map[string]any); num(t, d, "message-ttl") != 1000 {
		t.Errorf("effective definition %v", d)
	}
	f.advance(600) // 1100 ms after publishing
	q = f.must(200, "GET", "/api/queues/%2F/q.ttl", "").object(t)
	if num(t, q, "messages") != 0 || num(t, q, "messages_ready") != 0 {
		t.Errorf("after the TTL: %v", q)
	}

	f.must(201, "PUT", "/api/policies/%2F/len", `{"pattern":"^q\\.len$","definition":{"max-length":2},"priority":1}`)
	q = f.must(200, "GET", "/api/queues/%2F/q.len", "").object(t)
	if num(t, q, "messages") != 2 || q["policy"] != "len" {
		t.Errorf("after max-length: %v", q)
	}
	if got := f.readyBodies("/", "q.len"); !slices.Equal(got, []string{"d", "e"}) {
		t.Errorf("kept %v, want the tail [d e]", got)
	}

	// An operator policy caps it further; clearing it restores the cap of 2
	// for new messages.
	f.must(201, "PUT", "/api/operator-policies/%2F/cap", `{"pattern":"^q","definition":{"max-length":1},"apply-to":"queues"}`)
	q = f.must(200, "GET", "/api/queues/%2F/q.len", "").object(t)
	if num(t, q, "messages") != 1 || q["operator_policy"] != "cap" {
		t.Errorf("after operator policy: %v", q)
	}
	if d := q["effective_policy_definition"].(map[string]any); num(t, d, "max-length") != 1 {
		t.Errorf("effective definition %v", d)
	}
	if r := f.must(200, "GET", "/api/operator-policies/%2F", ""); r.body != `[{"vhost":"/","name":"cap","pattern":"^q","apply-to":"queues","definition":{"max-length":1},"priority":0}]` {
		t.Errorf("operator policies %s", r.body)
	}
	f.must(204, "DELETE", "/api/operator-policies/%2F/cap", "")
	f.publish("/", "q.len", "f", "g")
	if got := f.readyBodies("/", "q.len"); !slices.Equal(got, []string{"f", "g"}) {
		t.Errorf("after clearing: %v", got)
	}
	if q := f.must(200, "GET", "/api/queues/%2F/q.len", "").object(t); q["operator_policy"] != nil {
		t.Errorf("operator policy still shown: %v", q["operator_policy"])
	}
}
