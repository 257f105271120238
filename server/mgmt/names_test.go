package mgmt

import (
	"strings"
	"testing"
)

// TestNamesRefused: a name the API would create must be UTF-8 without NUL
// or line breaks, and a name or key the broker sends as an AMQP short
// string must fit in 255 bytes; each is a 400 with a reason that says
// which, and nothing is created.
func TestNamesRefused(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q", "")
	long := strings.Repeat("n", 256)
	tooLong := "is 256 bytes long, more than the 255 an AMQP short string holds"
	clipped := "'" + long[:48] + "...' " + tooLong
	for _, c := range []struct {
		method, path, body, reason string
	}{
		{"PUT", "/api/queues/%2F/" + long, "", "queue name " + clipped},
		{"PUT", "/api/queues/%2F/a%00b", "", "queue name contains a NUL character"},
		{"PUT", "/api/queues/%2F/a%0Ab", "", "queue name contains a line break"},
		{"PUT", "/api/queues/%2F/a%FFb", "", "path segment is not valid UTF-8"},
		{"GET", "/api/queues/%2F/a%FFb", "", "path segment is not valid UTF-8"},
		{"PUT", "/api/queues/%2F/dl", `{"arguments":{"x-dead-letter-exchange":"amq.fanout","x-dead-letter-routing-key":"` + long + `"}}`,
			"invalid arg 'x-dead-letter-routing-key' for queue 'dl' in vhost '/': 256 bytes long, more than the 255 an AMQP short string holds"},
		{"PUT", "/api/exchanges/%2F/" + long, "", "exchange name " + clipped},
		{"PUT", "/api/exchanges/%2F/a%0Db", "", "exchange name contains a line break"},
		{"PUT", "/api/exchanges/%2F/x", `{"arguments":{"alternate-exchange":"` + long + `"}}`,
			"invalid arg 'alternate-exchange' for exchange 'x' in vhost '/': 256 bytes long, more than the 255 an AMQP short string holds"},
		{"PUT", "/api/vhosts/" + long, "", "vhost name " + clipped},
		{"PUT", "/api/vhosts/v%00", "", "vhost name contains a NUL character"},
		{"PUT", "/api/users/" + long, `{"password":"pw","tags":""}`, "user name " + tooLong},
		{"PUT", "/api/users/u%0A", `{"password":"pw","tags":""}`, "user name contains a line break"},
		{"PUT", "/api/policies/%2F/p%0A", `{"pattern":".*","definition":{"max-length":1}}`, "policy name contains a line break"},
		{"PUT", "/api/policies/%2F/p", `{"pattern":".*","definition":{"dead-letter-routing-key":"` + long + `"}}`,
			"Validation failed\n\n&lt;&lt;\"" + long[:48] + "...\"&gt;&gt; is not a valid dead letter routing key: 256 bytes long, more than the 255 an AMQP short string holds\n"},
		{"POST", "/api/bindings/%2F/e/amq.direct/q/q", `{"routing_key":"` + long + `"}`, "binding key " + clipped},
		{"PUT", "/api/queues/%2F/q2", "{\"arguments\":{\"x-foo\":\"\xff\"}}", "not_json"},
		{"POST", "/api/definitions", `{"queues":[{"name":"ok","vhost":"/"},{"name":"a\nb","vhost":"/"}]}`, "queue name contains a line break"},
		{"POST", "/api/definitions", "{\"queues\":[{\"name\":\"a\xffb\",\"vhost\":\"/\"}]}", "failed_to_parse_json"},
	} {
		r := f.do(c.method, c.path, c.body)
		want := `{"error":"bad_request","reason":` + quote(c.reason) + `}`
		if r.status != 400 || r.body != want {
			t.Errorf("%s %.60s: %d %s\nwant 400 %s", c.method, c.path, r.status, r.body, want)
		}
	}
	var names []string
	for _, q := range f.must(200, "GET", "/api/queues", "").list(t) {
		names = append(names, q["name"].(string))
	}
	if len(names) != 1 || names[0] != "q" {
		t.Errorf("queues %q, want only q", names)
	}
	if n := len(f.must(200, "GET", "/api/vhosts", "").list(t)); n != 1 {
		t.Errorf("%d vhosts, want 1", n)
	}
	if n := len(f.must(200, "GET", "/api/exchanges/%2F", "").list(t)); n != 7 {
		t.Errorf("%d exchanges, want the 7 predeclared", n)
	}
}
