package engine

// Bulk endings: many ready messages of a queue ending at once.
//
// queue.purge and queue.delete end all of a queue's ready messages in one
// command, and a length limit set lower by a policy (or a declare) may end
// most of them from the head (drop-head, queue_overflow.go); each copy's
// end is an event (Purged, Discarded with the deletion's reason, or
// Overflowed, then a dead letter if the queue has a dead-letter exchange):
// the playground animates them, scripts print them,
// and the engine's contract is that every copy's life ends with one. At
// 400,000 messages that is 93 MB of events made in one command. So the
// queue lets go of its messages at once — its counts, the vhost's and the
// broker's drop in the command, and the queue (or a new one of the same
// name) holds nothing of them — but the events after the first batch
// (Config.MaxBatch) follow in later calls, through a continuation
// (backlog.go), in the same order. Drivers that settle (the script
// runner) see every event before the next line, as before.

// A channel's acknowledgement of many deliveries ends them the same way
// (bulkack.go), and its returning many to their queues goes the same way
// (bulkreturn.go).

// bulkEnd is a queue's ready messages let go of, whose events are still to
// come, in delivery order.
type bulkEnd struct {
	vhost, queue string
	kind         EventKind // EvPurged, EvDiscarded or EvOverflowed
	reason       string    // the Discarded events' Reason, the Overflowed events' Overflow
	held         store     // counted in no totals

	// For a drop-head to a dead-letter exchange (queue_overflow.go):
	// where the messages die to, as the queue said at the drop, and the
	// messages whose Overflowed event is out, to dead-letter once every
	// event is.
	dl   *deadLetterSource
	dead chunked[*Message]

	// For a channel's acknowledgements or rejections (bulkack.go), kind
	// EvAcked or EvRejected: the channel, the deliveries settled (counted
	// in no totals), the queues to dispatch to once their events are out,
	// and for rejections how far the events have got (the dead letters
	// follow them).
	ch    *channel
	acked unackedList
	then  []*queue
	pos   int

	// For deliveries going back to their queues (bulkreturn.go), kind
	// EvRequeued: how they return, and a closed channel's consumers'
	// queues to auto-delete once they are back.
	how        returnHow
	autoDelete []*queue

	// For a transaction's commit (txcommit.go), kind EvTxCommitted: what
	// it still has to apply, on channel ch.
	commit *txCommit

	// For a policy change or a vhost deletion (queuewalk.go): the walk
	// over the vhost's queues.
	walk *queueWalk
}

// left returns how many of end's messages may still have events to come.
func (end *bulkEnd) left() int {
	switch {
	case end.walk != nil:
		return end.walk.left()
	case end.commit != nil:
		if end.ch.commit != end.commit {
			return 0 // finished early (txcommit.go)
		}
		return end.commit.left()
	case end.ch != nil:
		return end.acked.len()
	}
	return end.held.len() + end.dead.len()
}

// letGo ends every ready message of the queue with an event of kind k:
// the first batch now, the rest through b.ends. It returns how many there
// were.
func (q *queue) letGo(k EventKind, reason string) int {
	b := q.vhost.b
	n := q.ready.len()
	end := bulkEnd{vhost: q.vhost.name, queue: q.name, kind: k, reason: reason}
	for i := 0; i < b.cfg.MaxBatch && q.ready.len() > 0; i++ {
		b.emitEnd(&end, q.ready.pop())
	}
	if q.ready.len() > 0 {
		end.held = q.takeHead(q.ready.len())
		b.holdEnd(end)
	}
	return n
}

// takeHead takes the first n ready messages of the queue (there must be
// as many) into a store of their own, counted in no totals: the whole
// store when that is all of them, else its front chunks
// (store.takeFront).
func (q *queue) takeHead(n int) store {
	if n < q.ready.len() {
		return q.ready.takeFront(n)
	}
	held := q.ready
	held.vhostTotal, held.brokerTotal, held.jq = nil, nil, nil
	q.ready.account(-q.ready.n, -q.ready.bytes)
	jq := q.ready.jq
	q.ready = newStore(q.set.maxPriority, q.ready.vhostTotal, q.ready.brokerTotal)
	if q.ready.jq = jq; jq != nil {
		q.durableTakeAll(&held)
	}
	return held
}

// holdEnd leaves end's events to the continuation, after those already
// waiting.
func (b *Broker) holdEnd(end bulkEnd) {
	b.ends = append(b.ends, &end)
	if !b.endsTimer.Armed() {
		b.endsTimer.Value = timerRef{kind: timerBulkEnd, armedDue: true}
		b.timers.Reset(&b.endsTimer, int64(b.now))
	}
}

// emitEnd emits the event that ends one of end's messages, and keeps the
// message to dead-letter if it dies somewhere.
func (b *Broker) emitEnd(end *bulkEnd, e entry) {
	ev := b.emitted(end.kind)
	ev.Vhost, ev.Queue, ev.MsgID, ev.Msg = end.vhost, end.queue, e.msg.ID, e.msg
	if end.kind == EvOverflowed {
		ev.Overflow = end.reason
	} else {
		ev.Reason = end.reason
	}
	if end.dl != nil {
		end.dead.push(e.msg)
	}
}

// stepEnd ends the next of end's held messages, or once every event is
// out dead-letters the next of them.
func (b *Broker) stepEnd(end *bulkEnd) {
	if end.held.len() > 0 {
		b.emitEnd(end, end.held.pop())
		return
	}
	m := *end.dead.at(0)
	end.dead.dropFront()
	b.deadLetterFrom(end.dl, m, ReasonMaxLen)
}

// continueEnds emits the next batch of held endings, oldest first, and
// continues if any are left.
func (b *Broker) continueEnds() {
	for budget := b.cfg.MaxBatch; len(b.ends) > 0; budget-- {
		end := b.ends[0]
		if w := end.walk; w != nil && w.visitedAll() {
			// Nothing left to visit: it finishes at no cost, so
			// that it takes no call of its own (queuewalk.go).
			b.finishWalk(w)
			b.ends[0] = nil
			b.ends = b.ends[1:]
			budget++
			continue
		}
		if budget <= 0 {
			break
		}
		switch {
		case end.walk != nil:
			held := len(b.ends)
			budget -= b.stepWalk(end.walk) - 1
			if b.heldFirst(held) {
				continue
			}
		case end.commit != nil:
			if end.ch.commit == end.commit {
				end.ch.stepCommit()
			}
		case end.kind == EvRequeued:
			b.stepReturn(end)
			if end.left() == 0 {
				b.finishReturn(end)
			}
		case end.ch != nil:
			b.stepSettled(end)
		default:
			b.stepEnd(end)
		}
		if end.left() == 0 {
			b.ends[0] = nil
			b.ends = b.ends[1:]
		}
	}
	b.flush()
	if len(b.ends) > 0 {
		b.timers.Reset(&b.endsTimer, int64(b.now))
	} else {
		b.ends = nil
	}
}
