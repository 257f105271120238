package engine

// offer is how a routed message arrives at a queue. It returns false when
// the queue refuses it (reject-publish overflow), which nacks a confirmed
// publish. The order follows RabbitMQ's classic queue process: the overflow
// check first, then direct delivery to a waiting consumer, otherwise enqueue,
// drop-head and expiry at the head. via is the binding that routed m here,
// for the Enqueued event.
func (q *queue) offer(m *Message, via *Via) bool {
	q.current()
	b := q.vhost.b
	if q.set.maxLen >= 0 || q.set.maxBytes >= 0 {
		// Whether it fits is counted without the messages that expired
		// and with those on their way back (backlog.go).
		q.catchUp()
	} else if q.returning > 0 && q.quorum && q.set.deliveryLimit < 0 {
		// Rejected copies on their way to this quorum queue's back go
		// before the new message (bulkreturn.go).
		q.bringBack()
	}
	if q.willOverflow(m) {
		switch q.set.overflow {
		case OverflowRejectPublish:
			b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m, Overflow: OverflowRejectPublish})
			return false
		case OverflowRejectPublishDLX:
			b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m, Overflow: OverflowRejectPublishDLX})
			q.deadLetter(m, ReasonMaxLen)
			return false
		}
	}
	q.nextSeq++
	e := entry{msg: m, via: via, seq: q.nextSeq, enqueuedAt: b.now, priority: m.Priority(), expiresAt: q.expiryFor(m, b.now)}
	if q.set.maxPriority == 0 {
		e.priority = 0
	} else if int(e.priority) > q.set.maxPriority {
		e.priority = uint8(q.set.maxPriority)
	}
	ev := b.emitted(EvEnqueued)
	ev.Vhost, ev.Queue, ev.MsgID, ev.Msg, ev.Via = q.vhost.name, q.name, m.ID, m, via
	if e.expiresAt != Never {
		ev.At = e.expiresAt
	}
	if q.ready.len() == 0 && q.returning == 0 {
		if c := q.pickConsumer(); c != nil {
			q.handTo(c, e)
			return true
		}
	}
	q.ready.push(e)
	q.dropHeadOverflow()
	q.expireDue()
	return true
}

// expiryFor computes a copy's expiry: the lower of the queue's message TTL
// and the message's own expiration.
func (q *queue) expiryFor(m *Message, now Time) Time {
	ttl := q.set.ttlMs
	if msgTTL := m.ttlMs(); msgTTL >= 0 && (ttl < 0 || msgTTL < ttl) {
		ttl = msgTTL
	}
	if ttl < 0 {
		return Never
	}
	if ttl == 0 && q.quorum {
		// rabbit_fifo: "We do not comply exactly with the 'TTL=0 models
		// AMQP immediate flag' semantics as done for classic queues ...
		// Instead, we discard the message if it cannot be consumed within
		// the same millisecond when it got enqueued."
		return now + 1
	}
	return now + Time(ttl)
}

// handTo delivers e to consumer c and rotates c to the back of the
// round-robin order.
func (q *queue) handTo(c *consumer, e entry) {
	c.ch.deliver(q, e, c, c.noAck)
	for i, x := range q.consumers {
		if x == c {
			copy(q.consumers[i:], q.consumers[i+1:])
			q.consumers[len(q.consumers)-1] = c
			break
		}
	}
}

// pickConsumer chooses who gets the next message: the single active
// consumer if the queue has one, otherwise the highest-priority consumer
// with credit, earliest in round-robin order.
func (q *queue) pickConsumer() *consumer {
	if q.sac {
		if q.active != nil && q.active.hasCredit() && !q.sacQuiescing() {
			return q.active
		}
		return nil
	}
	var best *consumer
	for _, c := range q.consumers {
		if c.hasCredit() && (best == nil || c.priority > best.priority) {
			best = c
		}
	}
	return best
}

