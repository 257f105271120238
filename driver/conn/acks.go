package conn

import "warren/engine"

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

// ackedChannels are the channels a batch of acks acked, up to a few: a
// batch over more channels than that does not pace reads.
type ackedChannels struct {
	n    int
	nums [4]uint16
}

func (a *ackedChannels) add(ch uint16) {
	if a.n > 0 && a.nums[min(a.n, len(a.nums))-1] == ch {
		return
	}
	if a.n < len(a.nums) {
		a.nums[a.n] = ch
	}
	a.n++
}

// paceAcks lets the next read wait for more acks when every channel a
// batch of acks acked still has at least ackBacklog deliveries
// unacknowledged. It runs on the owner after the batch; the count is the
// backend's, read after the batch's Apply.
func (c *conn) paceAcks(acked *ackedChannels) {
	ur, ok := c.b.(unackedReader)
	if c.ackPace == nil || !ok || acked.n > len(acked.nums) {
		return
	}
	for _, n := range acked.nums[:acked.n] {
		if ur.Unacked(engine.ChannelID{Conn: c.connID, Num: n}) < ackBacklog {
			return
		}
	}
	c.ackPace.AcksHeld()
}
