package engine

// offer is how a routed message arrives at a queue. It returns false when
// the queue refuses it (reject-publish overflow), which nacks a confirmed
// publish. The order follows RabbitMQ's classic queue process: the overflow
// check first, then direct delivery to a waiting consumer, otherwise enqueue,
// drop-head and expiry at the head.
func (q *queue) offer(m *Message) bool {
	b := q.vhost.b
	if q.willOverflow(m) {
		switch q.set.overflow {
		case OverflowRejectPublish:
			b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m, Reason: OverflowRejectPublish})
			return false
		case OverflowRejectPublishDLX:
			b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m, Reason: OverflowRejectPublishDLX})
			q.deadLetter(m, ReasonMaxLen)
			return false
		}
	}
	q.nextSeq++
	e := entry{msg: m, seq: q.nextSeq, enqueuedAt: b.now, priority: m.Priority(), expiresAt: q.expiryFor(m, b.now)}
	if q.set.maxPriority == 0 {
		e.priority = 0
	} else if int(e.priority) > q.set.maxPriority {
		e.priority = uint8(q.set.maxPriority)
	}
	ev := Event{Kind: EvEnqueued, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m}
	if e.expiresAt != Never {
		ev.At = e.expiresAt
	}
	b.emit(ev)
	if q.ready.len() == 0 {
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
	if m.ttlMs >= 0 && (ttl < 0 || m.ttlMs < ttl) {
		ttl = m.ttlMs
	}
	if ttl < 0 {
		return Never
	}
	return now + Time(ttl)
}

// willOverflow is RabbitMQ's will_overflow: would one more ready message of
// this size exceed x-max-length or x-max-length-bytes? Only ready messages
// count, never unacked ones.
func (q *queue) willOverflow(m *Message) bool {
	if q.set.maxLen >= 0 && int64(q.ready.len())+1 > q.set.maxLen {
		return true
	}
	return q.set.maxBytes >= 0 && q.ready.bytes+int64(len(m.Body)) > q.set.maxBytes
}

func (q *queue) overLimit() bool {
	if q.set.maxLen >= 0 && int64(q.ready.len()) > q.set.maxLen {
		return true
	}
	return q.set.maxBytes >= 0 && q.ready.bytes > q.set.maxBytes
}

// dropHeadOverflow applies overflow drop-head: the oldest ready messages
// are dropped (dead-lettered with reason maxlen) until the queue fits.
func (q *queue) dropHeadOverflow() {
	if q.set.overflow != OverflowDropHead {
		return
	}
	b := q.vhost.b
	for q.ready.len() > 0 && q.overLimit() {
		e := q.ready.pop()
		b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, Reason: OverflowDropHead})
		q.deadLetter(e.msg, ReasonMaxLen)
	}
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
		if q.active != nil && q.active.hasCredit() {
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

// dispatch delivers ready messages while some consumer has credit. Expired
// messages at the head are removed first, so no consumer ever receives one.
func (q *queue) dispatch() {
	if q.deleted {
		return
	}
	q.expireDue()
	for q.ready.len() > 0 {
		c := q.pickConsumer()
		if c == nil {
			break
		}
		if q.headExpired() {
			q.expireDue()
			continue
		}
		q.handTo(c, q.ready.pop())
	}
	q.rearmExpiry()
}

// takeForGet removes the next live message for basic.get.
func (q *queue) takeForGet() (entry, bool) {
	q.expireDue()
	if q.ready.len() == 0 {
		return entry{}, false
	}
	e := q.ready.pop()
	q.rearmExpiry()
	return e, true
}

// requeue returns an unacked copy to its original position. The copy keeps
// its original expiry and is marked redelivered. In a quorum queue every
// return counts towards x-delivery-limit; past it the copy is dead-lettered
// with reason delivery_limit instead.
func (q *queue) requeue(e entry, ch ChannelID, tag uint64) {
	b := q.vhost.b
	if q.deleted {
		b.emit(Event{Kind: EvDiscarded, Vhost: q.vhost.name, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, Reason: "deleted"})
		return
	}
	e.redelivered = true
	if q.quorum {
		e.deliveries++
		if q.set.deliveryLimit >= 0 && int64(e.deliveries) > q.set.deliveryLimit {
			b.emit(Event{Kind: EvDeliveryLimited, Vhost: q.vhost.name, Channel: ch, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag, Count: int(e.deliveries)})
			q.deadLetter(e.msg, ReasonDeliveryLimit)
			return
		}
	}
	b.emit(Event{Kind: EvRequeued, Vhost: q.vhost.name, Channel: ch, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, DeliveryTag: tag})
	q.ready.insertBySeq(e)
	q.rearmExpiry()
}
