package engine

import "sort"

// Bulk settlements: basic.ack multiple of a channel's many deliveries, and
// basic.nack multiple of them without requeue.
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
//
// Rejections without requeue go the same way, and their dead letters
// follow their Rejected events and the dispatch, as in one call, a batch
// per call (routing each is real work: 206 ms for 400,000). So the
// dead-letter queues fill over several calls, as with expiry into a
// dead-letter exchange (backlog.go), in the order of the tags; where a
// copy dead-letters to is read when it does, as RabbitMQ's queue process
// reads its dead-letter settings when it handles the rejection. Requeueing
// nacks and those in a transaction keep the one-call path.

// settleUpTo acknowledges, or with reject rejects without requeueing,
// every live delivery up to and including tag (0: all), outside a
// transaction. The tag, if not 0, is known to be live.
func (ch *channel) settleUpTo(tag uint64, reject bool) {
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
		if b.dlog != nil {
			d.q.durableDone(&d.e)
		}
		ch.unackedLive--
		if d.c != nil {
			d.c.unacked--
			ch.consumerLive--
		}
	}
	if run.q != nil {
		run.q.accountUnacked(-run.n, -run.nb)
	}
	end := bulkEnd{vhost: ch.conn.vhost.name, kind: EvAcked, ch: ch, acked: unackedList{ch.unacked.takeFront(k)}, then: queues}
	if reject {
		end.kind = EvRejected
	}
	if len(queues) > 0 {
		end.queue = queues[0].name
	}
	ch.trim()
	ch.armAckTimer()
	if end.left() == 0 {
		ch.dispatchAfter(queues)
		return
	}
	for i := 0; i < b.cfg.MaxBatch && end.left() > 0; i++ {
		b.stepSettled(&end)
	}
	if end.left() > 0 {
		b.holdEnd(end)
	}
}

// stepSettled does the work of one of end's deliveries: its Acked or
// Rejected event; for a rejection, once every event is out, its dead
// letter. Deliveries acknowledged before (kept in the list until trimmed)
// are passed over. When the events are out the queues dispatch to the
// credit the channel regained, as they would after one unbounded call.
func (b *Broker) stepSettled(end *bulkEnd) {
	l := &end.acked
	if end.kind == EvAcked {
		for l.len() > 0 && l.at(0).done {
			l.dropFront()
		}
		if l.len() > 0 {
			d := *l.at(0)
			l.dropFront()
			ev := b.emitted(EvAcked)
			ev.Vhost, ev.Channel, ev.Queue, ev.MsgID, ev.Msg = d.q.vhost.name, end.ch.id, d.q.name, d.e.msg.ID, d.e.msg
			ev.DeliveryTag, ev.ConsumerTag = d.tag, d.ctag
		}
		for l.len() > 0 && l.at(0).done {
			l.dropFront()
		}
		if l.len() == 0 {
			end.ch.unacked.adoptSpare(&l.chunked)
			end.ch.dispatchAfter(end.then)
		}
		return
	}
	if end.pos < l.len() {
		for end.pos < l.len() && l.at(end.pos).done {
			end.pos++
		}
		if end.pos < l.len() {
			d := l.at(end.pos)
			end.pos++
			ev := b.emitted(EvRejected)
			ev.Vhost, ev.Channel, ev.Queue, ev.MsgID, ev.Msg = d.q.vhost.name, end.ch.id, d.q.name, d.e.msg.ID, d.e.msg
			ev.DeliveryTag = d.tag
		}
		for end.pos < l.len() && l.at(end.pos).done {
			end.pos++
		}
		if end.pos == l.len() {
			end.ch.dispatchAfter(end.then)
		}
		return
	}
	for l.len() > 0 && l.at(0).done {
		l.dropFront()
	}
	if l.len() > 0 {
		d := *l.at(0)
		l.dropFront()
		d.q.deadLetter(d.e.msg, ReasonRejected)
	}
	for l.len() > 0 && l.at(0).done {
		l.dropFront()
	}
}
