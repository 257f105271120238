package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"warren/server"
	"warren/server/broker"
)

// TestGuardInFrontOfEveryEndpoint sends warren serve's state-changing
// endpoints what a browser sends from another site and bodies that are
// not JSON, with guest's credentials: each is refused before it changes
// anything, and a client that is not a browser keeps working as with
// RabbitMQ. What RabbitMQ 3.10.8 answered (127.0.0.1:15673, curl):
// POST /api/definitions as text/plain 415, even with no body; as
// application/x-www-form-urlencoded 415; as application/json with
// Origin http://evil.example and Sec-Fetch-Site cross-site 204 (it reads
// neither header); PUT /api/vhosts/v with no body and no Content-Type
// 201; DELETE 204; PUT /api/queues/%2F/q and /api/users/u as text/plain
// 201 (RabbitMQ takes any type there; Warren takes JSON only).
func TestGuardInFrontOfEveryEndpoint(t *testing.T) {
	srv := startServerWith(t, server.Options{Clock: broker.ClockManual})
	base := "http://" + srv.HTTPAddr()
	evil := map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
	plain := map[string]string{"Content-Type": "text/plain"}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	asJSON := map[string]string{"Content-Type": "application/json"}
	admin := `{"users":[{"name":"mallory","password":"mallory","tags":"administrator"}]}`
	for _, c := range []struct {
		method, path, body string
		headers            map[string]string
		status             int
		key                string
	}{
		{"POST", "/api/definitions", admin, plain, 415, "notJSON"},
		{"POST", "/api/definitions", admin, form, 415, "notJSON"},
		{"POST", "/api/definitions", admin, nil, 415, "notJSON"},
		{"POST", "/api/definitions", admin, evil, 403, "crossSite"},
		{"PUT", "/api/users/mallory", `{"password":"mallory","tags":"administrator"}`, plain, 415, "notJSON"},
		{"PUT", "/api/users/mallory", `{"password":"mallory","tags":"administrator"}`, evil, 403, "crossSite"},
		{"PUT", "/api/queues/%2F/q", `{}`, plain, 415, "notJSON"},
		{"DELETE", "/api/vhosts/%2F", "", map[string]string{"Origin": "null"}, 403, "crossSite"},
		{"POST", "/api/clock", `{"advance":"1h"}`, plain, 415, "notJSON"},
		{"POST", "/api/clock", `{"advance":"1h"}`, evil, 403, "crossSite"},
		{"POST", "/api/sessions", `{"name":"x"}`, plain, 415, "notJSON"},
		{"POST", "/api/sessions", `{"name":"x"}`, evil, 403, "crossSite"},
		{"POST", "/api/exchanges/%2F/amq.default/publish", `{"properties":{},"routing_key":"q","payload":"x","payload_encoding":"string"}`, plain, 415, "notJSON"},

		// Clients that are not browsers, as with RabbitMQ.
		{"PUT", "/api/vhosts/guard-v", "", nil, 201, ""},
		{"DELETE", "/api/vhosts/guard-v", "", nil, 204, ""},
		{"PUT", "/api/queues/%2F/q", `{}`, asJSON, 201, ""},
		{"POST", "/api/clock", `{"advance":"1m"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200, ""},
	} {
		req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		must(t, err)
		req.SetBasicAuth("guest", "guest")
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var reply struct{ Error, Reason, Key string }
		if c.key != "" {
			if err := json.Unmarshal(data, &reply); err != nil || reply.Reason == "" {
				t.Errorf("%s %s %v: %q is not an error reply", c.method, c.path, c.headers, data)
			}
		}
		if res.StatusCode != c.status || reply.Key != c.key {
			t.Errorf("%s %s %v: %d %s, want %d %s", c.method, c.path, c.headers, res.StatusCode, data, c.status, c.key)
		}
	}
	// Nothing refused changed anything: no mallory, the clock moved by
	// the one minute only, no session.
	if users := getJSON(t, base+"/api/users"); strings.Contains(users, "mallory") {
		t.Errorf("users after the refusals: %s", users)
	}
	if clock := getJSON(t, base+"/api/clock"); !strings.Contains(clock, `"now_ms":60000,`) {
		t.Errorf("the clock after the refusals: %s", clock)
	}
	if list := getJSON(t, base+"/api/sessions"); list != "[]" {
		t.Errorf("sessions after the refusals: %s", list)
	}
}

func getJSON(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	must(t, err)
	req.SetBasicAuth("guest", "guest")
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, data)
	}
	return strings.TrimSpace(string(data))
}
