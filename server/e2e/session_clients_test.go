package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/sessions"
	"warren/engine/hub"
	"warren/server"
)

// page is a participant's page in a test: a WebSocket to a session and
// the replica it keeps from the entries, as the playground keeps one.
type page struct {
	t    *testing.T
	ws   *websocket.Conn
	msgs chan hub.Message
	rep  *hub.Replica
	// origins are the origin kinds of the entries applied, in order.
	origins []string
	// presence is the last presence the page was told.
	presence *hub.Presence
	welcome  hub.Message
}

// joinPage joins the session at id as name and reads its welcome.
func joinPage(t *testing.T, srv *server.Server, id, name string) *page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+srv.HTTPAddr()+"/ws/sessions/"+id, nil)
	must(t, err)
	t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(16 << 20)
	must(t, ws.Write(ctx, websocket.MessageText, []byte(`{"type":"join","name":"`+name+`"}`)))
	p := &page{t: t, ws: ws, msgs: make(chan hub.Message, 1024)}
	go func() {
		defer close(p.msgs)
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			var m hub.Message
			if json.Unmarshal(data, &m) != nil {
				return
			}
			p.msgs <- m
		}
	}()
	p.welcome = p.next()
	if p.welcome.Type != hub.OutWelcome {
		t.Fatalf("%s's first message is %q, want a welcome", name, p.welcome.Type)
	}
	p.rep, _, err = hub.NewReplica(p.welcome.Snapshot, p.welcome.Clock)
	must(t, err)
	p.presence = p.welcome.Presence
	return p
}

// next returns the page's next message.
func (p *page) next() hub.Message {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatal("the page's socket closed")
		}
		return m
	case <-time.After(5 * time.Second):
		p.t.Fatal("the page waited 5 s for a message")
	}
	panic("unreachable")
}

// until reads messages, applying entries and noting presence, until ok
// says the page has seen what the test waits for.
func (p *page) until(what string, ok func(m hub.Message) bool) {
	p.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		var m hub.Message
		select {
		case got, open := <-p.msgs:
			if !open {
				p.t.Fatalf("the page's socket closed waiting for %s", what)
			}
			m = got
		case <-deadline:
			p.t.Fatalf("the page never saw %s", what)
		}
		switch m.Type {
		case hub.OutEntry:
			if _, err := p.rep.Apply(m.Entry); err != nil {
				p.t.Fatal(err)
			}
			p.origins = append(p.origins, m.Entry.Origin.Kind)
		case hub.OutPresence:
			p.presence = m.Presence
		case hub.OutError:
			p.t.Fatalf("the page got an error: %+v", m.Error)
		}
		if ok(m) {
			return
		}
	}
}

// queueDepth is a queue's ready messages in the page's replica.
func (p *page) queueDepth(name string) int {
	for _, q := range p.rep.B.QueueSummaries("/", []string{name}) {
		return q.ReadyCount
	}
	return -1
}

// sessionClock moves a session's clock as a participant's page does,
// through POST /api/sessions/{id}/clock.
func sessionClock(t *testing.T, srv *server.Server, id, body string) string {
	t.Helper()
	status, reply := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions/"+id+"/clock", body, "")
	if status != http.StatusOK {
		t.Fatalf("POST clock %s: %d %s", body, status, reply)
	}
	return string(reply)
}

