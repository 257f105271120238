package engine

// Length limits: x-max-length and x-max-length-bytes, from queue arguments
// or policies.
//
// With overflow drop-head the oldest ready messages go until the queue
// fits, each Overflowed, and dead-lettered with reason maxlen if the queue
// has a dead-letter exchange. One publish drops one or a few; a policy or
// a redeclare that lowers the limit under a queue of 400,000 drops nearly
// all of them in one command, which took 250-310 ms to a dead-letter
// exchange and 55-115 ms by bytes. So a drop of more than a batch
// (Config.MaxBatch) goes like a purge (bulkend.go): the messages leave the
// queue in the command, its counts and the vhost's and broker's with
// them, as RabbitMQ's queue process drops them before its next request;
// the Overflowed events after the first batch follow a batch per call,
// then, to a dead-letter exchange, the dead letters a batch per call, in
// the order one unbounded call makes them: every Overflowed event, then
// every dead letter. Where they die to is the queue's dead-letter
// exchange and routing key at the drop, as when RabbitMQ's queue process
// dead-letters them there, whatever a later policy says; so the
// dead-letter queue fills over several calls, as with expiry or a bulk
// rejection into a dead-letter exchange.

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
// are dropped (dead-lettered with reason maxlen) until the queue fits, a
// batch now and any more in bulk (see the file comment).
func (q *queue) dropHeadOverflow() {
	if q.set.overflow != OverflowDropHead {
		return
	}
	b := q.vhost.b
	from := len(b.pendingDL)
	for i := 0; q.ready.len() > 0 && q.overLimit(); i++ {
		if i == b.cfg.MaxBatch {
			q.dropHeadInBulk(from)
			return
		}
		e := q.ready.pop()
		b.emit(Event{Kind: EvOverflowed, Vhost: q.vhost.name, Queue: q.name, MsgID: e.msg.ID, Msg: e.msg, Overflow: OverflowDropHead})
		q.deadLetter(e.msg, ReasonMaxLen)
	}
}

// dropHeadInBulk lets go of every message still over the limit once a
// batch has been dropped, whose dead letters are b.pendingDL[from:]: those
// wait, with the rest's, for the last Overflowed event.
func (q *queue) dropHeadInBulk(from int) {
	b := q.vhost.b
	end := bulkEnd{vhost: q.vhost.name, queue: q.name, kind: EvOverflowed, reason: OverflowDropHead, dl: q.diesTo()}
	for _, p := range b.pendingDL[from:] {
		end.dead.push(p.msg)
	}
	clear(b.pendingDL[from:])
	b.pendingDL = b.pendingDL[:from]
	end.held = q.takeHead(q.ready.frontOver(q.set.maxLen, q.set.maxBytes))
	b.holdEnd(end)
}
