package mgmt

import (
	"strings"
	"testing"
)

// TestTrailingSlash: every GET endpoint answers a path ending in "/" as it
// answers the path without it, as RabbitMQ's router (Cowboy) does; amqp091-go's
// recovery tests list GET /api/connections/. Each route's wildcards are
// filled with an object the fixture has, so that the answers are 200s
// with bodies to compare.
func TestTrailingSlash(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q", "")
	f.must(201, "PUT", "/api/exchanges/%2F/x", `{"type":"direct"}`)
	f.must(201, "PUT", "/api/exchanges/%2F/x2", `{"type":"direct"}`)
	f.must(201, "POST", "/api/bindings/%2F/e/x/q/q", `{"routing_key":"k"}`)
	f.must(201, "POST", "/api/bindings/%2F/e/x/e/x2", `{"routing_key":"k"}`)
	f.must(201, "PUT", "/api/policies/%2F/p", `{"pattern":"^q$","definition":{"max-length":5}}`)
	f.must(201, "PUT", "/api/operator-policies/%2F/p", `{"pattern":"^q$","definition":{"max-length":5}}`)
	f.must(201, "PUT", "/api/topic-permissions/%2F/guest", `{"exchange":"x","write":".*","read":".*"}`)
	f.client("/", "127.0.0.1:1 -> 127.0.0.1:5672")
	values := map[string]string{
		"vhost": "%2F", "user": "guest", "exchange": "x", "source": "x", "destination": "q", "props": "k",
	}
	names := map[string]string{ // {name}, by the route's first segment after /api/
		"queues": "q", "exchanges": "x", "policies": "p", "operator-policies": "p",
		"connections": "127.0.0.1%3A1%20-%3E%20127.0.0.1%3A5672",
	}
	checked := 0
	for _, rte := range f.api.mux.routes {
		segs := make([]string, len(rte.segs))
		for i, s := range rte.segs {
			segs[i] = s
			if isWildcard(s) {
				w := s[1 : len(s)-1]
				segs[i] = values[w]
				switch {
				case w == "name":
					segs[i] = names[rte.segs[1]]
				case w == "destination" && rte.segs[i-1] == "e":
					segs[i] = "x2"
				}
			}
		}
		path := "/" + strings.Join(segs, "/")
		r := f.do("GET", path, "")
		if r.status == 405 {
			continue // no GET on this path
		}
		if r.status != 200 {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
			continue
		}
		slash := f.do("GET", path+"/", "")
		if slash.status != r.status || slash.body != r.body {
			t.Errorf("GET %s/: %d %s\nwant %d %s", path, slash.status, slash.body, r.status, r.body)
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d GET routes checked", checked)
	}
	if n := len(f.must(200, "GET", "/api/connections/", "").list(t)); n != 1 {
		t.Errorf("GET /api/connections/ lists %d connections, want 1", n)
	}
}
