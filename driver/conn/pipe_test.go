package conn

import (
	"context"
	"net"
	"testing"
	gosynctest "testing/synctest"
	"time"

	"warren/engine/amqp"
	"warren/server/auth"
	"warren/server/broker"
)

// pipeTransport runs a connection over net.Pipe, so tests can run in a
// synctest bubble with virtual time and speak raw frames.
type pipeTransport struct{ net.Conn }

func (p pipeTransport) WriteFrames(frames [][]byte) error {
	for _, f := range frames {
		if _, err := p.Conn.Write(f); err != nil {
			return err
		}
	}
	return nil
}

type loopAddr struct{}

func (loopAddr) Network() string { return "pipe" }
func (loopAddr) String() string  { return "127.0.0.1:1" }

func (p pipeTransport) RemoteAddr() net.Addr { return loopAddr{} }

func (p pipeTransport) LocalAddr() net.Addr { return loopAddr{} }

// client is the raw-frame side of a pipe connection.
type client struct {
	t  testing.TB
	nc net.Conn
	fr *amqp.FrameReader
	as *amqp.Assembler
}

func startPipe(t testing.TB, b *broker.Broker, cfg Config) *client {
	return startPipeOn(t, b, cfg, func(p pipeTransport) Transport { return p })
}

// startPipeOn is startPipe with the connection served on the transport
// wrap makes of the pipe's server end.
func startPipeOn(t testing.TB, b *broker.Broker, cfg Config, wrap func(pipeTransport) Transport) *client {
	// Several pipes may share a broker: the first gives it its default
	// user, the others mirror what it has.
	users, err := auth.Mirror(b)
	if _, ok := users.User("guest"); err == nil && !ok {
		err = users.AddDefaultUser()
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg.Broker, cfg.Users = b, users
	cfg.Defaults()
	server, clientEnd := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Serve(context.Background(), wrap(pipeTransport{server}), &cfg)
	}()
	t.Cleanup(func() {
		clientEnd.Close()
		<-done
	})
	return &client{t: t, nc: clientEnd, fr: amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: 1 << 20}),
		as: amqp.NewAssembler(amqp.AssemblerConfig{})}
}

func (c *client) send(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) method(ch uint16, m amqp.Method) {
	c.t.Helper()
	b, err := amqp.AppendMethodFrame(nil, ch, m)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(b)
}

// recv reads the next command from the server; ok is false on EOF.
func (c *client) recv() (amqp.Command, bool) {
	c.t.Helper()
	buf := make([]byte, 4096)
	for {
		f, ok, err := c.fr.Next()
		if err != nil {
			c.t.Fatalf("server sent bad frames: %v", err)
		}
		if ok {
			if f.Type == amqp.FrameHeartbeat {
				return amqp.Command{}, true
			}
			cmd, done, err := c.as.Add(f)
			if err != nil {
				c.t.Fatal(err)
			}
			if done {
				return cmd, true
			}
			continue
		}
		n, err := c.nc.Read(buf)
		if n > 0 {
			c.fr.Feed(append([]byte(nil), buf[:n]...))
			continue
		}
		if err != nil {
			return amqp.Command{}, false
		}
	}
}

func (c *client) expect(want amqp.Method) amqp.Command {
	c.t.Helper()
	cmd, ok := c.recv()
	if !ok {
		c.t.Fatalf("connection closed, want %s", want.Name())
	}
	if cmd.Method == nil || cmd.Method.Name() != want.Name() {
		c.t.Fatalf("got %v, want %s", cmd.Method, want.Name())
	}
	return cmd
}

// handshake opens a connection with PLAIN guest/guest and the given
// heartbeat, taking the channel_max and frame_max the server proposes, as
// clients do.
func (c *client) handshake(heartbeat uint16) {
	c.send(amqp.ProtocolHeader[:])
	c.expect(&amqp.ConnectionStart{})
	c.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
	tune := c.expect(&amqp.ConnectionTune{}).Method.(*amqp.ConnectionTune)
	c.method(0, &amqp.ConnectionTuneOk{ChannelMax: tune.ChannelMax, FrameMax: tune.FrameMax, Heartbeat: heartbeat})
	c.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
	c.expect(&amqp.ConnectionOpenOk{})
}

