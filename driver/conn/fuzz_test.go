package conn

import (
	"context"
	"net"
	"testing"
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/auth"
	"warren/server/broker"
)

// FuzzConnection feeds arbitrary bytes, split at arbitrary points, to a
// connection after a valid handshake. Whatever arrives, the server must not
// panic or hang: it either keeps serving or closes the connection, and a
// second connection on the same broker keeps working.
func FuzzConnection(f *testing.F) {
	seed := func(frames ...[]byte) []byte {
		var b []byte
		for _, fr := range frames {
			b = append(b, fr...)
		}
		return b
	}
	method := func(ch uint16, m amqp.Method) []byte {
		b, _ := amqp.AppendMethodFrame(nil, ch, m)
		return b
	}
	f.Add(seed(method(1, &amqp.ChannelOpen{}), method(1, &amqp.QueueDeclare{Queue: "q"})), uint8(3))
	f.Add(seed(method(1, &amqp.ChannelOpen{}), method(1, &amqp.BasicPublish{RoutingKey: "q"})), uint8(1))
	f.Add([]byte{1, 0, 1, 0, 0, 0, 4, 0, 20, 0, 10, 0xCE}, uint8(5))
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0xCE}, uint8(0))
	f.Add([]byte("\x01\x00\x01\xff\xff\xff\xff"), uint8(2))
	b := broker.Start(engine.Config{}, nil)
	defer b.Stop()
	users, err := auth.NewStore(b)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		cfg := Config{Broker: b, Users: users, HandshakeTimeout: 2 * time.Second}
		cfg.Defaults()
		server, client := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			Serve(context.Background(), pipeTransport{server}, &cfg)
		}()
		// Drain whatever the server writes, so it never blocks on us.
		go func() {
			buf := make([]byte, 4096)
			for {
				if _, err := client.Read(buf); err != nil {
					return
				}
			}
		}()
		client.SetDeadline(time.Now().Add(2 * time.Second))
		hs := append([]byte(nil), amqp.ProtocolHeader[:]...)
		for _, m := range []amqp.Method{
			&amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"},
			&amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072},
			&amqp.ConnectionOpen{VirtualHost: "/"},
		} {
			fr, _ := amqp.AppendMethodFrame(nil, 0, m)
			hs = append(hs, fr...)
		}
		client.Write(hs)
		k := int(cut)
		if k > len(data) {
			k = len(data)
		}
		client.Write(data[:k])
		client.Write(data[k:])
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection did not end after its client closed")
		}
		// The broker still serves others.
		res, err := b.ApplyOne(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/"}})
		if err != nil || res.Err != nil {
			t.Fatalf("broker unusable: %v %v", err, res.Err)
		}
		if _, err := b.ApplyOne(engine.CmdCloseConnection{Conn: res.Conn}); err != nil {
			t.Fatal(err)
		}
	})
}
