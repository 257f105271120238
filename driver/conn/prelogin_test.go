package conn

import (
	"testing"
	gosynctest "testing/synctest"
	"time"

	"warren/engine/amqp"
	"warren/server/broker"
)

// TestFramesBeforeOpenAreUnexpected: before connection.open completes only
// channel 0 may carry frames. Anything on another channel is connection
// error 505 with rabbit_reader's text, at its first frame, so a client that
// has not logged in cannot make the server assemble a message.
func TestFramesBeforeOpenAreUnexpected(t *testing.T) {
	publish, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "q"})
	for _, tc := range []struct {
		name     string
		loggedIn bool // start-ok and tune-ok sent first
		frame    []byte
		want     string
	}{
		{"channel.open", false, amqp.AppendFrame(nil, amqp.FrameMethod, 1, []byte{0, 20, 0, 10, 0}),
			"UNEXPECTED_FRAME - type 1, all octets = <<0,20,0,10,0>>"},
		{"publish after login", true, publish,
			"UNEXPECTED_FRAME - type 1, all octets = <<0,60,0,40,0,0,0,1,113,0>>"},
		{"body", false, amqp.AppendFrame(nil, amqp.FrameBody, 7, []byte("0123456789abcdefXYZ")),
			`UNEXPECTED_FRAME - type 3, first 16 octets = <<"0123456789abcdef">>`},
		{"heartbeat", false, amqp.AppendFrame(nil, amqp.FrameHeartbeat, 1, nil),
			"UNEXPECTED_FRAME - type 8, all octets = <<>>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				c := startPipe(t, b, Config{})
				c.send(amqp.ProtocolHeader[:])
				c.expect(&amqp.ConnectionStart{})
				if tc.loggedIn {
					c.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
					c.expect(&amqp.ConnectionTune{})
					c.method(0, &amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072})
				}
				c.send(tc.frame)
				cl := c.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
				if cl.ReplyCode != 505 || cl.ReplyText != tc.want || cl.FailingClassID != 0 || cl.FailingMethodID != 0 {
					t.Fatalf("close %+v, want 505 %q", cl, tc.want)
				}
			})
		})
	}
}

// TestTuneBeforeLoginRefused: tune-ok or open before a successful
// start-ok is rabbit_reader's "unexpected method in connection state
// starting", so a client that has not logged in cannot raise frame_max
// above 4096.
func TestTuneBeforeLoginRefused(t *testing.T) {
	for _, m := range []amqp.Method{&amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 1 << 30}, &amqp.ConnectionOpen{VirtualHost: "/"}} {
		t.Run(m.Name(), func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				c := startPipe(t, b, Config{})
				c.send(amqp.ProtocolHeader[:])
				c.expect(&amqp.ConnectionStart{})
				c.method(0, m)
				cl := c.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
				if cl.ReplyCode != 504 || cl.ReplyText != "CHANNEL_ERROR - unexpected method in connection state starting" ||
					cl.FailingClassID != m.ClassID() || cl.FailingMethodID != m.MethodID() {
					t.Fatalf("close %+v", cl)
				}
			})
		})
	}
}

// TestConnectionLimitCountsLoggedIn: MaxConnections is RabbitMQ's
// connection_max for connections that have logged in and opened; a
// connection.open past it gets 530 with the text of RabbitMQ 3.11 and
// later, which check it at connection.open. (RabbitMQ 3.10.8 hands
// connection_max to its listener, ranch, as max_connections: it counts
// every accepted socket and stops accepting at the limit, so sockets that
// never log in lock everyone out; Warren bounds those apart, in
// driver/addrlimit.) A socket that has not logged in takes no place, and
// a place frees when its connection goes.
func TestConnectionLimitCountsLoggedIn(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		cfg := Config{MaxConnections: 1}
		cfg.Defaults() // share one counter between the connections
		anon := startPipe(t, b, cfg)
		anon.send(amqp.ProtocolHeader[:])
		anon.expect(&amqp.ConnectionStart{})

		first := startPipe(t, b, cfg)
		first.handshake(0) // the anonymous socket left it the place

		refused := startPipe(t, b, cfg)
		refused.send(amqp.ProtocolHeader[:])
		refused.expect(&amqp.ConnectionStart{})
		refused.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
		refused.expect(&amqp.ConnectionTune{})
		refused.method(0, &amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072})
		refused.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
		cl := refused.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
		if cl.ReplyCode != 530 || cl.ReplyText != "NOT_ALLOWED - connection refused: node connection limit (1) is reached" ||
			cl.FailingClassID != 10 || cl.FailingMethodID != 40 {
			t.Fatalf("close %+v", cl)
		}
		refused.method(0, &amqp.ConnectionCloseOk{})
		first.nc.Close()
		gosynctest.Wait() // the server sees the first connection end

		c := startPipe(t, b, cfg)
		c.handshake(0)
	})
}

// TestHandshakeTimeout: a connection that has not completed
// connection.open HandshakeTimeout after its socket opened is dropped with
// nothing sent, whatever stage it reached. Observed, RabbitMQ 3.10.8
// (handshake_timeout 10000): after nothing, after "AMQ", after the protocol
// header (connection.start sent), after start-ok (connection.tune sent)
// and after tune-ok, the socket was reset 10.00 s after it opened, with no
// connection.close. Virtual time: the test does not wait.
func TestHandshakeTimeout(t *testing.T) {
	startOk := &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"}
	for _, tc := range []struct {
		name    string
		timeout time.Duration // 0: the default, RabbitMQ's 10 s
		steps   func(c *client)
	}{
		{"nothing", 0, func(c *client) {}},
		{"partial header", 0, func(c *client) { c.send([]byte("AMQ")) }},
		{"header", 0, func(c *client) {
			c.send(amqp.ProtocolHeader[:])
			c.expect(&amqp.ConnectionStart{})
		}},
		{"start-ok", 0, func(c *client) {
			c.send(amqp.ProtocolHeader[:])
			c.expect(&amqp.ConnectionStart{})
			c.method(0, startOk)
			c.expect(&amqp.ConnectionTune{})
		}},
		{"tune-ok", 0, func(c *client) {
			c.send(amqp.ProtocolHeader[:])
			c.expect(&amqp.ConnectionStart{})
			time.Sleep(4 * time.Second) // the time counts from the socket, not from a stage
			c.method(0, startOk)
			c.expect(&amqp.ConnectionTune{})
			c.method(0, &amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072, Heartbeat: 5})
		}},
		{"--handshake-timeout 3s", 3 * time.Second, func(c *client) { c.send([]byte("AMQP")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				began := time.Now()
				c := startPipe(t, b, Config{HandshakeTimeout: tc.timeout})
				tc.steps(c)
				if cmd, ok := c.recv(); ok {
					t.Fatalf("got %v, want the connection dropped with nothing sent", cmd.Method)
				}
				want := tc.timeout
				if want == 0 {
					want = 10 * time.Second
				}
				if d := time.Since(began); d != want {
					t.Fatalf("dropped after %v, want %v", d, want)
				}
			})
		})
	}
}
