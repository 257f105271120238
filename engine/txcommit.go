package engine

// Commits in batches.
//
// tx.commit applies every publish and acknowledgement the transaction
// buffered, in order; a client that buffered 400,000 makes one command of
// them all. RabbitMQ's channel process works through them before it reads
// the channel's next frame, and sends tx.commit-ok after the last; other
// channels and queues go on meanwhile, and a consumer of a queue the
// commit publishes to may see the first messages before the last are
// routed (RabbitMQ's transactions are not atomic across queues). So here
// the command applies the first batch (Config.MaxBatch) and the rest
// follow through the bulk-end continuation (bulkend.go, backlog.go); the
// TxCommitted event, which the server turns into tx.commit-ok, comes after
// the last. A later command on the same channel (channelFor), or its
// closing, first finishes the commit, as the channel process would.

// txCommit is a transaction being applied: its publishes, then its
// acknowledgements, the queues they settled at, and how far it has got.
type txCommit struct {
	pubs   []txPublish
	acks   []txAck
	next   int
	queues []*queue
}

// left returns how many publishes and acknowledgements are still to apply.
func (c *txCommit) left() int { return len(c.pubs) + len(c.acks) - c.next }

// stepCommit applies the next publish or acknowledgement of the channel's
// commit (there is one unless the commit is empty); after the last it
// emits TxCommitted and lets the queues settled
// at deliver to the credit regained.
func (ch *channel) stepCommit() {
	b, c := ch.b, ch.commit
	switch i := c.next; {
	case c.left() == 0:
		// An empty commit: nothing to apply.
	case i < len(c.pubs):
		p := c.pubs[i]
		c.pubs[i] = txPublish{}
		if !p.x.deleted {
			b.publish(ch, p.x, p.msg, p.mandatory, 0)
		}
	default:
		a := c.acks[i-len(c.pubs)]
		c.acks[i-len(c.pubs)] = txAck{}
		d := a.d
		d.q.accountUnacked(-1, -int64(len(d.e.msg.Body)))
		if d.c != nil {
			d.c.unacked--
			ch.consumerLive--
		}
		c.queues = append(c.queues, d.q)
		if b.dlog != nil && !a.kind.requeue {
			d.q.durableDone(&d.e)
		}
		switch {
		case a.kind.ack:
			b.emit(Event{Kind: EvAcked, Vhost: d.q.vhost.name, Channel: ch.id, Queue: d.q.name, MsgID: d.e.msg.ID, Msg: d.e.msg, DeliveryTag: d.tag, ConsumerTag: d.ctag})
		case a.kind.requeue:
			d.q.requeue(d.e, ch.id, d.tag, returnByClient)
		default:
			b.emit(Event{Kind: EvRejected, Vhost: d.q.vhost.name, Channel: ch.id, Queue: d.q.name, MsgID: d.e.msg.ID, Msg: d.e.msg, DeliveryTag: d.tag})
			d.q.deadLetter(d.e.msg, ReasonRejected)
		}
	}
	c.next = min(c.next+1, len(c.pubs)+len(c.acks))
	if c.left() == 0 {
		ch.commit = nil
		b.emit(Event{Kind: EvTxCommitted, Vhost: ch.conn.vhost.name, Channel: ch.id, Operations: len(c.pubs) + len(c.acks)})
		ch.afterSettle(c.queues)
	}
}

// finishCommit applies what is left of the channel's commit now, before
// a later command on the channel (see the file comment). The continuation
// passes over the finished commit.
func (ch *channel) finishCommit() {
	for ch.commit != nil {
		ch.stepCommit()
	}
}
