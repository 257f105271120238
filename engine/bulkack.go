package engine

import "sort"

// Bulk acknowledgements: basic.ack multiple of a channel's many deliveries.
//
// Acknowledging all of 400,000 deliveries is one command, and was 65-111 ms
// of it, most of it the 400,000 Acked events. What a client or a later
// command can see changes in the command: the acknowledged tags leave the
// channel's unacked list (a later ack of one is 406 "unknown delivery tag"
// at once), the prefetch credit comes back, and the queues', vhosts' and
// broker's unacked counts drop. The list's chunks move whole to a bulkEnd
// (bulkend.go), and the Acked events after the first batch follow in later
// calls, in tag order; only then do the queues dispatch to the credit
// regained, so that a driver that settles sees the events in the order
// one unbounded call makes them.

// ackUpTo acknowledges every live delivery up to and including tag (0:
// all), outside a transaction. The tag, if not 0, is known to be live.
func (ch *channel) ackUpTo(tag uint64) {
	b := ch.b
	k := ch.unacked.len()
	if tag != 0 {
		k = sort.Search(k, func(i int) bool { return ch.unacked.at(i).tag > tag })
	}
	var seen queueSet
	var queues []*queue
	var run struct {
		q  *queue
		n  int
		nb int64
	}
	for i := 0; i < k; i++ {
		d := ch.unacked.at(i)
		if d.done {
			continue
		}
		if d.q != run.q {
			if run.q != nil {
				run.q.accountUnacked(-run.n, -run.nb)
			}
			run.q, run.n, run.nb = d.q, 0, 0
			if seen.add(d.q) {
				queues = append(queues, d.q)
			}
		}
		run.n++
		run.nb += int64(len(d.e.msg.Body))
		ch.unackedLive--
		if d.c != nil {
			d.c.unacked--
			ch.consumerLive--
		}
	}
	if run.q != nil {
		run.q.accountUnacked(-run.n, -run.nb)
	}
	end := bulkEnd{vhost: ch.conn.vhost.name, kind: EvAcked, ch: ch, acked: unackedList{ch.unacked.takeFront(k)}}
	if len(queues) > 0 {
		end.queue = queues[0].name
	}
	ch.trim()
	ch.armAckTimer()
	for i := 0; i < b.cfg.MaxBatch && end.acked.len() > 0; i++ {
		b.emitNextAck(&end)
	}
	if end.acked.len() == 0 {
		ch.dispatchAfter(queues)
		return
	}
	end.then = queues
	b.holdEnd(end)
}

// emitNextAck emits the Acked event of end's oldest delivery, passing over
// those acknowledged before (kept in the list until trimmed), and drops it.
func (b *Broker) emitNextAck(end *bulkEnd) {
	for end.acked.len() > 0 {
		d := *end.acked.at(0)
		end.acked.dropFront()
		if d.done {
			continue
		}
		ev := b.emitted(EvAcked)
		ev.Vhost, ev.Channel, ev.Queue, ev.MsgID, ev.Msg = d.q.vhost.name, end.ch.id, d.q.name, d.e.msg.ID, d.e.msg
		ev.DeliveryTag, ev.ConsumerTag = d.tag, d.ctag
		return
	}
}
