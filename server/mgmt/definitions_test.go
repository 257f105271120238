package mgmt

import (
	"strings"
	"testing"

	"warren/engine"
)

// populate builds one of everything definitions carry, plus things they
// do not (messages, an exclusive queue, a connection).
func populate(f *fixture) {
	f.must(201, "PUT", "/api/vhosts/v1", "")
	f.must(201, "PUT", "/api/users/app", `{"password":"s3cret","tags":["management"]}`)
	f.must(201, "PUT", "/api/permissions/v1/app", `{"configure":"^app\\.","write":".*","read":".*"}`)
	f.must(201, "PUT", "/api/topic-permissions/v1/app", `{"exchange":"app.events","write":"^{username}\\.","read":".*"}`)
	f.must(201, "PUT", "/api/policies/v1/ttl", `{"pattern":"^app\\.","definition":{"message-ttl":60000,"dead-letter-exchange":"dlx"},"priority":3,"apply-to":"queues"}`)
	f.must(201, "PUT", "/api/operator-policies/v1/cap", `{"pattern":".*","definition":{"max-length":1000},"apply-to":"queues"}`)
	f.must(201, "PUT", "/api/exchanges/v1/app.events", `{"type":"topic","durable":true,"arguments":{"alternate-exchange":"app.unrouted"}}`)
	f.must(201, "PUT", "/api/exchanges/v1/app.unrouted", `{"type":"fanout","durable":true}`)
	f.must(201, "PUT", "/api/queues/v1/app.orders", `{"durable":true,"arguments":{"x-max-priority":5,"x-overflow":"reject-publish"}}`)
	f.must(201, "PUT", "/api/queues/v1/app.quorum", `{"durable":true,"arguments":{"x-queue-type":"quorum","x-delivery-limit":3}}`)
	f.must(201, "PUT", "/api/queues/%2F/plain", `{"auto_delete":true}`)
	f.must(201, "POST", "/api/bindings/v1/e/app.events/q/app.orders", `{"routing_key":"order.*","arguments":{"x-match":"all","n":1}}`)
	f.must(201, "POST", "/api/bindings/v1/e/app.events/e/app.unrouted", `{"routing_key":"#"}`)
	f.publish("v1", "app.orders", "not a definition")
	ch := f.client("v1", "127.0.0.1:1 -> 127.0.0.1:5672")
	f.apply(engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "app.exclusive", Exclusive: true}})
}

func TestDefinitionsRoundTrip(t *testing.T) {
	a := newFixture(t)
	populate(a)
	exported := a.must(200, "GET", "/api/definitions", "").body
	for _, absent := range []string{"app.exclusive", "not a definition", `"name":"amq.direct"`} {
		if strings.Contains(exported, absent) {
			t.Errorf("export contains %s:\n%s", absent, exported)
		}
	}
	for _, present := range []string{`"topic_permissions":[{"user":"app","vhost":"v1","exchange":"app.events","write":"^{username}\\.","read":".*"}]`, `"component":"operator_policy"`, `"x-max-priority":5`, `"rabbit_version":"3.10.8"`, `"destination_type":"exchange"`} {
		if !strings.Contains(exported, present) {
			t.Errorf("export lacks %s:\n%s", present, exported)
		}
	}

	b := newFixture(t)
	b.must(204, "POST", "/api/definitions", exported)
	if again := b.must(200, "GET", "/api/definitions", "").body; again != exported {
		t.Errorf("round trip differs:\n%s\n%s", exported, again)
	}
	// Importing again changes nothing and succeeds.
	b.must(204, "POST", "/api/definitions", exported)
	if r := b.as("app", "s3cret", "GET", "/api/whoami", ""); r.status != 200 {
		t.Errorf("imported user cannot log in: %d %s", r.status, r.body)
	}
	q := b.must(200, "GET", "/api/queues/v1/app.orders", "").object(t)
	if q["policy"] != "ttl" || q["operator_policy"] != "cap" || num(t, q, "messages") != 0 {
		t.Errorf("imported queue: %v", q)
	}

	// Per-vhost definitions carry no vhost names and import into another.
	vd := a.must(200, "GET", "/api/definitions/v1", "").body
	if strings.Contains(vd, `"users"`) || strings.Contains(vd, `"vhost":"v1","durable"`) {
		t.Errorf("vhost definitions: %s", vd)
	}
	b.must(201, "PUT", "/api/vhosts/v2", "")
	b.must(204, "POST", "/api/definitions/v2", vd)
	if l := b.must(200, "GET", "/api/queues/v2", "").list(t); len(l) != 2 {
		t.Errorf("queues in v2: %v", l)
	}
	if l := b.must(200, "GET", "/api/policies/v2", "").list(t); len(l) != 1 || l[0]["vhost"] != "v2" {
		t.Errorf("policies in v2: %v", l)
	}
}

func TestDefinitionsImportErrors(t *testing.T) {
	f := newFixture(t)
	f.wantError(f.do("POST", "/api/definitions", "garbage"), 400, `{"error":"bad_request","reason":"failed_to_parse_json"}`)
	f.wantError(f.do("POST", "/api/definitions", `{"queues":[{"name":"qq","vhost":"novh","durable":true,"auto_delete":false,"arguments":{}}]}`),
		400, `{"error":"bad_request","reason":"no_such_vhost: novh"}`)
	f.wantError(f.do("POST", "/api/definitions", `{"policies":[{"vhost":"/","name":"pp","pattern":"x","definition":{"message-ttl":-3},"priority":0,"apply-to":"all"}]}`),
		400, `{"error":"bad_request","reason":"Validation failed\n\n-3 is not a valid message TTL\n (//pp)"}`)
	f.wantError(f.do("POST", "/api/definitions", `{"users":[{"name":"x","password_hash":"AAAA"}]}`), 400,
		`{"error":"bad_request","reason":"user \"x\": password_hash has 3 bytes, want 36 for rabbit_password_hashing_sha256"}`)
	// A queue that exists is left alone, even if the definition differs.
	f.must(201, "PUT", "/api/queues/%2F/q", `{"durable":true}`)
	f.must(204, "POST", "/api/definitions", `{"queues":[{"name":"q","vhost":"/","durable":false,"auto_delete":false,"arguments":{}}]}`)
	if q := f.must(200, "GET", "/api/queues/%2F/q", "").object(t); q["durable"] != true {
		t.Errorf("existing queue changed: %v", q)
	}
	f.users.AddUser("mgr", "pw", []string{"management"})
	f.wantError(f.as("mgr", "pw", "GET", "/api/definitions", ""), 401, `{"error":"not_authorised","reason":"Not administrator user"}`)
}
