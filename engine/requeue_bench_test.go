package engine

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// requeueBench builds the layout the issue met: a consumer on channel 2
// with prefetch k took the first k of n messages published to queue "q"
// (classic, or quorum), so k unacked messages belong in front of n-k
// ready ones. The consumer was there before the messages arrived, so the
// first k never entered the queue's store and the rest were appended
// behind nothing.
func requeueBench(tb testing.TB, n, k int, quorum bool) (*Broker, ChannelID) {
	br, ch := benchBroker(tb, Config{Seed: 1})
	d := QueueDeclare{Queue: "q"}
	if quorum {
		d.Durable, d.Args = true, Table{"x-queue-type": "quorum"}
	}
	_, err := br.QueueDeclare(ch, d)
	must(tb, err)
	c, err := br.OpenChannel(ch.Conn, 2)
	must(tb, err)
	must(tb, br.BasicQos(c, BasicQos{PrefetchCount: uint16(k)}))
	_, err = br.BasicConsume(c, BasicConsume{Queue: "q", ConsumerTag: "c"})
	must(tb, err)
	body := []byte("0123456789abcdef")
	events := br.DrainEvents(nil)
	for i := 0; i < n; i++ {
		must(tb, br.BasicPublish(ch, BasicPublish{RoutingKey: "q", Body: body}))
		events = br.DrainEvents(events[:0])
	}
	if q := br.vhosts["/"].queues["q"]; q.unacked != k || q.ready.len() != n-k {
		tb.Fatalf("%d unacked and %d ready, want %d and %d", q.unacked, q.ready.len(), k, n-k)
	}
	return br, c
}

// BenchmarkRequeue measures returning k = 10,000 unacked messages to the
// front of a queue with 390,000 ready behind them: the channel closing,
// basic.nack of all with requeue, and basic.recover. Each is one command
// under the server's broker lock, followed by the calls that bring the rest
// back a batch at a time (bulkreturn.go), as the server's broker makes
// them, one per hold of its lock; the longest call is how long every
// connection waits (the issue saw 5.3 s for the close, in one call).
//
// ms/requeue is the command and its continuations together; max-call-ms
// the longest of them. The benchmark's own timer also runs while
// each iteration builds its 400,000-message queue, so that `go test
// -bench` settles on a few iterations rather than thousands of rebuilds;
// ns/op is therefore mostly set-up.
func BenchmarkRequeue(b *testing.B) {
	const n, k = 400_000, 10_000
	for _, queueType := range []string{"classic", "quorum"} {
		for _, how := range []string{"close", "nack", "recover"} {
			b.Run(queueType+"/"+how+"/unacked="+strconv.Itoa(k)+"/queued="+strconv.Itoa(n), func(b *testing.B) {
				var total, longest time.Duration
				for i := 0; i < b.N; i++ {
					br, c := requeueBench(b, n, k, queueType == "quorum")
					if how != "close" {
						// The consumer would take the requeued messages
						// straight back: cancel it, keeping its deliveries.
						must(b, br.BasicCancel(c, "c"))
						br.DrainEvents(nil)
					}
					// Collect the previous iteration's broker now, not
					// during the call measured.
					runtime.GC()
					timed := func(call func()) {
						start := time.Now()
						call()
						d := time.Since(start)
						total += d
						longest = max(longest, d)
						br.DrainEvents(nil)
					}
					timed(func() {
						switch how {
						case "close":
							br.CloseChannel(c)
						case "nack":
							must(b, br.Apply(CmdBasicNack{Channel: c, DeliveryTag: 0, Multiple: true, Requeue: true}).Err)
						case "recover":
							must(b, br.Apply(CmdBasicRecover{Channel: c, Requeue: true}).Err)
						}
					})
					for {
						at, ok := br.NextDeadline()
						if !ok || at > br.Now() {
							break
						}
						timed(func() { br.AdvanceTo(br.Now()) })
					}
					if q := br.vhosts["/"].queues["q"]; q.ready.len() != n || q.unacked != 0 {
						b.Fatalf("ready %d unacked %d after requeue, want %d and 0", q.ready.len(), q.unacked, n)
					}
				}
				b.ReportMetric(total.Seconds()/float64(b.N)*1000, "ms/requeue")
				b.ReportMetric(float64(longest.Microseconds())/1000, "max-call-ms")
			})
		}
	}
}
