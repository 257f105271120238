package conn

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/tcp"
)

// The tests here run connections over loopback TCP, where the connection's
// own goroutine writes what its requests queued (writeInline) and leaves
// what the socket does not take to the writer. The pipe tests cannot reach
// that path: a pipe has no socket to try.

// startTCP serves one connection over loopback TCP whose server side
// sends through a socket buffer of sndbuf bytes (0: the system's), and
// returns its client.
func startTCP(t testing.TB, b *broker.Broker, users *auth.Store, sndbuf int) *client {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := Config{Broker: b, Users: users, HandshakeTimeout: 5 * time.Second}
	cfg.Defaults()
	accepted := make(chan net.Conn, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- nc
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	snc, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	if sndbuf > 0 {
		snc.(*net.TCPConn).SetWriteBuffer(sndbuf)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Serve(context.Background(), tcp.New(snc), &cfg)
	}()
	t.Cleanup(func() {
		nc.Close()
		<-done
	})
	return &client{t: t, nc: nc, fr: amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: 1 << 20}),
		as: amqp.NewAssembler(amqp.AssemblerConfig{})}
}

// numberedBody is the 700-byte body of message i of publishNumbered.
func numberedBody(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("%06d|", i)), 100) }

// publishNumbered writes n publishes to queue on channel 1, message i
// with numberedBody(i), each in a write of its own; it stops at the first
// write that fails (the test has ended).
func publishNumbered(nc net.Conn, queue string, n int) {
	for i := 1; i <= n; i++ {
		fr, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: queue})
		fr, _ = amqp.AppendContent(fr, 1, amqp.ClassBasic, amqp.Properties{}, numberedBody(i), 131072)
		if _, err := nc.Write(fr); err != nil {
			return
		}
	}
}

func tcpBroker(t testing.TB) (*broker.Broker, *auth.Store) {
	b := broker.Start(engine.Config{}, nil)
	t.Cleanup(b.Stop)
	users, err := auth.NewStore(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, users
}

func TestTCPTransportTriesWrites(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if tw, ok := Transport(tcp.New(nc)).(TryWriter); !ok || !tw.CanTryWrite() {
		t.Fatal("a TCP connection's transport cannot try writes: replies would all wake the writer")
	}
}

// TestSlowReaderGetsEveryFrameInOrder publishes with confirms into a queue
// the same connection consumes from, through a 4 KiB socket buffer, while
// the client reads slowly: the connection's own writes fill the socket,
// leave bytes for the writer, and the writer's heartbeats go between. The
// client must get every delivery once and in order, with its body whole,
// and every publish confirmed once, in order.
func TestSlowReaderGetsEveryFrameInOrder(t *testing.T) {
	b, users := tcpBroker(t)
	c := startTCP(t, b, users, 4096)
	c.handshake(1) // heartbeats every half second, between the rest
	c.method(1, &amqp.ChannelOpen{})
	c.expect(&amqp.ChannelOpenOk{})
	c.method(1, &amqp.ConfirmSelect{})
	c.expect(&amqp.ConfirmSelectOk{})
	c.method(1, &amqp.QueueDeclare{Queue: "slow"})
	c.expect(&amqp.QueueDeclareOk{})
	c.method(1, &amqp.BasicConsume{Queue: "slow", ConsumerTag: "c", NoAck: true})
	c.expect(&amqp.BasicConsumeOk{})

	const n = 3000
	go publishNumbered(c.nc, "slow", n)

	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	delivered, confirmed := 0, uint64(0)
	for delivered < n || confirmed < n {
		cmd, ok := c.recv()
		if !ok {
			t.Fatalf("connection ended after %d deliveries and %d confirms", delivered, confirmed)
		}
		switch m := cmd.Method.(type) {
		case nil: // a heartbeat
		case *amqp.BasicDeliver:
			delivered++
			if want := numberedBody(delivered); !bytes.Equal(cmd.Body, want) {
				t.Fatalf("delivery %d: body %q…, want %q…", delivered, cmd.Body[:14], want[:14])
			}
		case *amqp.BasicAck:
			if m.DeliveryTag <= confirmed || (!m.Multiple && m.DeliveryTag != confirmed+1) {
				t.Fatalf("confirm for %d (multiple %v) after %d", m.DeliveryTag, m.Multiple, confirmed)
			}
			confirmed = m.DeliveryTag
		default:
			t.Fatalf("unexpected %s", m.Name())
		}
		if delivered%300 == 0 {
			time.Sleep(60 * time.Millisecond) // a slow reader: the socket fills
		}
	}
	if confirmed != n {
		t.Fatalf("confirmed up to %d, want %d", confirmed, n)
	}
}

// FuzzTCPConnection is FuzzConnection over loopback TCP, through a small
// socket buffer: whatever the client sends, split at arbitrary points,
// what the server writes (by the connection's goroutine and by the writer,
// in turns) must be whole frames, and the connection must end when the
// client closes.
func FuzzTCPConnection(f *testing.F) {
	method := func(ch uint16, m amqp.Method) []byte {
		b, _ := amqp.AppendMethodFrame(nil, ch, m)
		return b
	}
	publish := func(key string, body []byte) []byte {
		b, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: key})
		b, _ = amqp.AppendContent(b, 1, amqp.ClassBasic, amqp.Properties{}, body, 131072)
		return b
	}
	var many []byte
	many = append(many, method(1, &amqp.ChannelOpen{})...)
	many = append(many, method(1, &amqp.ConfirmSelect{})...)
	many = append(many, method(1, &amqp.QueueDeclare{Queue: "q"})...)
	many = append(many, method(1, &amqp.BasicConsume{Queue: "q", NoAck: true})...)
	for i := 0; i < 200; i++ {
		many = append(many, publish("q", bytes.Repeat([]byte{byte(i)}, 300))...)
	}
	f.Add(many, uint16(7))
	f.Add(append(method(1, &amqp.ChannelOpen{}), method(1, &amqp.QueueDeclare{Queue: "q"})...), uint16(3))
	f.Add([]byte{1, 0, 1, 0, 0, 0, 4, 0, 20, 0, 10, 0xCE}, uint16(5))
	b, users := tcpBroker(f)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		c := startTCP(t, b, users, 4096)
		c.handshake(0)
		k := min(int(cut), len(data))
		c.send(data[:k])
		c.send(data[k:])
		// Read everything the server sends until it closes or goes
		// quiet; c.recv fails the test on a broken frame.
		for {
			c.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, ok := c.recv(); !ok {
				break
			}
		}
		c.nc.(*net.TCPConn).CloseWrite()
	})
}

