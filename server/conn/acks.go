package conn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// A consumer that acks each delivery with a write of its own (amqp091-go,
// pika and amqplib with manual acks) sends a stream of 21-byte acks, and
// Warren used to wake for every few of them: a read, a write of the few
// deliveries they released, and the sleep and wake-up of a thread, for
// about five messages. When that client still holds many deliveries, its
// next acks can wait: it has work in hand, so a read that waits up to
// readWait for more acks costs it nothing, and one wake-up carries a few
// dozen acks and the deliveries they release (5bab91e:BENCHMARKS.md, "Acks from a
// consumer with deliveries in hand").
//
// The ground is the engine's count, not the timing of the reads: after a
// batch of acks, every channel it acked still has at least ackBacklog
// deliveries unacknowledged. A client that holds ackBacklog deliveries
// takes longer than readWait to work through them unless it spends under
// 1.5 µs on each, and the deliveries the wait holds back go to the end of
// its backlog anyway. A consumer with a small prefetch, or one
// that keeps up (its unacknowledged deliveries few), never waits; nor does
// a lone ack (the pipelining client's multiple=true every 25 deliveries,
// or a consumer at 10,000 msgs/s).

// ackBacklog is the unacknowledged deliveries a channel must still have
// after a batch of acks for the next read to wait for more.
const ackBacklog = 128

// ackPacer is a transport whose next read can wait for a consumer's acks
// (TCP on Linux, readwait_linux.go).
type ackPacer interface{ acksHeld() }

// maybeAckBatch reports whether batch is two or more basic.acks and
// nothing else: a client streaming acks, whose backlog acksInHand then
// reads.
func maybeAckBatch(batch []command) bool {
	if len(batch) < 2 {
		return false
	}
	for _, cmd := range batch {
		if _, ok := cmd.method.(*amqp.BasicAck); !ok {
			return false
		}
	}
	return true
}

// acksInHand reports whether every channel batch acked still has at least
// ackBacklog deliveries unacknowledged. It runs inside the backend's Do,
// after the batch.
func (c *conn) acksInHand(e *engine.Broker, batch []command) bool {
	last := uint16(0)
	for _, cmd := range batch {
		if cmd.channel == last {
			continue
		}
		last = cmd.channel
		if e.Unacked(engine.ChannelID{Conn: c.id, Num: cmd.channel}) < ackBacklog {
			return false
		}
	}
	return true
}
