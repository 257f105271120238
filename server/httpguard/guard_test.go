package httpguard

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"warren/engine/hub"
)

// TestCheck is the guard's table. What RabbitMQ 3.10.8 answered on
// 127.0.0.1:15673 (curl, guest:guest): POST /api/definitions with a JSON
// body sent as text/plain, as application/x-www-form-urlencoded or with
// no Content-Type is 415 Unsupported Media Type (with an empty body);
// as application/json; charset=utf-8 it is 204; as multipart/form-data
// 400 (RabbitMQ takes a definitions upload as multipart; Warren does
// not). PUT /api/vhosts/v with no body and no Content-Type is 201, and
// DELETE with none 204. RabbitMQ takes any Content-Type for its other
// resources (PUT /api/queues/%2F/q as text/plain is 201, so is PUT
// /api/users/u); Warren takes a body as JSON only, everywhere, and
// refuses what a browser marks as cross-site, which RabbitMQ does not
// check.
func TestCheck(t *testing.T) {
	const own = "http://example.com" // httptest.NewRequest's Host
	cases := []struct {
		name    string
		method  string
		body    string
		chunked bool
		headers map[string]string
		status  int
		key     string
	}{
		{name: "GET from another site", method: "GET", headers: map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		{name: "HEAD from another site", method: "HEAD", headers: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{name: "OPTIONS from another site", method: "OPTIONS", headers: map[string]string{"Origin": "http://evil.example"}},

		// Content types of a body.
		{name: "json", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json"}},
		{name: "json with charset", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{name: "json in capitals", method: "PUT", body: `{}`, headers: map[string]string{"Content-Type": "Application/JSON"}},
		{name: "text/plain", method: "POST", body: `{"users":[]}`, headers: map[string]string{"Content-Type": "text/plain"}, status: 415, key: hub.KeyNotJSON},
		{name: "text/plain with charset", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, status: 415, key: hub.KeyNotJSON},
		{name: "form", method: "POST", body: `{"a":1}=`, headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: 415, key: hub.KeyNotJSON},
		{name: "multipart", method: "POST", body: "--x\r\n\r\n{}\r\n--x--", headers: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, status: 415, key: hub.KeyNotJSON},
		{name: "json-like other type", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json-seq"}, status: 415, key: hub.KeyNotJSON},
		{name: "malformed type", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json; ="}, status: 415, key: hub.KeyNotJSON},
		{name: "missing with body", method: "POST", body: `{}`, status: 415, key: hub.KeyNotJSON},
		{name: "missing with a body of unknown length", method: "POST", body: `{}`, chunked: true, status: 415, key: hub.KeyNotJSON},
		{name: "text/plain with a body of unknown length", method: "PUT", body: `{}`, chunked: true, headers: map[string]string{"Content-Type": "text/plain"}, status: 415, key: hub.KeyNotJSON},
		{name: "missing without body, PUT", method: "PUT"},
		{name: "missing without body, DELETE", method: "DELETE"},
		{name: "text/plain without body", method: "DELETE", headers: map[string]string{"Content-Type": "text/plain"}},

		// Origin, from a browser that sends no Sec-Fetch-Site.
		{name: "Origin same", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Origin": own}},
		{name: "Origin other", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, status: 403, key: hub.KeyCrossSite},
		{name: "Origin same host, other port", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Origin": "http://example.com:8080"}, status: 403, key: hub.KeyCrossSite},
		{name: "Origin null", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Origin": "null"}, status: 403, key: hub.KeyCrossSite},
		{name: "Origin other without body", method: "DELETE", headers: map[string]string{"Origin": "http://evil.example"}, status: 403, key: hub.KeyCrossSite},
		{name: "Origin other and text/plain", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, status: 403, key: hub.KeyCrossSite},

		// Sec-Fetch-Site, which a browser sends and a page cannot set.
		{name: "Sec-Fetch-Site same-origin", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", "Origin": own}},
		{name: "Sec-Fetch-Site none", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "none"}},
		{name: "Sec-Fetch-Site same-site", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site", "Origin": "http://other.example.com"}, status: 403, key: hub.KeyCrossSite},
		{name: "Sec-Fetch-Site cross-site", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, status: 403, key: hub.KeyCrossSite},
		{name: "Sec-Fetch-Site cross-site, Origin same", method: "PUT", body: `{}`, headers: map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", "Origin": own}, status: 403, key: hub.KeyCrossSite},

		// Neither header: curl, warren ctl, rabbitmqadmin, the clients' suites.
		{name: "no browser headers", method: "POST", body: `{}`, headers: map[string]string{"Content-Type": "application/json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, "/api/definitions", strings.NewReader(c.body))
			if c.chunked {
				r.ContentLength = -1
			}
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			status, err := Check(r)
			key := ""
			if err != nil {
				key = err.Key
			}
			if status != c.status || key != c.key {
				t.Errorf("Check: %d %q, want %d %q", status, key, c.status, c.key)
			}
		})
	}
}

// TestWrapRefuses: a refused request never reaches the handler, and its
// reply is the management API's error shape with the hub's key and
// values beside it, for a page to say it in its reader's language.
func TestWrapRefuses(t *testing.T) {
	reached := 0
	h := Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}))
	cases := []struct {
		headers map[string]string
		status  int
		want    map[string]any
	}{
		{
			headers: map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"},
			status:  403,
			want: map[string]any{
				"error":  "not_authorised",
				"reason": "refused: a page of another site (http://evil.example) may not change anything here; Warren takes changes only from its own pages (http://example.com) and from clients that are not browsers",
				"key":    "crossSite",
				"args":   map[string]any{"from": "http://evil.example", "own": "http://example.com"},
			},
		},
		{
			headers: map[string]string{"Sec-Fetch-Site": "cross-site"},
			status:  403,
			want: map[string]any{
				"error":  "not_authorised",
				"reason": "refused: a page of another site (Sec-Fetch-Site: cross-site) may not change anything here; Warren takes changes only from its own pages (http://example.com) and from clients that are not browsers",
				"key":    "crossSite",
				"args":   map[string]any{"from": "Sec-Fetch-Site: cross-site", "own": "http://example.com"},
			},
		},
		{
			headers: map[string]string{"Content-Type": "text/plain"},
			status:  415,
			want: map[string]any{
				"error":  "unsupported_media_type",
				"reason": `the body must be JSON, sent with Content-Type: application/json (this request's Content-Type is "text/plain")`,
				"key":    "notJSON",
				"args":   map[string]any{"type": "text/plain"},
			},
		},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/api/definitions", strings.NewReader(`{"users":[{"name":"x","password":"x","tags":"administrator"}]}`))
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%v: %d %q: %v", c.headers, rec.Code, rec.Body, err)
		}
		if rec.Code != c.status || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: %d %q, want %d application/json", c.headers, rec.Code, rec.Header().Get("Content-Type"), c.status)
		}
		if g, w := mustJSON(t, got), mustJSON(t, c.want); g != w {
			t.Errorf("%v:\n got %s\nwant %s", c.headers, g, w)
		}
	}
	if reached != 0 {
		t.Errorf("the handler saw %d refused requests", reached)
	}
	r := httptest.NewRequest("POST", "/api/definitions", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusNoContent || reached != 1 {
		t.Errorf("a JSON request from no browser: %d, handler reached %d times", rec.Code, reached)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
