//go:build !js

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The broker at the edge (wasm/broker, its own worker: issue 29) is
// tested here, beside the site's worker, with the same wrangler dev
// harness (dev_test.go).

// brokerAdmin is the first administrator the tests give the broker, as
// an operator does with `wrangler secret put` (locally, --var).
const brokerAdmin, brokerAdminPassword = "admin", "edge-admin-secret"

// startBroker runs the broker worker under wrangler dev --local with its
// state in persist, on port.
func startBroker(t *testing.T, persist, port string) dev {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "wasm/broker/build/app.wasm")); err != nil {
		t.Fatalf("wasm/broker/build/app.wasm is missing (a build output): %s", depsHint)
	}
	return startDevWith(t, persist, port, "-c", "wasm/broker/wrangler.toml",
		"--var", "WARREN_ADMIN_USER:"+brokerAdmin, "--var", "WARREN_ADMIN_PASSWORD:"+brokerAdminPassword)
}

// api sends one management API request (body JSON, or none) as user
// (none when ""), and returns the status and the body.
func api(t *testing.T, method, url, user, pass, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// want fails the test unless a request answered status, and its body
// contains each of texts.
func want(t *testing.T, what string, status int, body string, wantStatus int, texts ...string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("%s: %d %s, want %d", what, status, body, wantStatus)
	}
	for _, s := range texts {
		if !strings.Contains(body, s) {
			t.Fatalf("%s: %d %s, want it to say %q", what, status, body, s)
		}
	}
}

