package mgmt

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
)

// fixture is a real broker driver on a hand-moved clock, with the handler
// in front of it: tests advance time by setting the clock, never by
// sleeping (the driver advances the engine to the clock before each Do).
type fixture struct {
	t     *testing.T
	b     *broker.Broker
	users *auth.Store
	h     http.Handler
	api   *api
	nowMs atomic.Int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t}
	epoch := time.Unix(1_700_000_000, 0)
	f.b = broker.Start(engine.Config{Seed: 1}, func() time.Time {
		return epoch.Add(time.Duration(f.nowMs.Load()) * time.Millisecond)
	})
	t.Cleanup(f.b.Stop)
	var err error
	if f.users, err = auth.NewStore(f.b); err != nil {
		t.Fatal(err)
	}
	f.api = newAPI(f.b, f.users)
	f.h = f.api.mux
	return f
}

// advance moves the wall clock forward.
func (f *fixture) advance(ms int64) { f.nowMs.Add(ms) }

type response struct {
	status int
	header http.Header
	body   string
}

// decode unmarshals the body into a generic value.
func (r response) decode(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return v
}

func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	m, ok := r.decode(t).(map[string]any)
	if !ok {
		t.Fatalf("body is not an object: %s", r.body)
	}
	return m
}

func (r response) list(t *testing.T) []map[string]any {
	t.Helper()
	l, ok := r.decode(t).([]any)
	if !ok {
		t.Fatalf("body is not a list: %s", r.body)
	}
	out := make([]map[string]any, len(l))
	for i, e := range l {
		out[i] = e.(map[string]any)
	}
	return out
}

// as sends a request with basic auth from a loopback address.
func (f *fixture) as(user, pass, method, path, body string) response {
	f.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = "127.0.0.1:40000"
	if user != "" {
		r.SetBasicAuth(user, pass)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return response{w.Code, w.Header(), w.Body.String()}
}

// do sends a request as guest.
func (f *fixture) do(method, path, body string) response {
	f.t.Helper()
	return f.as("guest", "guest", method, path, body)
}

// must sends a request as guest and checks its status.
func (f *fixture) must(status int, method, path, body string) response {
	f.t.Helper()
	r := f.do(method, path, body)
	if r.status != status {
		f.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	return r
}

// wantError checks an error reply's status and exact body.
func (f *fixture) wantError(r response, status int, body string) {
	f.t.Helper()
	if r.status != status || r.body != body {
		f.t.Errorf("got %d %s\nwant %d %s", r.status, r.body, status, body)
	}
}

// apply applies cmds as a client would, each of which must succeed, and
// returns their results. It applies at most applyBatch per turn, so that
// a big set-up's events are dispatched as it goes.
func (f *fixture) apply(cmds ...engine.Command) []engine.Result {
	f.t.Helper()
	var res []engine.Result
	for len(cmds) > 0 {
		batch := cmds[:min(applyBatch, len(cmds))]
		cmds = cmds[len(batch):]
		from := len(res)
		var err error
		if res, err = f.b.Apply(batch, res); err != nil {
			f.t.Fatal(err)
		}
		for i, r := range res[from:] {
			if r.Err != nil {
				f.t.Fatalf("%s: %v", engine.KindOf(batch[i]), r.Err)
			}
		}
	}
	return res
}

// applyBatch is the most commands fixture.apply applies in one turn.
const applyBatch = 1024

// reads reads the engine, as the API does.
func (f *fixture) reads() *broker.Reader { return f.b.Reader(nil) }

// client opens a connection and channel 1 as an AMQP client would.
func (f *fixture) client(vhost, name string) engine.ChannelID {
	f.t.Helper()
	conn := f.apply(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: vhost, User: "guest", Name: name}})[0].Conn
	return f.apply(engine.CmdOpenChannel{Conn: conn, Num: 1})[0].Channel
}

// publish sends bodies to a queue through the default exchange.
func (f *fixture) publish(vhost, queue string, bodies ...string) {
	f.t.Helper()
	ch := f.client(vhost, "publisher")
	var cmds []engine.Command
	for _, b := range bodies {
		cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: queue, Body: []byte(b)}})
	}
	f.apply(append(cmds, engine.CmdCloseConnection{Conn: ch.Conn})...)
}

// declareQueues declares queues q<from> ... q<from+n-1> on ch.
func (f *fixture) declareQueues(ch engine.ChannelID, from, n int) {
	f.t.Helper()
	cmds := make([]engine.Command, n)
	for i := range cmds {
		cmds[i] = engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "q" + strconv.Itoa(from+i)}}
	}
	f.apply(cmds...)
}

// readyBodies returns a queue's ready messages, head first.
func (f *fixture) readyBodies(vhost, queue string) []string {
	f.t.Helper()
	var out []string
	snap := f.reads().SnapshotLimit(0)
	v, _ := vhostView(&snap, vhost)
	for _, q := range v.Queues {
		if q.Name == queue {
			for _, r := range q.Ready {
				out = append(out, string(r.Msg.Body))
			}
		}
	}
	return out
}

// num reads a JSON number field as an int.
func num(t *testing.T, m map[string]any, key string) int {
	t.Helper()
	n, ok := m[key].(float64)
	if !ok {
		t.Fatalf("%s is %v (%T), not a number", key, m[key], m[key])
	}
	return int(n)
}

// vhostView finds a vhost in a snapshot.
func vhostView(snap *engine.Snapshot, name string) (*engine.VhostView, bool) {
	for i := range snap.Vhosts {
		if snap.Vhosts[i].Name == name {
			return &snap.Vhosts[i], true
		}
	}
	return nil, false
}