func TestBadProtocolHeaderGetsOurs(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.send([]byte("AMQP\x00\x00\x08\x00"))
		got := make([]byte, 8)
		n, _ := readFull(c.nc, got)
		if string(got[:n]) != "AMQP\x00\x00\x09\x01" {
			t.Fatalf("got %q", got[:n])
		}
	})
}

func TestWrongPasswordRefused(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.send(amqp.ProtocolHeader[:])
		c.expect(&amqp.ConnectionStart{})
		c.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00wrong", Locale: "en_US"})
		cmd := c.expect(&amqp.ConnectionClose{})
		cl := cmd.Method.(*amqp.ConnectionClose)
		if cl.ReplyCode != 403 || cl.ReplyText != "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN. For details see the broker logfile." {
			t.Fatalf("close %+v", cl)
		}
	})
}

// TestMissedHeartbeatsClose: with heartbeat 1 s negotiated and a silent
// client, the server sends heartbeats and closes the socket after two
// intervals without hearing from the client.
func TestMissedHeartbeatsClose(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(1)
		start := time.Now()
		heartbeats := 0
		for {
			cmd, ok := c.recv()
			if !ok {
				break
			}
			if cmd.Method == nil {
				heartbeats++
			}
		}
		if heartbeats == 0 {
			t.Fatal("server sent no heartbeats")
		}
		if d := time.Since(start); d < 2*time.Second || d > 3*time.Second {
			t.Fatalf("closed after %v, want about 2 s", d)
		}
	})
}

// TestMalformedFrameClosesOnlyThatConnection: a frame with a bad end octet
// gets connection.close 501, and another connection keeps working.
func TestMalformedFrameClosesOnlyThatConnection(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		bad := startPipe(t, b, Config{})
		good := startPipe(t, b, Config{})
		bad.handshake(0)
		good.handshake(0)
		frame := amqp.AppendFrame(nil, amqp.FrameMethod, 1, []byte{0, 20, 0, 10, 0})
		frame[len(frame)-1] = 0x00
		bad.send(frame)
		cmd := bad.expect(&amqp.ConnectionClose{})
		if code := cmd.Method.(*amqp.ConnectionClose).ReplyCode; code != 501 {
			t.Fatalf("close code %d, want 501", code)
		}
		good.method(1, &amqp.ChannelOpen{})
		good.expect(&amqp.ChannelOpenOk{})
		good.method(1, &amqp.QueueDeclare{Queue: "still-here"})
		good.expect(&amqp.QueueDeclareOk{})
	})
}

// TestChannelErrorThenCloseOk: a 404 closes only the channel; frames on it
// are ignored until the client's close-ok, after which it can be reopened.
func TestChannelErrorThenCloseOk(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "nope", Passive: true})
		cl := c.expect(&amqp.ChannelClose{}).Method.(*amqp.ChannelClose)
		if cl.ReplyCode != 404 || cl.ReplyText != "NOT_FOUND - no queue 'nope' in vhost '/'" || cl.FailingClassID != 50 || cl.FailingMethodID != 10 {
			t.Fatalf("close %+v", cl)
		}
		c.method(1, &amqp.QueueDeclare{Queue: "ignored"}) // discarded until close-ok
		c.method(1, &amqp.ChannelCloseOk{})
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "after"})
		ok := c.expect(&amqp.QueueDeclareOk{}).Method.(*amqp.QueueDeclareOk)
		if ok.Queue != "after" {
			t.Fatalf("declare-ok for %q", ok.Queue)
		}
	})
}

