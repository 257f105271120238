package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	amqp "github.com/rabbitmq/amqp091-go"

	"warren/engine/hub"
	"warren/server/tcp"
	"warren/wasm/worker/amqpsocket"
)

// memKeeper is a Durable Object's storage in a test: the latest snapshot,
// the entries after it and the State, each kept as JSON as storage would
// keep it.
type memKeeper struct {
	mu      sync.Mutex
	snap    []byte
	entries [][]byte
	state   []byte
	seq     uint64 // the snapshot's
}

func (k *memKeeper) Keep(entries []hub.Entry, st *hub.State, snap *hub.Snapshot) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if snap != nil {
		k.snap, _ = json.Marshal(hub.Snapshot{Seq: snap.Seq, State: snap.State})
		k.seq = snap.Seq
		var kept [][]byte
		for _, data := range k.entries {
			var e hub.Entry
			json.Unmarshal(data, &e)
			if e.Seq > snap.Seq {
				kept = append(kept, data)
			}
		}
		k.entries = kept
	}
	for i := range entries {
		if entries[i].Seq > k.seq {
			data, _ := json.Marshal(&entries[i])
			k.entries = append(k.entries, data)
		}
	}
	if st != nil {
		k.state, _ = json.Marshal(st)
	}
}

// load reads back what was stored, as a woken object does.
func (k *memKeeper) load(t *testing.T) (*hub.Snapshot, hub.State) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	var snap hub.Snapshot
	var st hub.State
	if json.Unmarshal(k.snap, &snap) != nil || json.Unmarshal(k.state, &st) != nil {
		t.Fatal("nothing stored")
	}
	for _, data := range k.entries {
		var e hub.Entry
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatal(err)
		}
		snap.Entries = append(snap.Entries, e)
	}
	return &snap, st
}

// hostPage is a page on a Host: its peer pumped into a channel.
type hostPage struct {
	p    *Peer
	msgs chan hub.Message
}

func openHostPage(t *testing.T, h *Host, id, name string) *hostPage {
	t.Helper()
	p, err := h.OpenPage(id)
	if err != nil {
		t.Fatal(err)
	}
	hp := pumpHostPage(p)
	data, _ := json.Marshal(map[string]string{"type": "join", "name": name})
	p.Receive(data)
	return hp
}

// pumpHostPage pumps what the session sends p into a channel, as a
// driver pumps it into a socket.
func pumpHostPage(p *Peer) *hostPage {
	hp := &hostPage{p: p, msgs: make(chan hub.Message, 256)}
	go p.Pump(func(data []byte) bool {
		var m hub.Message
		json.Unmarshal(data, &m)
		hp.msgs <- m
		return true
	}, func(websocket.StatusCode, string) { close(hp.msgs) })
	return hp
}

