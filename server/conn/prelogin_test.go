package conn

import (
	"testing"
	gosynctest "testing/synctest"

	"warren/server/amqp"
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

// TestConnectionLimitCountsUnauthenticated: like RabbitMQ's connection_max,
// the limit counts every accepted socket, logged in or not; the
// connection.open that finds the count past it is refused, and the slot
// frees when the anonymous socket goes.
func TestConnectionLimitCountsUnauthenticated(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		cfg := Config{MaxConnections: 1}
		cfg.Defaults() // share one counter between the connections
		anon := startPipe(t, b, cfg)
		anon.send(amqp.ProtocolHeader[:])
		anon.expect(&amqp.ConnectionStart{})

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
		anon.nc.Close()
		gosynctest.Wait() // both servers see their sockets end

		c := startPipe(t, b, cfg)
		c.handshake(0)
	})
}
