package engine

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// backlogBench queues n 16-byte messages in the classic queue "q" (message
// TTL 1s; with dlx, dead-lettering to a fanout exchange bound to queue
// "dead") on a broker whose clock is at 0, and returns it with a second
// channel for the consumer.
func backlogBench(tb testing.TB, n int, dlx bool) (*Broker, ChannelID) {
	br, ch := benchBroker(tb, Config{Seed: 1})
	args := Table{"x-message-ttl": int32(1000)}
	if dlx {
		must(tb, br.ExchangeDeclare(ch, ExchangeDeclare{Exchange: "dlx", Type: KindFanout}))
		_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "dead"})
		must(tb, err)
		must(tb, br.QueueBind(ch, QueueBind{Queue: "dead", Exchange: "dlx"}))
		args["x-dead-letter-exchange"] = "dlx"
	}
	_, err := br.QueueDeclare(ch, QueueDeclare{Queue: "q", Args: args})
	must(tb, err)
	body := []byte("0123456789abcdef")
	events := br.DrainEvents(nil)
	for i := 0; i < n; i++ {
		must(tb, br.BasicPublish(ch, BasicPublish{RoutingKey: "q", Body: body}))
		events = br.DrainEvents(events[:0])
	}
	c, err := br.OpenChannel(ch.Conn, 2)
	must(tb, err)
	br.DrainEvents(nil)
	return br, c
}

