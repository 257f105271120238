package mgmt

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The error bodies below are RabbitMQ 3.10.8's, observed with curl.
func TestAuthFailures(t *testing.T) {
	f := newFixture(t)

	r := f.as("", "", "GET", "/api/overview", "")
	if r.status != 401 || r.body != "" || r.header.Get("WWW-Authenticate") != `Basic realm="RabbitMQ Management"` {
		t.Errorf("no credentials: %d %q %v", r.status, r.body, r.header)
	}
	f.wantError(f.as("guest", "bad", "GET", "/api/overview", ""), 401, `{"error":"not_authorized","reason":"Login failed"}`)
	f.wantError(f.as("nobody", "guest", "GET", "/api/queues", ""), 401, `{"error":"not_authorized","reason":"Login failed"}`)

	if err := f.users.AddUser("plain", "pw", nil); err != nil {
		t.Fatal(err)
	}
	f.wantError(f.as("plain", "pw", "GET", "/api/overview", ""), 401, `{"error":"not_authorised","reason":"Not management user"}`)

	f.users.AddUser("mgr", "pw", []string{"management"})
	if r := f.as("mgr", "pw", "GET", "/api/queues", ""); r.status != 200 || r.body != "[]" {
		t.Errorf("management user, no vhosts: %d %s", r.status, r.body)
	}
	f.wantError(f.as("mgr", "pw", "GET", "/api/users", ""), 401, `{"error":"not_authorised","reason":"Not administrator user"}`)
	f.wantError(f.as("mgr", "pw", "GET", "/api/queues/%2F", ""), 401, `{"error":"not_authorised","reason":"User not authorised to access virtual host"}`)
	f.wantError(f.as("mgr", "pw", "PUT", "/api/policies/%2F/p", `{"pattern":".*","definition":{"max-length":1}}`),
		401, `{"error":"not_authorised","reason":"User not authorised to access object"}`)
	f.wantError(f.as("mgr", "pw", "PUT", "/api/queues/%2F/q", `{}`), 401, `{"error":"not_authorised","reason":"User not authorised to access virtual host"}`)
	f.users.SetPermissions("mgr", "/", ".*", ".*", ".*")
	if r := f.as("mgr", "pw", "PUT", "/api/queues/%2F/q", `{}`); r.status != 201 {
		t.Errorf("management user with permissions: %d %s", r.status, r.body)
	}

	// guest is loopback-only, over HTTP as over AMQP.
	req := httptest.NewRequest("GET", "/api/overview", nil)
	req.RemoteAddr = "192.0.2.7:5555"
	req.SetBasicAuth("guest", "guest")
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	if w.Code != 401 || w.Body.String() != `{"error":"not_authorised","reason":"User can only log in via localhost"}` {
		t.Errorf("guest from afar: %d %s", w.Code, w.Body)
	}
}

func TestRoutingErrors(t *testing.T) {
	f := newFixture(t)
	f.wantError(f.do("GET", "/api/nonexist", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
	r := f.do("POST", "/api/overview", "")
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" || r.body != "" {
		t.Errorf("POST overview: %d %v %q", r.status, r.header, r.body)
	}
	if r := f.do("HEAD", "/api/overview", ""); r.status != 200 {
		t.Errorf("HEAD overview: %d", r.status)
	}
}

func TestOverview(t *testing.T) {
	f := newFixture(t)
	f.must(201, "PUT", "/api/queues/%2F/q", `{}`)
	f.publish("/", "q", "a", "b")
	o := f.must(200, "GET", "/api/overview", "").object(t)
	if o["management_version"] != "3.10.8" || o["product_name"] != "Warren" {
		t.Errorf("versions: %v", o)
	}
	totals := o["queue_totals"].(map[string]any)
	objects := o["object_totals"].(map[string]any)
	if num(t, totals, "messages") != 2 || num(t, totals, "messages_ready") != 2 || num(t, objects, "queues") != 1 || num(t, objects, "exchanges") != 7 {
		t.Errorf("totals %v %v", totals, objects)
	}
	who := f.must(200, "GET", "/api/whoami", "")
	if who.body != `{"name":"guest","tags":["administrator"]}` {
		t.Errorf("whoami %s", who.body)
	}
}
