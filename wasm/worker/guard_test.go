//go:build !js

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"warren/engine/hub"
	"warren/server/httpguard"
)

// TestGuardTemplatesAreTheHubs: the edge's guard (guard.mjs) says its
// refusals in the words of engine/hub's catalog, which the pages
// translate by key.
func TestGuardTemplatesAreTheHubs(t *testing.T) {
	src, err := os.ReadFile("guard.mjs")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{hub.KeyCrossSite, hub.KeyNotJSON} {
		m := regexp.MustCompile(`(?m)^  ` + key + `: ("(?:[^"\\]|\\.)*"),$`).FindSubmatch(src)
		if m == nil {
			t.Errorf("guard.mjs has no template for %s", key)
			continue
		}
		var got string
		if err := json.Unmarshal(m[1], &got); err != nil {
			t.Fatal(err)
		}
		if want := hub.ErrorTemplate(key); got != want {
			t.Errorf("guard.mjs says %s as\n%q, the hub as\n%q", key, got, want)
		}
	}
}

// guardCase is a request to the edge and to server/httpguard alike.
type guardCase struct {
	name    string
	method  string
	path    string // {id} and {ro} are a session's editor and read-only ids
	body    string
	headers map[string]string
}

// testGuard sends every state-changing endpoint of the edge requests a
// browser sends from another site, and bodies that are not JSON: each
// reply is the one warren serve gives the same request (server/httpguard:
// status and JSON, key, values and text), and a request the guard lets
// through is not refused. Then a page of another site in chromium tries
// the same with forms and fetches (web/e2e/crosssite.mjs, sessions only:
// the edge has no management API).
func testGuard(t *testing.T, base string) {
	c := createSession(t, base, `{"clock":"manual"}`)
	host := strings.TrimPrefix(base, "http://")
	const evil = "http://127.0.0.2:9"
	var cases []guardCase
	for _, ep := range []struct{ method, path string }{
		{"POST", "/api/sessions"},
		{"POST", "/api/sessions/{id}/clock"},
		{"DELETE", "/api/sessions/{ro}"},
	} {
		add := func(name, body string, headers map[string]string) {
			cases = append(cases, guardCase{name: ep.method + " " + ep.path + " " + name, method: ep.method, path: ep.path, body: body, headers: headers})
		}
		add("from another site, Sec-Fetch-Site", `{"advance":"1h"}`, map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site", "Origin": evil})
		add("from another site, same-site", `{"advance":"1h"}`, map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site", "Origin": "http://localhost:9"})
		add("from another site, Origin only", `{"advance":"1h"}`, map[string]string{"Content-Type": "application/json", "Origin": evil})
		add("Origin null", `{"advance":"1h"}`, map[string]string{"Content-Type": "application/json", "Origin": "null"})
		add("as text/plain", `{"advance":"1h"}`, map[string]string{"Content-Type": "text/plain;charset=UTF-8"})
		add("as a form", `{"advance":"1h"}=`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		add("as multipart", "--x\r\n\r\n{}\r\n--x--", map[string]string{"Content-Type": "multipart/form-data; boundary=x"})
		add("with no Content-Type", `{"advance":"1h"}`, nil)
	}
	cases = append(cases,
		guardCase{name: "own page, JSON", method: "POST", path: "/api/sessions", body: `{}`, headers: map[string]string{"Content-Type": "application/json; charset=utf-8", "Sec-Fetch-Site": "same-origin", "Origin": base}},
		guardCase{name: "own origin, no Sec-Fetch-Site", method: "POST", path: "/api/sessions/{id}/clock", body: `{"advance":"1m"}`, headers: map[string]string{"Content-Type": "application/json", "Origin": base}},
	)
	for _, gc := range cases {
		path := strings.NewReplacer("{id}", c.ID, "{ro}", c.ReadOnlyID).Replace(gc.path)
		req, err := http.NewRequest(gc.method, base+path, strings.NewReader(gc.body))
		if err != nil {
			t.Fatal(err)
		}
		if gc.body == "" {
			req.Body = nil // no body at all, as curl -X DELETE sends
		}
		for k, v := range gc.headers {
			req.Header.Set(k, v)
		}
		// What warren serve answers: the same request, as its server
		// reads it.
		served := httptest.NewRequest(gc.method, path, strings.NewReader(gc.body))
		served.Host = host
		served.Header = req.Header.Clone()
		if gc.body == "" {
			served.ContentLength = 0
		}
		status, herr := httpguard.Check(served)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if herr == nil {
			if res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusUnsupportedMediaType {
				t.Errorf("%s: the edge refused %d %s, warren serve lets it through", gc.name, res.StatusCode, data)
			}
			continue
		}
		rec := httptest.NewRecorder()
		httpguard.Write(rec, status, herr)
		var got, want any
		if json.Unmarshal(data, &got) != nil || json.Unmarshal(rec.Body.Bytes(), &want) != nil {
			t.Errorf("%s: the edge answered %d %q", gc.name, res.StatusCode, data)
			continue
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if res.StatusCode != status || string(g) != string(w) || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: the edge answered %d %s %s,\nwarren serve %d %s", gc.name, res.StatusCode, res.Header.Get("Content-Type"), g, status, w)
		}
	}
	// Nothing refused moved the session's clock or ended it: only the
	// own origin's minute moved it.
	res, err := http.Get(base + "/api/sessions/" + url.PathEscape(c.ReadOnlyID) + "/clock")
	if err != nil {
		t.Fatal(err)
	}
	var clock struct {
		NowMs int64 `json:"now_ms"`
	}
	err = json.NewDecoder(res.Body).Decode(&clock)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || err != nil || clock.NowMs != 60000 {
		t.Errorf("the session's clock after the refused moves and one minute: %d, %d ms", res.StatusCode, clock.NowMs)
	}
	// A client that is not a browser ends it with no body and no type.
	req, _ := http.NewRequest("DELETE", base+"/api/sessions/"+c.ID, nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE with no body: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	runBrowser(t, base, "crosssite.mjs", "sessions-only")
}
