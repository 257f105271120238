package conn

import (
	"testing"
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/store"
)

// BenchmarkConfirmedPersistent is window 1 through a whole connection
// over loopback TCP into a durable queue backed by a real store: a
// persistent publish, and the next only once its confirm is back, as
// `warren-bench durable` does at window 1. Each confirm waits for an
// fsync, which the connection's own goroutine does (logSyncer), so
// fsyncs/op is 1. Of its 7 allocs/op the server makes two, the message
// and its body, which the broker holds until the message leaves; the
// frames' decoding, the store and the durable log add none. The rest are
// the test's: the client's reads of the ack (3), the &amqp.BasicAck the
// loop expects (1) and the owner checks this package's tests turn on (1,
// owner.go). Compare its time and CPU (perf stat) with
// BenchmarkFsyncFloor (server/store) on the same disk.
func BenchmarkConfirmedPersistent(b *testing.B) {
	st, rec, err := store.Open(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := broker.Recover(engine.Config{}, time.Now(), broker.ClockLive, st, rec)
	if err != nil {
		b.Fatal(err)
	}
	br := broker.StartDurable(eng, broker.Options{Store: st})
	b.Cleanup(func() {
		br.Stop()
		br.CloseStore()
	})
	users, err := auth.NewStore(br)
	if err != nil {
		b.Fatal(err)
	}
	c := startTCP(b, br, users, 0)
	c.handshake(0)
	c.method(1, &amqp.ChannelOpen{})
	c.expect(&amqp.ChannelOpenOk{})
	c.method(1, &amqp.ConfirmSelect{})
	c.expect(&amqp.ConfirmSelectOk{})
	c.method(1, &amqp.QueueDeclare{Queue: "orders.created", Durable: true})
	c.expect(&amqp.QueueDeclareOk{})
	pub, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "orders.created"})
	pub, _ = amqp.AppendContent(pub, 1, amqp.ClassBasic, amqp.Properties{DeliveryMode: 2}, make([]byte, 16), 131072)
	fsyncs := st.Stats().Fsyncs
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		c.send(pub)
		if ack := c.expect(&amqp.BasicAck{}).Method.(*amqp.BasicAck); ack.DeliveryTag != uint64(i) {
			b.Fatalf("confirm %d, want %d", ack.DeliveryTag, i)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(st.Stats().Fsyncs-fsyncs)/float64(b.N), "fsyncs/op")
}