// dispatch delivers ready messages while some consumer has credit.
// Expired messages at the head are removed first, so no consumer ever
// receives one, and right after every delivery: RabbitMQ drops expired
// messages after every fetch, so a head that a delivery exposes goes now,
// not when the timer next fires. One call delivers and expires at most a
// batch (Config.MaxBatch) in all; a continuation does the rest
// (backlog.go): the expiry timer if the head is expired, else the queue's
// dispatch timer.
func (q *queue) dispatch() {
	if q.deleted || q.returning > 0 {
		// Copies on their way back go first; the last of them
		// dispatches (bulkreturn.go).
		return
	}
	q.current()
	// A quorum SAC queue may hand over to a higher-priority consumer now
	// that the active one has settled its messages.
	if q.sac {
		q.reviewActive() // (a call spared every other queue's ack)
	}
	b := q.vhost.b
	if q.ready.len() == 0 && !q.expiryTimer.Armed() {
		b.timers.Remove(&q.dispatchTimer)
		return // nothing to deliver or expire: the usual case after an ack
	}
	left := b.cfg.MaxBatch
	for ; q.ready.len() > 0 && left > 0; left-- {
		if q.headExpired() {
			q.expired(q.ready.pop().msg)
			continue
		}
		c := q.pickConsumer()
		if c == nil {
			break
		}
		q.handTo(c, q.ready.pop())
	}
	q.rearmExpiry()
	if left == 0 && q.ready.len() > 0 && !q.headExpired() && q.pickConsumer() != nil {
		q.continueDispatch()
	} else {
		b.timers.Remove(&q.dispatchTimer)
	}
}

// idle reports whether dispatch would do nothing: no message ready, no
// timer of the queue's to settle, no policy to catch up with, no single
// active consumer to review, nothing on its way back. The usual case after
// an ack, checked without the call.
func (q *queue) idle() bool {
	return q.ready.len() == 0 && q.returning == 0 && !q.sac && !q.expiryTimer.Armed() && !q.dispatchTimer.Armed() && q.policyGen == q.vhost.policyGen
}

// takeForGet removes the next live message for basic.get. The caller
// delivers it and then calls catchUp: expired messages the fetch exposes at
// the head are removed after the fetch, and before basic.get-ok reports how
// many messages remain (rabbit_amqqueue_process:fetch/2 fetches, then calls
// drop_expired_msgs), so the events tell it in that order. Neither is bounded
// by a batch: basic.get-ok's count must be RabbitMQ's (backlog.go).
func (q *queue) takeForGet() (entry, bool) {
	q.catchUp()
	if q.ready.len() == 0 {
		return entry{}, false
	}
	return q.ready.pop(), true
}

// returnHow says how an unacked copy comes back to its queue, which decides
// where a quorum queue puts it.
type returnHow uint8

const (
	returnByClient returnHow = iota // basic.nack, basic.reject or basic.recover with requeue
	returnOnClose                   // its channel (or connection) closed
)

// requeue returns an unacked copy to its queue. The copy keeps its original
// expiry and is marked redelivered. A classic queue puts it back at its
// original position. A quorum queue puts it after the other returned copies
// at the head, except that with no delivery limit a copy the client rejects
// goes to the back (quorum-queues.md, Repeated Requeues: "Messages that are
// rejected or nacked back to a quorum queue will be returned to the back of
// the queue if no delivery-limit is set ... If a delivery-limit is set it
// will use the original behaviour of returning the message near the head of
// the queue"; a closed channel's copies go to the head either way:
// rabbit_fifo return_all). In a quorum queue every return counts towards
// x-delivery-limit; past it the copy is dead-lettered with reason
// delivery_limit instead.
func (q *queue) requeue(e entry, ch ChannelID, tag uint64, how returnHow) {
	q.current()
	b := q.vhost.b
	if q.deleted {
		// The copy's queue went while it was unacked: it ends here. The
		// event names the delivery, which only this channel held.
		b.emit(Event{Kind: EvDiscarded, Vhost: q.vhost.name, Channel: ch, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag, Reason: "deleted"})
		return
	}
	e.redelivered = true
	if q.quorum {
		e.deliveries++
		if q.set.deliveryLimit >= 0 && int64(e.deliveries) > q.set.deliveryLimit {
			if b.dlog != nil {
				q.durableDone(&e)
			}
			b.emit(Event{Kind: EvDeliveryLimited, Vhost: q.vhost.name, Channel: ch, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag, Deliveries: int(e.deliveries)})
			q.deadLetter(e.msg, ReasonDeliveryLimit)
			return
		}
	}
	b.emit(Event{Kind: EvRequeued, Vhost: q.vhost.name, Channel: ch, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag})
	switch {
	case !q.quorum:
		q.ready.returnBySeq(e)
	case how == returnByClient && q.set.deliveryLimit < 0:
		q.ready.push(e)
	default:
		q.ready.returnInOrder(e)
	}
	if !q.quorum && !b.restarting {
		// A requeue is not refused by reject-publish, but a classic queue
		// with drop-head trims itself right after it, from the head
		// (observed: RabbitMQ 3.10.8, observations.md §12 (d), (e)); a
		// restart trims once all are back (restart.go).
		q.dropHeadOverflow()
	}
	q.rearmExpiry()
}
