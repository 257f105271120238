package engine

import "sort"

// Bulk returns: many of a channel's deliveries going back to their queues
// at once — the channel closing, basic.recover, basic.nack multiple with
// requeue.
//
// A consumer with unlimited prefetch may hold all of 400,000 deliveries;
// returning them was 40-120 ms of one command, most of it the Requeued
// events and the stores' inserts. What the channel sees changes in the
// command: the deliveries leave its unacked list (a later ack of one is 406
// "unknown delivery tag" at once), its consumers' credit comes back, and a
// closing channel is told closed. The copies themselves are in transit:
// the list's chunks move whole to a bulkEnd (bulkend.go) and go back to
// their queues a batch per call, Requeued events in tag order, through the
// bulk-end continuation (backlog.go). Until a copy is back it still counts
// as unacknowledged in its queue's, vhost's and broker's totals, so the
// memory alarm and the management API's message totals never miss it.
//
// RabbitMQ's queue process takes a channel's returns in one message and
// handles nothing else of that queue until they are back
// (rabbit_amqqueue_process requeue/3), while other queues go on. So here:
//   - a queue with copies in transit delivers nothing until they are all
//     back (dispatch waits; the last batch dispatches), so no consumer gets
//     a later message before an earlier one that is on its way back;
//   - a command that reads or takes from what the queue holds first
//     brings its copies back (catchUp: queue.declare's and basic.get-ok's
//     counts, basic.get, purge, queue.delete, a publish to a queue with a
//     length limit, a policy change), so what it reports is RabbitMQ's;
//   - a publish to the queue otherwise goes behind them as RabbitMQ orders
//     it: a classic queue returns copies to their places by sequence, a
//     quorum queue to its head; a quorum queue that returns a client's
//     rejections to its back (no delivery limit) brings them back first.
//
// Commands on other queues, and other channels' acknowledgements, go
// between the batches. A driver that settles (the script runner) sees
// every return before its next line, in the order one unbounded call
// makes, except that a closing channel's ChannelClosed event comes after
// the first batch's returns rather than after the last.

// returnUpTo takes every live delivery up to and including tag (0: all)
// off the channel and returns the bulk end that brings them back to their
// queues, with the first batch of them already back. The channel's and
// its consumers' counts change now; the queues' as each copy arrives. The
// caller finishes the end: b.finishReturn once it is empty, else holdEnd.
func (ch *channel) returnUpTo(tag uint64, how returnHow) bulkEnd {
	k := ch.unacked.len()
	if tag != 0 {
		k = sort.Search(k, func(i int) bool { return ch.unacked.at(i).tag > tag })
	}
	var seen queueSet
	var queues []*queue
	var run struct {
		q *queue
		n int
	}
	for i := 0; i < k; i++ {
		d := ch.unacked.at(i)
		if d.done {
			continue
		}
		if d.q != run.q {
			if run.q != nil {
				run.q.returning += run.n
			}
			run.q, run.n = d.q, 0
			if seen.add(d.q) {
				queues = append(queues, d.q)
			}
		}
		run.n++
		ch.unackedLive--
		if d.c != nil {
			d.c.unacked--
			ch.consumerLive--
		}
	}
	if run.q != nil {
		run.q.returning += run.n
	}
	end := bulkEnd{vhost: ch.conn.vhost.name, kind: EvRequeued, ch: ch, how: how, acked: unackedList{ch.unacked.takeFront(k)}}
	// A transaction's buffered acknowledgements go back after the rest,
	// as when the channel closes (they left the unacked list already).
	if how == returnOnClose {
		for _, a := range ch.txAcks {
			d := a.d
			d.done = false
			end.acked.push(d)
			d.q.returning++
			if seen.add(d.q) {
				queues = append(queues, d.q)
			}
		}
	}
	end.then = queues
	if len(queues) > 0 {
		end.queue = queues[0].name
	}
	ch.trim()
	ch.armAckTimer()
	for i := 0; i < ch.b.cfg.MaxBatch && end.left() > 0; i++ {
		ch.b.stepReturn(&end)
	}
	return end
}

// stepReturn brings the next of end's copies back to its queue, passing
// over those a catchUp brought back already.
func (b *Broker) stepReturn(end *bulkEnd) {
	l := &end.acked
	for l.len() > 0 && l.at(0).done {
		l.dropFront()
	}
	if l.len() > 0 {
		// A policy change not yet applied to the queue applies first,
		// bringing back all of its copies under the old settings, as
		// the change did in one call (queuewalk.go).
		if l.at(0).q.current(); !l.at(0).done {
			b.returnOne(end, l.at(0))
		}
		l.dropFront()
	}
	for l.len() > 0 && l.at(0).done {
		l.dropFront()
	}
}

// returnOne brings one copy in transit back to its queue and marks it
// done in end's list.
func (b *Broker) returnOne(end *bulkEnd, d *delivery) {
	v := *d
	d.done, d.e = true, entry{}
	v.q.returning--
	v.q.accountUnacked(-1, -int64(len(v.e.msg.Body)))
	v.q.requeue(v.e, end.ch.id, v.tag, end.how)
}

// finishReturn runs when every copy of end is back: the queues deliver
// again, and a closed channel's auto-delete queues that lost their last
// consumer go, as after one unbounded call.
func (b *Broker) finishReturn(end *bulkEnd) {
	end.ch.dispatchAfter(end.then)
	for _, q := range end.autoDelete {
		q.maybeAutoDelete()
	}
}

// bringBack brings back every copy of q still in transit, in the order
// the bulk ends hold them (see the file comment: catchUp). The ends
// themselves finish in the continuation, which passes over these.
func (q *queue) bringBack() {
	if q.returning == 0 {
		return
	}
	b := q.vhost.b
	for i := range b.ends {
		end := b.ends[i]
		if end.kind != EvRequeued {
			continue
		}
		for j := 0; j < end.acked.len() && q.returning > 0; j++ {
			if d := end.acked.at(j); !d.done && d.q == q {
				b.returnOne(end, d)
			}
		}
	}
}

// finishReturnUpTo returns the channel's deliveries up to tag (0: all),
// for basic.recover and basic.nack multiple with requeue: the first batch
// now, the rest through the continuation.
func (ch *channel) finishReturnUpTo(tag uint64, how returnHow) {
	end := ch.returnUpTo(tag, how)
	if end.left() == 0 {
		ch.b.finishReturn(&end)
	} else {
		ch.b.holdEnd(end)
	}
}