// TestEdgeBroker: an application's broker at the edge, against wrangler
// dev --local. The administrator comes from the worker's variables; a
// vhost, a user limited to it and a durable queue are made through the
// management API; an HTTP publish is kept across a restart of wrangler
// dev and an HTTP get returns it; refusals are RabbitMQ's (401 for a
// missing login and for a right the user lacks, as RabbitMQ's management
// API answers both); a TTL fires by the object's alarm with nobody
// connected; @cloudamqp/amqp-client publishes with confirms, consumes
// and acks as the limited user; two vhosts, two objects, see nothing of
// each other; deleting the user and the vhost takes effect everywhere.
func TestEdgeBroker(t *testing.T) {
	persist, port := t.TempDir(), freePort(t)
	d := startBroker(t, persist, port)
	base := d.base
	const admin, adminPw = brokerAdmin, brokerAdminPassword
	const app, appPw = "app", "app-secret"

	s, b := api(t, "GET", base+"/api/overview", "", "", "")
	want(t, "the overview without credentials", s, b, 401)
	s, b = api(t, "GET", base+"/api/whoami", admin, adminPw, "")
	want(t, "whoami as the administrator of the variables", s, b, 200, `"administrator"`)
	s, b = api(t, "GET", base+"/api/whoami", "guest", "guest", "")
	want(t, "guest (there is none at the edge)", s, b, 401)

	s, b = api(t, "PUT", base+"/api/vhosts/apps", admin, adminPw, "{}")
	want(t, "PUT vhost apps", s, b, 201)
	s, b = api(t, "PUT", base+"/api/users/"+app, admin, adminPw, `{"password":"`+appPw+`","tags":"management"}`)
	want(t, "PUT user app", s, b, 201)
	s, b = api(t, "PUT", base+"/api/permissions/apps/"+app, admin, adminPw, `{"configure":"^app\\.","write":".*","read":".*"}`)
	want(t, "PUT app's permissions in apps", s, b, 201)
	s, b = api(t, "PUT", base+"/api/queues/apps/app.q", app, appPw, `{"durable":true}`)
	want(t, "app declares app.q", s, b, 201)
	s, b = api(t, "PUT", base+"/api/queues/apps/other", app, appPw, `{"durable":true}`)
	want(t, "app declares other, outside its configure permission", s, b, 401, "Access refused.")
	s, b = api(t, "GET", base+"/api/queues/%2F", app, appPw, "")
	want(t, "app lists /, where it has no permissions", s, b, 401, "User not authorised to access virtual host")
	s, b = api(t, "POST", base+"/api/exchanges/apps/amq.default/publish", app, appPw,
		`{"properties":{"delivery_mode":2},"routing_key":"app.q","payload":"kept across a restart","payload_encoding":"string"}`)
	want(t, "app publishes to app.q over HTTP", s, b, 200, `"routed":true`)

	// A TTL that runs out while wrangler dev is stopped and started
	// again, with nobody asking afterwards: the object's alarm fires it.
	for _, q := range []struct{ name, body string }{
		{"dead", `{"durable":true}`},
		{"ttl", `{"durable":true,"arguments":{"x-message-ttl":4000,"x-dead-letter-exchange":"","x-dead-letter-routing-key":"dead"}}`},
	} {
		s, b = api(t, "PUT", base+"/api/queues/%2F/"+q.name, admin, adminPw, q.body)
		want(t, "PUT queue "+q.name, s, b, 201)
	}
	// More than the 8 MB of log that makes a snapshot due: the restart
	// restores from a snapshot and the batches after it.
	big := strings.Repeat("b", 1<<20)
	for i := range 9 {
		s, b = api(t, "POST", base+"/api/exchanges/%2F/amq.default/publish", admin, adminPw,
			`{"properties":{"delivery_mode":2},"routing_key":"dead","payload":"`+big+`","payload_encoding":"string"}`)
		want(t, "publish a 1 MiB message "+strconv.Itoa(i), s, b, 200, `"routed":true`)
	}

	s, b = api(t, "POST", base+"/api/exchanges/%2F/amq.default/publish", admin, adminPw,
		`{"properties":{"delivery_mode":2},"routing_key":"ttl","payload":"expires","payload_encoding":"string"}`)
	want(t, "publish to ttl", s, b, 200, `"routed":true`)
	published := time.Now()
	d.stop()
	d = startBroker(t, persist, port)
	deadline := published.Add(30 * time.Second)
	for !strings.Contains(d.log(), "vhost /: woken by its alarm") {
		if time.Now().After(deadline) {
			t.Fatalf("no alarm woke the vhost's object within 30 s of the publish:\n%s", d.log())
		}
		time.Sleep(200 * time.Millisecond)
	}
	s, b = api(t, "GET", base+"/api/overview", admin, adminPw, "")
	want(t, "the overview after the restart", s, b, 200)
	var ov struct {
		Storage struct {
			SnapshotPos uint64 `json:"last_snapshot_position"`
		} `json:"storage"`
	}
	if err := json.Unmarshal([]byte(b), &ov); err != nil || ov.Storage.SnapshotPos == 0 {
		t.Fatalf("no snapshot after 9 MB of log (%v): %s", err, b)
	}
	s, b = api(t, "GET", base+"/api/queues/%2F/dead", admin, adminPw, "")
	want(t, "dead after the restart: the 9 large messages and the expired one", s, b, 200, `"messages":10,`)
	s, b = api(t, "POST", base+"/api/queues/%2F/dead/get", admin, adminPw, `{"count":10,"ackmode":"ack_requeue_false","encoding":"auto","truncate":10}`)
	want(t, "get from dead after the alarm", s, b, 200, `"payload":"expires"`, `"reason":"expired"`, `"queue":"ttl"`)

	s, b = api(t, "POST", base+"/api/queues/apps/app.q/get", app, appPw, `{"count":5,"ackmode":"ack_requeue_false","encoding":"auto"}`)
	want(t, "get from app.q after the restart", s, b, 200, `"payload":"kept across a restart"`)

	// Two vhosts, two objects: neither sees the other's queues; the
	// listing of all vhosts joins both.
	s, b = api(t, "GET", base+"/api/queues/%2F/app.q", admin, adminPw, "")
	want(t, "app.q in /", s, b, 404)
	s, b = api(t, "GET", base+"/api/queues/apps/ttl", admin, adminPw, "")
	want(t, "ttl in apps", s, b, 404)
	s, b = api(t, "GET", base+"/api/queues", admin, adminPw, "")
	want(t, "every vhost's queues", s, b, 200)
	var queues []struct{ Name, Vhost string }
	if err := json.Unmarshal([]byte(b), &queues); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, q := range queues {
		got[q.Name] = q.Vhost
	}
	if got["app.q"] != "apps" || got["ttl"] != "/" || got["dead"] != "/" || len(got) != 3 {
		t.Fatalf("GET /api/queues: %v, want app.q in apps, ttl and dead in /", got)
	}

	wsBase := "ws://" + strings.TrimPrefix(base, "http://")
	t.Run("amqp-client as the limited user", func(t *testing.T) {
		out := clientScript(t, "vhost_user_ws.mjs", "ws://"+app+":"+appPw+"@"+strings.TrimPrefix(base, "http://")+"/ws/amqp/apps", "apps", "app.q")
		t.Log(out)
	})
	t.Run("amqp-client's whole WebSocket scenario in /", func(t *testing.T) {
		out := clientScript(t, "amqp_client_ws.mjs", "ws://"+admin+":"+adminPw+"@"+strings.TrimPrefix(wsBase, "ws://")+"/ws/amqp")
		t.Log(out)
	})

	t.Run("rabbitmqadmin and warren ctl", func(t *testing.T) { operatorTools(t, base, admin, adminPw) })

	// The directory's changes reach the vhost's object before they are
	// answered.
	s, b = api(t, "DELETE", base+"/api/users/"+app, admin, adminPw, "")
	want(t, "DELETE user app", s, b, 204)
	s, b = api(t, "GET", base+"/api/queues/apps", app, appPw, "")
	want(t, "app lists apps once deleted", s, b, 401)
	s, b = api(t, "DELETE", base+"/api/vhosts/apps", admin, adminPw, "")
	want(t, "DELETE vhost apps", s, b, 204)
	s, b = api(t, "GET", base+"/api/queues/apps", admin, adminPw, "")
	want(t, "the queues of the deleted vhost", s, b, 404)
	s, b = api(t, "PUT", base+"/api/vhosts/apps", admin, adminPw, "{}")
	want(t, "PUT vhost apps again", s, b, 201)
	s, b = api(t, "GET", base+"/api/queues/apps/app.q", admin, adminPw, "")
	want(t, "app.q in the new apps: its storage went with the old one", s, b, 404)
}

