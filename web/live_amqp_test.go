package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/conn"
	"warren/driver/sessions"
	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/httpguard"
	"warren/server/tcp"
)

// serveAMQP serves AMQP on ln as warren serve does, routing a session's
// own login to it (sessions.Manager is the conn.Router) and every other
// login to a broker of its own.
func serveAMQP(t *testing.T, ln net.Listener, m *sessions.Manager) {
	b := broker.Start(engine.Config{}, nil)
	users, err := auth.NewStore(b)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &conn.Config{Broker: b, Users: users, Router: m}
	cfg.Defaults()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		ln.Close()
		wg.Wait()
		b.Stop()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn.Serve(ctx, tcp.New(nc), cfg)
			}()
		}
	}()
}

// amqpProgram is the learner's program the chromium test asks for: a
// real amqp091-go client that connects with the URL the page shows. Its
// two steps are HTTP endpoints the test script calls from Node.
type amqpProgram struct {
	t    *testing.T
	mu   sync.Mutex
	conn *amqp.Connection
}

// ServeHTTP: POST /test/amqp/publish {url} connects as "go worker",
// declares orders (a 1-minute TTL dead-lettering into orders.dead) and
// publishes "order 42" with a confirm; POST /test/amqp/consume takes the
// dead letter from orders.dead, acks it, and answers its x-death.
func (p *amqpProgram) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(err error) { http.Error(w, err.Error(), http.StatusInternalServerError) }
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.URL.Path {
	case "/test/amqp/publish":
		var req struct{ URL string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			fail(err)
			return
		}
		c, err := amqp.DialConfig(req.URL, amqp.Config{Properties: amqp.Table{"connection_name": "go worker"}})
		if err != nil {
			fail(err)
			return
		}
		p.conn = c
		ch, err := c.Channel()
		if err == nil {
			err = ch.Confirm(false)
		}
		if err == nil {
			_, err = ch.QueueDeclare("orders.dead", true, false, false, false, nil)
		}
		if err == nil {
			_, err = ch.QueueDeclare("orders", true, false, false, false, amqp.Table{"x-message-ttl": int32(60_000), "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "orders.dead"})
		}
		if err == nil {
			var conf *amqp.DeferredConfirmation
			conf, err = ch.PublishWithDeferredConfirmWithContext(r.Context(), "", "orders", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("order 42")})
			if err == nil && !conf.Wait() {
				http.Error(w, "nacked", http.StatusInternalServerError)
				return
			}
		}
		if err != nil {
			fail(err)
			return
		}
		w.Write([]byte("published"))
	case "/test/amqp/consume":
		ch, err := p.conn.Channel()
		if err != nil {
			fail(err)
			return
		}
		msgs, err := ch.Consume("orders.dead", "", false, false, false, false, nil)
		if err != nil {
			fail(err)
			return
		}
		select {
		case d := <-msgs:
			d.Ack(false)
			deaths, _ := d.Headers["x-death"].([]any)
			first, _ := deaths[0].(amqp.Table)
			json.NewEncoder(w).Encode(map[string]any{"body": string(d.Body), "queue": first["queue"], "reason": first["reason"], "count": first["count"]})
		case <-time.After(5 * time.Second):
			http.Error(w, "no dead letter within 5 s", http.StatusGatewayTimeout)
		}
	default:
		http.NotFound(w, r)
	}
}

// TestLiveAMQPInChromium runs e2e/liveamqp.mjs: a real AMQP client
// (amqp091-go) joins a manual session with the login an editor's page
// shows (a read-only page shows none); both pages list it, draw its
// queues and animate its publish; its TTL waits for an editor's step,
// then the message is dead-lettered in every page, and the client
// consumes it with x-death.
func TestLiveAMQPInChromium(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := sessions.New(sessions.Config{Logf: t.Logf, AMQPPort: ln.Addr().(*net.TCPAddr).Port})
	defer m.Shutdown(context.Background())
	serveAMQP(t, ln, m)
	mux := http.NewServeMux()
	for _, p := range []string{"/api/sessions", "/api/sessions/", "/ws/sessions/"} {
		mux.Handle(p, m)
	}
	prog := &amqpProgram{t: t}
	mux.Handle("/test/amqp/", prog)
	mux.Handle("/", Handler(WithSessions(m)))
	runBrowserTestOn(t, httpguard.Wrap(mux), 2*time.Minute, "liveamqp.mjs")
	if prog.conn != nil {
		prog.conn.Close()
	}
}
