package engine

import "testing"

// durableLoop is one publish, delivery and ack through queue q, with the
// durable log on or off, the records drained as a server drains them.
func durableLoop(tb testing.TB, on, durable bool) (round func(), logged *int) {
	br, ch := benchBroker(tb, Config{Seed: 1})
	if on {
		br.EnableDurableLog()
	}
	_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q", Durable: durable})
	must(tb, err)
	_, err = br.BasicConsume(ch, BasicConsume{Queue: "q", ConsumerTag: "c"})
	must(tb, err)
	mode := uint8(1)
	if durable {
		mode = 2
	}
	pub := BasicPublish{RoutingKey: "q", Body: []byte("0123456789abcdef"), Props: &Properties{DeliveryMode: mode}}
	var events []Event
	n := 0
	keep := func(rec []byte) { n += len(rec) }
	br.DrainDurable(keep)
	n = 0
	tag := uint64(0)
	return func() {
		tag++
		if err := br.BasicPublish(ch, pub); err != nil {
			tb.Fatal(err)
		}
		if err := br.Apply(CmdBasicAck{Channel: ch, DeliveryTag: tag}).Err; err != nil {
			tb.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
		br.DrainDurable(keep)
	}, &n
}

// TestDurableLogIgnoresTransientWork: with the durable log on, transient
// messages through a non-durable queue write no record and allocate
// nothing more than with it off.
func TestDurableLogIgnoresTransientWork(t *testing.T) {
	off, _ := durableLoop(t, false, false)
	on, logged := durableLoop(t, true, false)
	for range 100 {
		off()
		on()
	}
	if a, b := testing.AllocsPerRun(1000, off), testing.AllocsPerRun(1000, on); b > a {
		t.Fatalf("a transient publish and ack allocate %.1f times with the durable log, %.1f without", b, a)
	}
	if *logged != 0 {
		t.Fatalf("transient work logged %d bytes", *logged)
	}
}

// TestDurableLogAllocatesNoMore: a persistent message through a durable
// queue, whose put, take and ack each write a record, allocates no more
// than a transient one with the log off (the message itself): the
// records are encoded into buffers the log reuses.
func TestDurableLogAllocatesNoMore(t *testing.T) {
	off, _ := durableLoop(t, false, false)
	on, logged := durableLoop(t, true, true)
	for range 100 {
		off()
		on()
	}
	if a, b := testing.AllocsPerRun(1000, off), testing.AllocsPerRun(1000, on); b > a {
		t.Fatalf("a persistent publish and ack allocate %.1f times with the durable log, a transient one %.1f without", b, a)
	}
	if *logged == 0 {
		t.Fatal("persistent work logged nothing")
	}
}

// BenchmarkPublishDeliverAckDurable is what the durable log costs a
// message: transient through a non-durable queue with the log off and
// on (the bound is 1.2× the CPU), and persistent through a
// durable queue with it on, which writes a record per put, take and ack.
func BenchmarkPublishDeliverAckDurable(b *testing.B) {
	for _, c := range []struct {
		name        string
		on, durable bool
	}{{"transient/log=off", false, false}, {"transient/log=on", true, false}, {"persistent/log=on", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			round, logged := durableLoop(b, c.on, c.durable)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				round()
				if i%1024 == 1023 {
					yieldLikeADriver()
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(*logged)/float64(b.N), "logB/msg")
		})
	}
}