// BenchmarkBacklog measures the longest single engine call while a
// 400,000-message backlog is worked off: a consumer with unlimited
// prefetch attaching to it (basic.consume, then the deliveries), and all of
// it expiring at once (AdvanceTo past the message TTL), without and with a
// dead-letter exchange; queue.purge and queue.delete of it; basic.ack of
// all 400,000 delivered, basic.nack of them all to a dead-letter exchange
// (bulkack.go), a max-length policy of 0 dropping them all, to no
// dead-letter exchange, to one, or by a max-length-bytes of 0
// (bulkend.go), a message-ttl policy of 0 expiring them all (ttl.go), and
// the consumer's channel closing, or basic.nack of all with requeue,
// giving all 400,000 back (bulkreturn.go), and tx.commit of 400,000
// buffered acknowledgements or publishes (txcommit.go). After the first
// call it calls AdvanceTo(Now()) while a timer is due, as the server's
// broker does (a call per hold of its lock), draining the events in place
// after every call, as the server does (not timed).
//
// max-call-ms is the longest call: how long every other connection waits
// at worst; mean-call-ms the average. calls is how many calls it took (per
// iteration); total-ms their sum. Each message of "q" must end (or be
// delivered) exactly once: dead letters' arrivals in "dead" are not
// counted.
func BenchmarkBacklog(b *testing.B) {
	const n = 400_000
	for _, op := range []string{"consume", "expire", "expire-dlx", "purge", "delete", "ack-all", "nack-all-dlx", "max-length", "max-length-dlx", "max-length-bytes", "message-ttl", "close", "nack-all-requeue", "tx-commit-ack", "tx-commit-publish"} {
		b.Run(op+"/queued="+strconv.Itoa(n), func(b *testing.B) {
			var clock callClock
			// Iteration -1 is a warm-up, not counted: in a fresh process
			// the first touches of new memory cost more than the work
			// (page faults, several times more in this virtual machine),
			// which a running server has long since paid.
			for i := -1; i < b.N; i++ {
				if i == 0 {
					clock = callClock{}
				}
				queued := n
				if op == "tx-commit-publish" {
					queued = 0
				}
				br, c := backlogBench(b, queued, op == "expire-dlx" || op == "nack-all-dlx" || op == "max-length-dlx")
				switch op {
				case "tx-commit-publish":
					// 400,000 publishes buffered in a transaction.
					must(b, br.TxSelect(c))
					body := []byte("0123456789abcdef")
					for i := 0; i < n; i++ {
						must(b, br.BasicPublish(c, BasicPublish{RoutingKey: "q", Body: body}))
					}
					br.DrainEventsTo(func([]Event) {})
				case "ack-all", "nack-all-dlx", "close", "nack-all-requeue", "tx-commit-ack":
					// The deliveries to settle, before anything is timed.
					_, err := br.BasicConsume(c, BasicConsume{Queue: "q", ConsumerTag: "c"})
					must(b, err)
					br.Settle(br.Now())
					if op == "tx-commit-ack" {
						// 400,000 acknowledgements buffered in a
						// transaction.
						must(b, br.TxSelect(c))
						must(b, br.Apply(CmdBasicAck{Channel: c, DeliveryTag: 0, Multiple: true}).Err)
					}
					if op == "nack-all-requeue" {
						// Not straight back to the same consumer.
						must(b, br.BasicCancel(c, "c"))
					}
					br.DrainEventsTo(func([]Event) {})
				}
				runtime.GC()
				done := 0
				seen := func(evs []Event) {
					for i := range evs {
						switch evs[i].Kind {
						case EvDelivered, EvExpired, EvPurged, EvDiscarded, EvAcked, EvRejected, EvOverflowed, EvRequeued, EvEnqueued:
							if evs[i].Queue == "q" {
								done++
							}
						}
					}
				}
				policy := func(def Table) func() {
					return func() {
						must(b, br.SetPolicy(Policy{Vhost: "/", Name: "p", Pattern: "^q$", ApplyTo: "queues", Definition: def}))
					}
				}
				var call func()
				switch op {
				case "consume":
					call = func() {
						_, err := br.BasicConsume(c, BasicConsume{Queue: "q", ConsumerTag: "c"})
						must(b, err)
					}
				case "purge":
					call = func() {
						_, err := br.QueuePurge(c, "q")
						must(b, err)
					}
				case "delete":
					call = func() {
						_, err := br.QueueDelete(c, QueueDelete{Queue: "q"})
						must(b, err)
					}
				case "ack-all":
					call = func() { must(b, br.Apply(CmdBasicAck{Channel: c, DeliveryTag: 0, Multiple: true}).Err) }
				case "close":
					call = func() { br.CloseChannel(c) }
				case "nack-all-requeue":
					call = func() { must(b, br.Apply(CmdBasicNack{Channel: c, DeliveryTag: 0, Multiple: true, Requeue: true}).Err) }
				case "tx-commit-ack", "tx-commit-publish":
					call = func() { must(b, br.TxCommit(c)) }
				case "nack-all-dlx":
					call = func() { must(b, br.Apply(CmdBasicNack{Channel: c, DeliveryTag: 0, Multiple: true}).Err) }
				case "max-length", "max-length-dlx":
					call = policy(Table{"max-length": int64(0)})
				case "max-length-bytes":
					call = policy(Table{"max-length-bytes": int64(0)})
				case "message-ttl":
					call = policy(Table{"message-ttl": int64(0)})
				default:
					call = func() { br.AdvanceTo(1000) }
				}
				clock.time(br, call, seen)
				clock.workOff(br, seen)
				if done != n {
					b.Fatalf("%d messages ended or delivered, want %d", done, n)
				}
			}
			clock.report(b)
		})
	}
}

// callClock times engine calls as a driver makes them: the longest, their
// sum and how many.
type callClock struct {
	longest, total time.Duration
	calls          int
}

// time times call, then hands the events it made to seen (not timed).
func (c *callClock) time(br *Broker, call func(), seen func([]Event)) {
	start := time.Now()
	call()
	d := time.Since(start)
	c.total += d
	c.longest = max(c.longest, d)
	c.calls++
	br.DrainEventsTo(seen)
}

// workOff calls AdvanceTo(Now()) while a timer is due, timing each call,
// as the server's broker does (a call per hold of its lock).
func (c *callClock) workOff(br *Broker, seen func([]Event)) {
	for {
		at, ok := br.NextDeadline()
		if !ok || at > br.Now() {
			return
		}
		c.time(br, func() { br.AdvanceTo(br.Now()) }, seen)
	}
}

// report reports the calls of b.N iterations.
func (c *callClock) report(b *testing.B) {
	b.ReportMetric(float64(c.longest.Microseconds())/1000, "max-call-ms")
	b.ReportMetric(float64(c.total.Microseconds())/1000/float64(c.calls), "mean-call-ms")
	b.ReportMetric(float64(c.calls)/float64(b.N), "calls")
	b.ReportMetric(float64(c.total.Microseconds())/1000/float64(b.N), "total-ms")
}