// operatorTools: Debian's rabbitmqadmin (`make client-tools` installs it)
// declares, publishes, gets and lists against the edge as against
// RabbitMQ, in two vhosts; warren ctl --url lists a vhost's queues.
func operatorTools(t *testing.T, base, user, pass string) {
	admin, err := exec.LookPath("rabbitmqadmin")
	if err != nil {
		t.Fatalf("rabbitmqadmin is not installed: %s", depsHint)
	}
	port := base[strings.LastIndex(base, ":")+1:]
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	ra := func(args ...string) string {
		t.Helper()
		return run(admin, append([]string{"-H", "127.0.0.1", "-P", port, "-u", user, "-p", pass}, args...)...)
	}
	ra("declare", "queue", "name=by-admin", "durable=true")
	ra("-V", "apps", "declare", "queue", "name=app.by-admin", "durable=true")
	ra("publish", "routing_key=by-admin", "payload=from rabbitmqadmin", `properties={"delivery_mode":2}`)
	if out := ra("get", "queue=by-admin", "ackmode=ack_requeue_false"); !strings.Contains(out, "from rabbitmqadmin") {
		t.Fatalf("rabbitmqadmin get: %s", out)
	}
	if out := ra("list", "queues", "vhost", "name"); !strings.Contains(out, "| /     | by-admin") || !strings.Contains(out, "| apps  | app.by-admin") {
		t.Fatalf("rabbitmqadmin list queues does not show both vhosts' queues:\n%s", out)
	}
	warren := filepath.Join(t.TempDir(), "warren")
	cmd := exec.Command("go", "build", "-o", warren, "./server/cmd/warren")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build warren: %v\n%s", err, out)
	}
	url := "http://" + user + ":" + pass + "@" + strings.TrimPrefix(base, "http://")
	if out := run(warren, "ctl", "--url", url, "list_queues", "-p", "apps"); !strings.Contains(out, "app.by-admin") {
		t.Fatalf("warren ctl --url list_queues -p apps:\n%s", out)
	}
}