// TestDeliveriesWrittenForAnotherConnection has one connection publish
// into a queue another consumes from through a 4 KiB socket buffer, read
// slowly: the publisher's goroutine writes the consumer's deliveries
// after each of its requests as far as the consumer's socket takes them,
// and the consumer's writer the rest. Every delivery must arrive once, in
// order, whole.
func TestDeliveriesWrittenForAnotherConnection(t *testing.T) {
	b, users := tcpBroker(t)
	consumer := startTCP(t, b, users, 4096)
	consumer.handshake(0)
	consumer.method(1, &amqp.ChannelOpen{})
	consumer.expect(&amqp.ChannelOpenOk{})
	consumer.method(1, &amqp.QueueDeclare{Queue: "far"})
	consumer.expect(&amqp.QueueDeclareOk{})
	consumer.method(1, &amqp.BasicConsume{Queue: "far", ConsumerTag: "c", NoAck: true})
	consumer.expect(&amqp.BasicConsumeOk{})

	publisher := startTCP(t, b, users, 0)
	publisher.handshake(0)
	publisher.method(1, &amqp.ChannelOpen{})
	publisher.expect(&amqp.ChannelOpenOk{})

	const n = 3000
	go publishNumbered(publisher.nc, "far", n)

	consumer.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	for delivered := 0; delivered < n; {
		cmd, ok := consumer.recv()
		if !ok {
			t.Fatalf("connection ended after %d deliveries", delivered)
		}
		d, isDeliver := cmd.Method.(*amqp.BasicDeliver)
		if !isDeliver {
			t.Fatalf("unexpected %v", cmd.Method)
		}
		delivered++
		if d.DeliveryTag != uint64(delivered) {
			t.Fatalf("delivery tag %d, want %d", d.DeliveryTag, delivered)
		}
		if want := numberedBody(delivered); !bytes.Equal(cmd.Body, want) {
			t.Fatalf("delivery %d: body %q…, want %q…", delivered, cmd.Body[:14], want[:14])
		}
		if delivered%300 == 0 {
			time.Sleep(60 * time.Millisecond) // a slow reader: the socket fills
		}
	}
}