// TestRealClientsInAManualSession: a real program joins a shared session's
// broker with the session's own login, and the session's clock holds its
// message's TTL until a participant moves it. amqp091-go declares a TTL
// queue that dead-letters into another and publishes with confirms; the
// message waits, 59 s on, still there; the teacher's page steps, and it
// has expired and been dead-lettered, and pika consumes it with the
// x-death RabbitMQ writes. The page watching the session replicates every AMQP action
// (its replica's queues follow, its hash agrees with the session's), and
// lists the clients in its presence. Guest still logs into the server's
// own broker, which knows nothing of the session's queues; a wrong
// password is refused; ending the session closes its clients with 320.
func TestRealClientsInAManualSession(t *testing.T) {
	python := pythonWithPika(t)
	srv := startServerWith(t, server.Options{})
	status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", `{"name":"class","clock":"manual"}`, "")
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	var c sessions.Created
	must(t, json.Unmarshal(body, &c))
	login := c.AMQP
	if login == nil || !strings.HasPrefix(login.User, "session-") || len(login.Password) < 22 || login.Vhost != "/" || login.WebSocket != "/ws/amqp" {
		t.Fatalf("the session's AMQP login: %+v", login)
	}
	_, port, _ := strings.Cut(srv.AMQPAddr(), ":")
	if strconv.Itoa(login.Port) != port {
		t.Fatalf("the login's port %d, the server listens on %s", login.Port, srv.AMQPAddr())
	}
	teacher := joinPage(t, srv, c.ID, "Teacher")
	if teacher.welcome.AMQP == nil || *teacher.welcome.AMQP != *login {
		t.Fatalf("an editor's welcome carries the login %+v, want %+v", teacher.welcome.AMQP, login)
	}
	watcher := joinPage(t, srv, c.ReadOnlyID, "Watcher")
	if watcher.welcome.AMQP != nil {
		t.Fatalf("a read-only welcome carries the AMQP login: %+v", watcher.welcome.AMQP)
	}

	sessionURL := fmt.Sprintf("amqp://%s:%s@%s/%s", login.User, login.Password, srv.AMQPAddr(), url.PathEscape(login.Vhost))
	if _, err := amqp.Dial(fmt.Sprintf("amqp://%s:wrong@%s/", login.User, srv.AMQPAddr())); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a wrong password: %v, want 403 ACCESS_REFUSED", err)
	}
	pub, err := amqp.DialConfig(sessionURL, amqp.Config{Properties: amqp.Table{"connection_name": "orders publisher"}})
	must(t, err)
	closed := pub.NotifyClose(make(chan *amqp.Error, 1))
	teacher.until("the publisher in presence", func(m hub.Message) bool {
		return m.Type == hub.OutPresence && len(m.Presence.Connections) == 1
	})
	if got := teacher.presence.Connections[0]; got.Client != "orders publisher" || got.User != login.User || !strings.HasPrefix(got.Address, "127.0.0.1:") {
		t.Fatalf("the publisher in presence: %+v", got)
	}

	ch, err := pub.Channel()
	must(t, err)
	must(t, ch.Confirm(false))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 1))
	_, err = ch.QueueDeclare("dead", true, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("work", true, false, false, false, amqp.Table{
		"x-message-ttl": int32(60_000), "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"})
	must(t, err)
	must(t, ch.PublishWithContext(context.Background(), "", "work", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("order 42")}))
	if conf := <-confirms; !conf.Ack {
		t.Fatal("the publish was nacked")
	}
	teacher.until("the message in work", func(hub.Message) bool { return teacher.queueDepth("work") == 1 })

	// Guest is the server's own user: its broker has no such queue.
	gc := dial(t, srv)
	gch := channel(t, gc)
	if _, err := gch.QueueDeclarePassive("work", true, false, false, false, nil); amqpErr(t, err).Code != 404 {
		t.Fatalf("guest sees the session's queue: %v", err)
	}

	// The clock is manual: nothing moves until a participant says so.
	sessionClock(t, srv, c.ID, `{"advance":"59s"}`)
	if q, err := ch.QueueDeclarePassive("work", true, false, false, false, nil); err != nil || q.Messages != 1 {
		t.Fatalf("59 s on, work holds %d messages (%v), want the one still waiting", q.Messages, err)
	}
	// The teacher steps, from the page, as the playground's Step does.
	stepCtx, stepCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer stepCancel()
	must(t, teacher.ws.Write(stepCtx, websocket.MessageText, []byte(`{"type":"clock","ref":"step","step":true}`)))
	teacher.until("the step's result", func(m hub.Message) bool { return m.Type == hub.OutResult && m.Ref == "step" })
	if now := teacher.rep.B.Now(); now != 60_000 {
		t.Fatalf("after the step the session's clock is at %d ms, want the TTL's 60000", now)
	}
	if q, err := ch.QueueDeclarePassive("dead", true, false, false, false, nil); err != nil || q.Messages != 1 {
		t.Fatalf("after the step dead holds %d messages (%v), want the expired one", q.Messages, err)
	}
	if teacher.queueDepth("work") != 0 || teacher.queueDepth("dead") != 1 {
		t.Fatalf("the teacher's replica after the step: work %d, dead %d", teacher.queueDepth("work"), teacher.queueDepth("dead"))
	}

	// pika consumes it with the x-death a learner reads.
	out, err := exec.Command(python[0], append(python[1:], filepath.Join(pythonDir, "pika_xdeath.py"), sessionURL, "dead")...).CombinedOutput()
	if err != nil {
		t.Fatalf("pika: %v\n%s", err, out)
	}
	var got struct {
		Body   string           `json:"body"`
		XDeath []map[string]any `json:"x-death"`
	}
	must(t, json.Unmarshal(out, &got))
	if len(got.XDeath) != 1 {
		t.Fatalf("pika got %s", out)
	}
	d := got.XDeath[0]
	if got.Body != "order 42" || d["queue"] != "work" || d["reason"] != "expired" || d["count"] != float64(1) || d["exchange"] != "" || fmt.Sprint(d["routing-keys"]) != "[work]" {
		t.Fatalf("pika got %s", out)
	}
	// x-death's time is the session clock's wall time: a minute after
	// the session began, though only milliseconds have passed.
	if at, _ := d["time"].(float64); time.Unix(int64(at), 0).Before(time.Now().Add(50 * time.Second)) {
		t.Errorf("x-death time %v: want about a minute after the session's start", time.Unix(int64(at), 0))
	}
	teacher.until("pika's ack", func(hub.Message) bool {
		return teacher.queueDepth("dead") == 0 && teacher.rep.B.QueueSummaries("/", []string{"dead"})[0].Unacked == 0
	})
	// pika has gone: its connection left the presence after its last
	// entry, so the page is at the session's latest entry.
	teacher.until("pika leaving", func(m hub.Message) bool { return m.Type == hub.OutPresence && len(m.Presence.Connections) == 1 })

	// Everything the clients did is in the log, and a replica built from
	// it equals the session: the page reports its hash and is not told
	// it diverged (a command's result comes after any such error).
	amqpEntries := 0
	for _, o := range teacher.origins {
		if o == hub.OriginAMQP {
			amqpEntries++
		}
	}
	if amqpEntries < 5 {
		t.Fatalf("the page applied %d entries from AMQP clients (origins %v)", amqpEntries, teacher.origins)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hash := fmt.Sprintf(`{"type":"hash","ref":"h","seq":%d,"hash":"%s"}`, teacher.rep.Seq, hub.FormatHash(teacher.rep.Hash()))
	must(t, teacher.ws.Write(ctx, websocket.MessageText, []byte(hash)))
	must(t, teacher.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"command","ref":"after","line":"show queues"}`)))
	teacher.until("the result after the hash", func(m hub.Message) bool { return m.Type == hub.OutResult && m.Ref == "after" })

	// The session's end reaches its AMQP clients as 320; the server's
	// own broker and guest's connection carry on.
	if status, body := httpDo(t, "DELETE", "http://"+srv.HTTPAddr()+"/api/sessions/"+c.ID, "", ""); status != http.StatusNoContent && status != http.StatusOK {
		t.Fatalf("delete: %d %s", status, body)
	}
	select {
	case e := <-closed:
		if e == nil || e.Code != 320 || !strings.Contains(e.Reason, "CONNECTION_FORCED - the shared session has ended") {
			t.Fatalf("the publisher was closed with %v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the publisher was not closed when its session ended")
	}
	if _, err := channel(t, gc).QueueDeclare("still-here", false, false, false, false, nil); err != nil {
		t.Fatalf("guest's connection after the session ended: %v", err)
	}
	if _, err := amqp.Dial(sessionURL); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("the ended session's login: %v, want 403", err)
	}
}

// TestSessionBytesBlockPublishers: past the session's bytes limit its AMQP
// publishers are blocked as RabbitMQ's memory alarm blocks them: told with
// connection.blocked, their publishes wait (nothing is dropped), and when
// a consumer drains the queue they are unblocked and the waiting publish
// goes through.
func TestSessionBytesBlockPublishers(t *testing.T) {
	srv := startServerWith(t, server.Options{Sessions: sessions.Config{Hub: hub.Config{MaxBytes: 1000}}})
	status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", "", "")
	var c sessions.Created
	if status != http.StatusCreated || json.Unmarshal(body, &c) != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	pub, err := amqp.Dial(fmt.Sprintf("amqp://%s:%s@%s/", c.AMQP.User, c.AMQP.Password, srv.AMQPAddr()))
	must(t, err)
	defer pub.Close()
	blocked := pub.NotifyBlocked(make(chan amqp.Blocking, 4))
	ch := channel(t, pub)
	_, err = ch.QueueDeclare("big", false, false, false, false, nil)
	must(t, err)
	publish(t, ch, "", "big", amqp.Publishing{Body: make([]byte, 1200)})
	// Told when it next publishes; that publish, the last probe, waits
	// while the session is full.
	b, probes := publishUntilBlocked(t, ch, "big", blocked)
	if !b.Active || b.Reason != "low on memory" {
		t.Fatalf("blocked %+v", b)
	}

	cons, err := amqp.Dial(fmt.Sprintf("amqp://%s:%s@%s/", c.AMQP.User, c.AMQP.Password, srv.AMQPAddr()))
	must(t, err)
	defer cons.Close()
	cch := channel(t, cons)
	msgs, err := cch.Consume("big", "", true, false, false, false, nil)
	must(t, err)
	if m := recv(t, msgs); len(m.Body) != 1200 {
		t.Fatalf("the consumer got %d bytes first", len(m.Body))
	}
	select {
	case b := <-blocked:
		if b.Active {
			t.Fatalf("blocked again %+v", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the publisher was not unblocked once the queue drained")
	}
	for i := range probes {
		if m := recv(t, msgs); string(m.Body) != "probe" {
			t.Fatalf("publish %d of %d after the first arrived as %q", i+1, probes, m.Body)
		}
	}
}

// TestDirectReplyToInASession: direct reply-to works inside a session's
// broker as in the server's: its reply addresses are the session's own
// (the server's broker, with its own connection numbers, knows none of
// them).
func TestDirectReplyToInASession(t *testing.T) {
	srv := startServer(t)
	status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", "", "")
	var c sessions.Created
	if status != http.StatusCreated || json.Unmarshal(body, &c) != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	// A connection to the server's broker first, so that connection
	// numbers in the two brokers coincide.
	guestCh := channel(t, dial(t, srv))
	sc, err := amqp.Dial(fmt.Sprintf("amqp://%s:%s@%s/", c.AMQP.User, c.AMQP.Password, srv.AMQPAddr()))
	must(t, err)
	defer sc.Close()
	req, resp := channel(t, sc), channel(t, sc)
	_, err = resp.QueueDeclare("rpc", false, false, false, false, nil)
	must(t, err)
	replies, err := req.Consume("amq.rabbitmq.reply-to", "", true, false, false, false, nil)
	must(t, err)
	publish(t, req, "", "rpc", amqp.Publishing{Body: []byte("ping"), ReplyTo: "amq.rabbitmq.reply-to", CorrelationId: "1"})
	m, ok, err := resp.Get("rpc", true)
	must(t, err)
	if !ok || !strings.HasPrefix(m.ReplyTo, "amq.rabbitmq.reply-to.") {
		t.Fatalf("request reply_to %q ok=%v", m.ReplyTo, ok)
	}
	if _, err := guestCh.QueueDeclarePassive(m.ReplyTo, false, false, false, false, nil); amqpErr(t, err).Code != 404 {
		t.Fatalf("the server's broker knows the session's reply address: %v", err)
	}
	publish(t, resp, "", m.ReplyTo, amqp.Publishing{Body: []byte("pong"), CorrelationId: m.CorrelationId})
	if r := recv(t, replies); string(r.Body) != "pong" || r.CorrelationId != "1" {
		t.Fatalf("reply %q corr %q", r.Body, r.CorrelationId)
	}
}