func (hp *hostPage) next(t *testing.T, typ string) hub.Message {
	t.Helper()
	for {
		select {
		case m, ok := <-hp.msgs:
			if !ok {
				t.Fatalf("the page's socket closed waiting for %s", typ)
			}
			if m.Type == typ {
				return m
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s within 5 s", typ)
		}
	}
}

// TestHostSurvivesEviction is a Durable Object's life in one test: a live
// session hosted with a Keeper and an alarm, a page and a real AMQP client
// (amqp091-go over an in-memory pipe, through the same connection state
// machine as warren serve) that publishes a message with a short TTL; the
// alarm is asked for the TTL's time. Then the object's memory goes (the
// host is dropped without a word to its Keeper) and, woken by its alarm
// after the TTL, it restores from what was stored: the message has
// expired into the dead-letter queue with nobody connected, and a page
// that joins the restored session replicates it.
func TestHostSurvivesEviction(t *testing.T) {
	keeper := &memKeeper{}
	wakes := make(chan int64, 64)
	login := &hub.AMQPLogin{User: "session-0123456789ab", Password: "secret-of-22-characters", Vhost: "/"}
	created := time.Now().UnixMilli()
	hosted := Hosted{ID: "editor-id", ReadOnlyID: "read-only-id", Name: "class", CreatedMs: created, Login: login, Keeper: keeper,
		Wake: func(at int64, ok bool) {
			if ok {
				wakes <- at
			}
		}}
	cfg := Config{Hub: hub.Config{SnapshotEvery: 4}}
	h, err := NewHost(cfg, hosted, hub.Live, []string{"declare queue dead", "declare queue jobs ttl=150ms dlx= dlrk=dead"})
	if err != nil {
		t.Fatal(err)
	}
	page := openHostPage(t, h, "editor-id", "Ada")
	if w := page.next(t, hub.OutWelcome); w.AMQP == nil || w.AMQP.User != login.User {
		t.Fatalf("the editor's welcome: %+v", w.AMQP)
	}
	if _, err := h.OpenPage("nope"); err != ErrUnknownID {
		t.Fatalf("an unknown id: %v", err)
	}

	client, server := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.ServeAMQP(ctx, tcp.New(server))
	ac, err := amqp.Open(client, amqp.Config{SASL: []amqp.Authentication{&amqp.PlainAuth{Username: login.User, Password: login.Password}}, Vhost: "/"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ac.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 1))
	if err := ch.PublishWithContext(ctx, "", "jobs", false, false, amqp.Publishing{Body: []byte("order 42")}); err != nil {
		t.Fatal(err)
	}
	if c := <-confirms; !c.Ack {
		t.Fatal("nacked")
	}
	var alarm int64
	for alarm == 0 || alarm > created+60_000 { // the idle expiry comes first, then the TTL's time
		select {
		case alarm = <-wakes:
		case <-time.After(5 * time.Second):
			t.Fatal("the alarm was never asked for the TTL's time")
		}
	}

	// The object's memory goes: nothing more reaches its storage.
	h.s.call(func(int64) { h.s.keeping.k, h.s.wake = nil, nil })
	h.Close()
	ac.Close()

	time.Sleep(time.Until(time.UnixMilli(alarm)))
	snap, st := keeper.load(t)
	r, err := RestoreHost(cfg, hosted, snap, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bo := openHostPage(t, r, "read-only-id", "Bo")
	w := bo.next(t, hub.OutWelcome)
	if w.AMQP != nil {
		t.Fatal("a read-only welcome carries the login")
	}
	rep, _, err := hub.NewReplica(w.Snapshot, w.Clock)
	if err != nil {
		t.Fatal(err)
	}
	qs := rep.B.QueueSummaries("/", []string{"dead", "jobs"})
	if len(qs) != 2 || qs[0].ReadyCount != 1 || qs[1].ReadyCount != 0 {
		t.Fatalf("after the wake: %+v", qs)
	}
	var want uint64
	r.s.call(func(int64) { want = hub.HashState(r.s.hub.Broker()) })
	if got := hub.HashState(rep.B); got != want {
		t.Fatalf("the joiner's replica hash %x, the session's %x", got, want)
	}
}

// messagesClient is a client's end of a amqpsocket.Messages socket, as the
// edge's Durable Object carries it: each Write is delivered as two
// messages split mid-frame (a WebSocket client may split frames across
// messages), and the frames the server sends arrive as the stream read.
type messagesClient struct {
	t      *amqpsocket.Messages
	r      *io.PipeReader
	w      *io.PipeWriter
	closed chan int // the close code the server sent
}

func newMessagesClient() *messagesClient {
	c := &messagesClient{closed: make(chan int, 1)}
	c.r, c.w = io.Pipe()
	c.t = amqpsocket.NewMessages("203.0.113.7:5000", func(frame []byte) error {
		_, err := c.w.Write(frame)
		return err
	}, func(code int, _ string) {
		c.closed <- code
		c.w.Close()
	})
	return c
}

func (c *messagesClient) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *messagesClient) Write(p []byte) (int, error) {
	half := len(p) / 2
	c.t.Deliver(p[:half])
	c.t.Deliver(p[half:])
	return len(p), nil
}

func (c *messagesClient) Close() error {
	c.t.Closed()
	return nil
}

// TestHostAMQPOverMessages: an AMQP client whose socket the driver holds
// (amqpsocket.Messages, frames split across messages) logs in with the
// session's login, declares and publishes with a confirm, and is listed
// in presence with its address; a wrong password is refused.
func TestHostAMQPOverMessages(t *testing.T) {
	login := &hub.AMQPLogin{User: "session-aaaaaaaaaaaa", Password: "pw-pw-pw-pw-pw-pw-pw-pw", Vhost: "/"}
	h, err := NewHost(Config{}, Hosted{ID: "e", ReadOnlyID: "r", CreatedMs: time.Now().UnixMilli(), Login: login}, hub.Manual, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	page := openHostPage(t, h, "e", "Ada")
	page.next(t, hub.OutWelcome)

	bad := newMessagesClient()
	go h.ServeAMQP(context.Background(), bad.t)
	if _, err := amqp.Open(bad, amqp.Config{SASL: []amqp.Authentication{&amqp.PlainAuth{Username: login.User, Password: "nope"}}}); err == nil {
		t.Fatal("a wrong password logged in")
	}

	c := newMessagesClient()
	go h.ServeAMQP(context.Background(), c.t)
	ac, err := amqp.Open(c, amqp.Config{SASL: []amqp.Authentication{&amqp.PlainAuth{Username: login.User, Password: login.Password}}, Vhost: "/",
		Properties: amqp.Table{"connection_name": "edge client"}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ac.Channel()
	if err != nil {
		t.Fatal(err)
	}
	ch.Confirm(false)
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, 1))
	if _, err := ch.QueueDeclare("q", false, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.PublishWithContext(context.Background(), "", "q", false, false, amqp.Publishing{Body: make([]byte, 20_000)}); err != nil {
		t.Fatal(err)
	}
	if conf := <-confirms; !conf.Ack {
		t.Fatal("nacked")
	}
	for {
		m := page.next(t, hub.OutPresence)
		if len(m.Presence.Connections) == 1 {
			if got := m.Presence.Connections[0]; got.Client != "edge client" || got.Address != "203.0.113.7:5000" {
				t.Fatalf("presence %+v", got)
			}
			break
		}
	}
	ac.Close()
	if code := <-c.closed; code != 1000 {
		t.Fatalf("the socket closed with %d", code)
	}
}

// TestHostAdoptsHibernatedPages: a page whose socket outlived the host's
// memory (a Durable Object's hibernated WebSocket) is adopted by the
// restored session as the participant it was, with its script context:
// its "ack last" acks the delivery its consumer got before; a
// participant whose socket did not survive leaves, and the adopted page
// hears of that, though it came before the adoption.
func TestHostAdoptsHibernatedPages(t *testing.T) {
	keeper := &memKeeper{}
	hosted := Hosted{ID: "e", ReadOnlyID: "r", CreatedMs: time.Now().UnixMilli(), Keeper: keeper}
	h, err := NewHost(Config{}, hosted, hub.Manual, nil)
	if err != nil {
		t.Fatal(err)
	}
	ada := openHostPage(t, h, "e", "Ada")
	you := ada.next(t, hub.OutWelcome).You
	bo := openHostPage(t, h, "e", "Bo")
	bo.next(t, hub.OutWelcome)
	for i, line := range []string{"declare queue jobs", "publish jobs one", "publish jobs two", "consume jobs prefetch=1"} {
		data, _ := json.Marshal(map[string]string{"type": "command", "ref": fmt.Sprint(i), "line": line})
		ada.p.Receive(data)
		for m := ada.next(t, hub.OutResult); m.Ref != fmt.Sprint(i); m = ada.next(t, hub.OutResult) {
		}
	}
	var last uint64
	h.s.call(func(int64) { h.s.keeping.k, last = nil, h.s.hub.Seq() })
	h.Close()

	snap, st := keeper.load(t)
	r, err := RestoreHost(Config{}, hosted, snap, st, []hub.ParticipantID{you.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.AdoptPage(you.ID + 1); err != ErrUnknownID {
		t.Fatalf("adopting Bo, who left: %v", err)
	}
	p, err := r.AdoptPage(you.ID)
	if err != nil {
		t.Fatal(err)
	}
	again := pumpHostPage(p)
	// Bo's leave came before Ada's page was adopted: its presence reaches
	// her all the same.
	if m := again.next(t, hub.OutPresence); len(m.Presence.Participants) != 1 {
		t.Fatalf("the adopted page's presence: %+v", m.Presence.Participants)
	}
	p.Receive([]byte(`{"type":"command","ref":"ack","line":"ack last"}`))
	if m := again.next(t, hub.OutEntry); m.Entry.Seq != last+1 {
		t.Fatalf("the adopted page's first entry after the restore is %d, want %d", m.Entry.Seq, last+1)
	}
	if m := again.next(t, hub.OutResult); m.Result.Error != nil {
		t.Fatalf("ack last after the restore: %+v", m.Result.Error)
	}
	p.Receive([]byte(`{"type":"command","ref":"x","line":"expect queue jobs ready=0 unacked=1"}`))
	if m := again.next(t, hub.OutResult); m.Result.Error != nil {
		t.Fatalf("after the ack: %s", m.Result.Error.Text)
	}
	var names []string
	r.s.call(func(int64) {
		for _, q := range r.s.hub.Presence().Participants {
			names = append(names, q.Name)
		}
	})
	if fmt.Sprint(names) != "[Ada]" {
		t.Fatalf("presence after the restore: %v", names)
	}
}