func readFull(nc net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := nc.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestConnectionLimit: past MaxConnections, connection.open gets 530.
func TestConnectionLimit(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		cfg := Config{MaxConnections: 1}
		cfg.Defaults() // share one counter between both connections
		first := startPipe(t, b, cfg)
		first.handshake(0)
		second := startPipe(t, b, cfg)
		second.send(amqp.ProtocolHeader[:])
		second.expect(&amqp.ConnectionStart{})
		second.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
		second.expect(&amqp.ConnectionTune{})
		second.method(0, &amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072})
		second.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
		cl := second.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
		if cl.ReplyCode != 530 || cl.ReplyText != "NOT_ALLOWED - connection refused: node connection limit (1) is reached" {
			t.Fatalf("close %+v", cl)
		}
	})
}

// TestChannelMaxEnforced: a channel.open past the negotiated channel_max
// is connection error 530.
func TestChannelMaxEnforced(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{ChannelMax: 1})
		c.handshake(0)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(2, &amqp.ChannelOpen{})
		cl := c.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
		if cl.ReplyCode != 530 || cl.ReplyText != "NOT_ALLOWED - number of channels opened (1) has reached the negotiated channel_max (1)" {
			t.Fatalf("close %+v", cl)
		}
	})
}

// TestSlowConsumerDoesNotBlockOthers: a consumer that stops reading its
// socket gets its deliveries paused once its outbox passes the high-water
// mark; the broker and another connection carry on, and the slow
// consumer's remaining messages wait ready in the queue.
func TestSlowConsumerDoesNotBlockOthers(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		cfg := Config{OutboxHighWater: 64 << 10}
		slow := startPipe(t, b, cfg)
		slow.handshake(0)
		slow.method(1, &amqp.ChannelOpen{})
		slow.expect(&amqp.ChannelOpenOk{})
		slow.method(1, &amqp.QueueDeclare{Queue: "backlog"})
		slow.expect(&amqp.QueueDeclareOk{})
		slow.method(1, &amqp.BasicConsume{Queue: "backlog", NoAck: true})
		slow.expect(&amqp.BasicConsumeOk{})
		// From here on the slow client reads nothing.

		fast := startPipe(t, b, cfg)
		fast.handshake(0)
		fast.method(1, &amqp.ChannelOpen{})
		fast.expect(&amqp.ChannelOpenOk{})
		// 500 messages of 1 KB in ten bursts. After each, every goroutine
		// settles (gosynctest.Wait), so the slow connection's owner has
		// run: back-pressure is decided there, by a command of its own,
		// and a publisher whose bursts all arrive before that goroutine
		// is scheduled would fill the outbox past the mark, which the
		// test would then see as no back-pressure at all.
		body := make([]byte, 1024)
		for range 10 {
			var frames []byte
			for range 50 {
				m, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "backlog"})
				frames = append(frames, m...)
				frames, _ = amqp.AppendContent(frames, 1, amqp.ClassBasic, amqp.Properties{}, body, 131072)
			}
			fast.send(frames)
			gosynctest.Wait()
		}
		fast.method(1, &amqp.QueueDeclare{Queue: "other"})
		fast.expect(&amqp.QueueDeclareOk{})
		for i := 0; i < 100; i++ {
			m, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "other"})
			m, _ = amqp.AppendContent(m, 1, amqp.ClassBasic, amqp.Properties{}, []byte("x"), 131072)
			fast.send(m)
		}
		fast.method(1, &amqp.BasicGet{Queue: "other", NoAck: true})
		ok := fast.expect(&amqp.BasicGetOk{}).Method.(*amqp.BasicGetOk)
		if ok.MessageCount != 99 {
			t.Fatalf("other queue: %d left after one get, want 99", ok.MessageCount)
		}
		var ready int
		for _, q := range b.Reader(nil).QueueSummaries("/", []string{"backlog"}) {
			ready = q.ReadyCount
		}
		if ready == 0 {
			t.Fatal("every backlog message was handed to the stalled consumer: no back-pressure")
		}
	})
}
