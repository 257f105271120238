package conn

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/broker"
)

// frames encodes methods (and a publish's content) on channel ch, back to
// back, so that one write carries them all and the server reads them as
// one pipelined batch.
func frames(t *testing.T, ch uint16, ms ...amqp.Method) []byte {
	t.Helper()
	var b []byte
	for _, m := range ms {
		var err error
		if b, err = amqp.AppendMethodFrame(b, ch, m); err != nil {
			t.Fatal(err)
		}
		if m.HasContent() {
			b, _ = amqp.AppendContent(b, ch, m.ClassID(), amqp.Properties{}, []byte("m"), 131072)
		}
	}
	return b
}

// readUntil reads from the server until the read deadline d from now,
// discarding what arrives, and returns how the reading ended:
// os.ErrDeadlineExceeded while the server keeps the socket open, io.EOF
// once it closed it.
func (c *client) readUntil(d time.Duration) error {
	c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	for {
		if _, err := c.nc.Read(buf); err != nil {
			return err
		}
	}
}

// TestServerWaitsForClientAfterCloseOk: after answering the client's
// connection.close the server keeps the socket open, discarding what
// comes, until the client closes it — the client, not the server, ends
// the TCP connection, so it never reads EOF before its close has
// completed. With heartbeats off it gives up after rabbit_reader's 30 s.
func TestServerWaitsForClientAfterCloseOk(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(0, &amqp.ConnectionClose{ReplyCode: 200, ReplyText: "bye"})
		c.expect(&amqp.ConnectionCloseOk{})
		c.send(frames(t, 1, &amqp.ChannelOpen{})) // discarded: no answer
		if err := c.readUntil(29 * time.Second); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("29 s after close-ok: %v, want the socket still open", err)
		}
		if err := c.readUntil(2 * time.Second); err != io.EOF {
			t.Fatalf("31 s after close-ok: %v, want EOF", err)
		}
	})
}

// TestClosingTimeoutIsHeartbeat: the closing wait is the negotiated
// heartbeat interval when that is shorter than 30 s.
func TestClosingTimeoutIsHeartbeat(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(5)
		c.method(0, &amqp.ConnectionClose{ReplyCode: 200})
		c.expect(&amqp.ConnectionCloseOk{})
		start := time.Now()
		if err := c.readUntil(time.Minute); err != io.EOF {
			t.Fatalf("%v, want EOF", err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Fatalf("socket closed %v after close-ok, want 5 s", d)
		}
	})
}

// TestServerCloseAwaitsCloseOk: after a connection exception the server
// discards everything but close-ok, then ends the connection at once.
func TestServerCloseAwaitsCloseOk(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(7, &amqp.QueueDeclare{Queue: "q"})
		c.expect(&amqp.ConnectionClose{})
		c.send(frames(t, 1, &amqp.ChannelOpen{}, &amqp.BasicPublish{}))
		c.send(frames(t, 0, &amqp.ConnectionClose{ReplyCode: 200})) // crossed closes: close-ok again
		c.expect(&amqp.ConnectionCloseOk{})
		if err := c.readUntil(10 * time.Second); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("before close-ok: %v, want the socket still open", err)
		}
		c.method(0, &amqp.ConnectionCloseOk{})
		start := time.Now()
		if err := c.readUntil(time.Minute); err != io.EOF {
			t.Fatalf("after close-ok: %v, want EOF", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("socket closed %v after close-ok, want at once", d)
		}
	})
}

// TestCloseFromElsewhereWakesTheOwner: the management API closing an idle
// connection (the engine's ConnectionClosed, from another goroutine) wakes
// the connection's owner out of its read, which sends connection.close
// 320 with the reason; the client's close-ok ends the connection.
func TestCloseFromElsewhereWakesTheOwner(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		var id engine.ConnID
		for _, refs := range b.Reader(nil).ConnectionRefs() {
			for _, r := range refs {
				id = r.ID
			}
		}
		if _, err := b.ApplyOne(engine.CmdForceCloseConnection{Conn: id, Reason: "Closed via management plugin"}); err != nil {
			t.Fatal(err)
		}
		cl := c.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
		if cl.ReplyCode != 320 || cl.ReplyText != "CONNECTION_FORCED - Closed via management plugin" {
			t.Fatalf("close %+v", cl)
		}
		c.method(0, &amqp.ConnectionCloseOk{})
	})
}
