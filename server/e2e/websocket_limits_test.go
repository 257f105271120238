package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"
	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/conn"
	wire "warren/engine/amqp"
	"warren/server"
)

// wsClient speaks raw AMQP frames over the server's /amqp WebSocket: each
// send is one WebSocket message.
type wsClient struct {
	t  *testing.T
	ws *websocket.Conn
	fr *wire.FrameReader
	as *wire.Assembler
}

func dialWebSocket(t *testing.T, srv *server.Server) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+srv.HTTPAddr()+"/amqp", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	return &wsClient{t: t, ws: ws, fr: wire.NewFrameReader(wire.ReaderConfig{NoProtocolHeader: true, FrameMax: 1 << 20}),
		as: wire.NewAssembler(wire.AssemblerConfig{})}
}

func (c *wsClient) send(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageBinary, b)
}

func (c *wsClient) method(ch uint16, m wire.Method) []byte {
	c.t.Helper()
	b, err := wire.AppendMethodFrame(nil, ch, m)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

// next returns the server's next command, or the error that ended the
// connection.
func (c *wsClient) next() (wire.Command, error) {
	for {
		f, ok, err := c.fr.Next()
		if err != nil {
			c.t.Fatalf("server sent bad frames: %v", err)
		}
		if ok {
			cmd, done, err := c.as.Add(f)
			if err != nil {
				c.t.Fatal(err)
			}
			if done {
				return cmd, nil
			}
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, data, err := c.ws.Read(ctx)
		cancel()
		if err != nil {
			return wire.Command{}, err
		}
		c.fr.Feed(data)
	}
}

func (c *wsClient) expect(want wire.Method) wire.Command {
	c.t.Helper()
	cmd, err := c.next()
	if err != nil {
		c.t.Fatalf("want %s: %v", want.Name(), err)
	}
	if cmd.Method.Name() != want.Name() {
		c.t.Fatalf("got %s, want %s", cmd.Method.Name(), want.Name())
	}
	return cmd
}

// expectTooBig reads until the server closes the WebSocket and checks it
// closed with 1009, message too big.
func (c *wsClient) expectTooBig() {
	c.t.Helper()
	for {
		cmd, err := c.next()
		if err == nil {
			c.t.Fatalf("got %s, want the WebSocket closed", cmd.Method.Name())
		}
		if s := websocket.CloseStatus(err); s != websocket.StatusMessageTooBig {
			c.t.Fatalf("closed with %v (%v), want 1009 message too big", s, err)
		}
		return
	}
}

// heartbeats is n heartbeat frames: 8 bytes each, harmless on channel 0.
func heartbeats(n int) []byte {
	var b []byte
	for range n {
		b = wire.AppendFrame(b, wire.FrameHeartbeat, 0, nil)
	}
	return b
}

// TestWebSocketMessageBoundBeforeLogin: before connection.tune-ok a client
// message may hold at most 4096+8 bytes (one frame of the pre-tune
// frame-max, RabbitMQ's minimum); a longer one ends the connection with
// WebSocket close 1009 once its first 4105 bytes are in, whatever length it
// announced, instead of being read whole.
func TestWebSocketMessageBoundBeforeLogin(t *testing.T) {
	srv := startServer(t)
	c := dialWebSocket(t, srv)
	must(t, c.send(wire.ProtocolHeader[:]))
	c.expect(&wire.ConnectionStart{})
	must(t, c.send(heartbeats(4104/8))) // exactly at the bound: fine
	must(t, c.send(heartbeats(4104/8+1)))
	c.expectTooBig()
}

// TestWebSocketMessageBoundAfterLogin: once logged in and tuned, a message
// may carry the largest publish (method, header and a body of the largest
// message size in frames of the negotiated frame-max), which is how
// @cloudamqp/amqp-client sends a publish; a message holding more is closed
// with 1009.
func TestWebSocketMessageBoundAfterLogin(t *testing.T) {
	const maxBody = 100_000
	srv := startServerWith(t, server.Options{Conn: conn.Config{MaxMessageSize: maxBody}})
	c := dialWebSocket(t, srv)
	must(t, c.send(wire.ProtocolHeader[:]))
	c.expect(&wire.ConnectionStart{})
	must(t, c.send(c.method(0, &wire.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})))
	c.expect(&wire.ConnectionTune{})
	open := append(c.method(0, &wire.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 8192}), c.method(0, &wire.ConnectionOpen{VirtualHost: "/"})...)
	open = append(open, c.method(1, &wire.ChannelOpen{})...)
	must(t, c.send(open))
	c.expect(&wire.ConnectionOpenOk{})
	c.expect(&wire.ChannelOpenOk{})
	must(t, c.send(c.method(1, &wire.QueueDeclare{Queue: "ws-big"})))
	c.expect(&wire.QueueDeclareOk{})

	pub := c.method(1, &wire.BasicPublish{RoutingKey: "ws-big"})
	pub, err := wire.AppendContent(pub, 1, wire.ClassBasic, wire.Properties{}, make([]byte, maxBody), 8192)
	must(t, err)
	must(t, c.send(pub))
	must(t, c.send(c.method(1, &wire.QueueDeclare{Queue: "ws-big", Passive: true})))
	if ok := c.expect(&wire.QueueDeclareOk{}).Method.(*wire.QueueDeclareOk); ok.MessageCount != 1 {
		t.Fatalf("%d messages in the queue after the publish, want 1", ok.MessageCount)
	}
	// The server closes as soon as the bound is passed, so the write of
	// the rest may fail; what it sent before closing is what counts.
	_ = c.send(append(pub, pub...))
	c.expectTooBig()
}

// TestWebSocketCountsAgainstMaxConnections: WebSocket and TCP connections
// share --max-connections once they have opened, and only then: an
// anonymous WebSocket holds a place before login (driver/addrlimit), not
// one of --max-connections. A WebSocket connection.open past the limit
// gets 530 with the text RabbitMQ 3.11 and later send (3.10.8 stops
// accepting at connection_max instead, counting every socket), and the
// place frees when the connection holding it goes.
func TestWebSocketCountsAgainstMaxConnections(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{MaxConnections: 1}})
	anon := dialWebSocket(t, srv)
	must(t, anon.send(wire.ProtocolHeader[:]))
	anon.expect(&wire.ConnectionStart{}) // accepted, not logged in
	tcp, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/")
	if err != nil {
		t.Fatalf("login while an anonymous WebSocket is open: %v", err)
	}
	defer tcp.Close()

	open := func(c *wsClient) wire.Command {
		must(t, c.send(wire.ProtocolHeader[:]))
		c.expect(&wire.ConnectionStart{})
		must(t, c.send(c.method(0, &wire.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})))
		c.expect(&wire.ConnectionTune{})
		must(t, c.send(c.method(0, &wire.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072})))
		must(t, c.send(c.method(0, &wire.ConnectionOpen{VirtualHost: "/"})))
		cmd, err := c.next()
		if err != nil {
			t.Fatalf("connection.open over WebSocket: %v", err)
		}
		return cmd
	}
	refused := open(dialWebSocket(t, srv))
	if cl, ok := refused.Method.(*wire.ConnectionClose); !ok || cl.ReplyCode != 530 || cl.ReplyText != "NOT_ALLOWED - connection refused: node connection limit (1) is reached" {
		t.Fatalf("WebSocket connection.open past the limit: %v, want 530 node connection limit", refused.Method)
	}
	tcp.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := open(dialWebSocket(t, srv)).Method.(*wire.ConnectionOpenOk); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no WebSocket connection after the TCP one closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
