package engine

// Publisher confirms and transactions. A channel is in at most one of the
// two modes; RabbitMQ refuses a switch with 406.

// txPublish is a publish waiting for tx.commit.
type txPublish struct {
	x         *exchange
	msg       *Message
	mandatory bool
}

// txAckKind says what a buffered acknowledgement does at commit.
type txAckKind struct {
	ack     bool
	requeue bool
}

// txAck is an ack, nack or reject waiting for tx.commit. The delivery has
// left the unacked list (so it cannot be acked twice) but is restored by
// rollback.
type txAck struct {
	d    delivery
	kind txAckKind
}

func (ch *channel) bufferAcks(ds []*delivery, k txAckKind) {
	for _, d := range ds {
		v := *d
		if ch.b.dlog != nil {
			v.q.durableBuffer(&v.e, true)
		}
		d.done = true
		d.e = entry{}
		ch.unackedLive--
		ch.txAcks = append(ch.txAcks, txAck{d: v, kind: k})
	}
	ch.trim()
	ch.armAckTimer()
}

func (b *Broker) confirmSelect(id ChannelID) error {
	ch, err := b.channelFor(id, MethodConfirmSelect)
	if err != nil {
		return err
	}
	if ch.tx {
		return b.fail(ch, channelErr(PreconditionFailed, MethodConfirmSelect, "cannot switch from tx to confirm mode"))
	}
	ch.confirm = true
	return nil
}

func (b *Broker) txSelect(id ChannelID) error {
	ch, err := b.channelFor(id, MethodTxSelect)
	if err != nil {
		return err
	}
	if ch.confirm {
		return b.fail(ch, channelErr(PreconditionFailed, MethodTxSelect, "cannot switch from confirm to tx mode"))
	}
	ch.tx = true
	return nil
}

func (b *Broker) commitTx(id ChannelID) error {
	ch, err := b.channelFor(id, MethodTxCommit)
	if err != nil {
		return err
	}
	if !ch.tx {
		return b.fail(ch, channelErr(PreconditionFailed, MethodTxCommit, "channel is not transactional"))
	}
	c := &txCommit{pubs: ch.txPubs, acks: ch.txAcks}
	ch.txPubs, ch.txAcks = nil, nil
	ch.commit = c
	for i := 0; i < b.cfg.MaxBatch && ch.commit == c; i++ {
		ch.stepCommit()
	}
	if ch.commit == c {
		b.holdEnd(bulkEnd{vhost: ch.conn.vhost.name, kind: EvTxCommitted, ch: ch, commit: c})
	}
	b.flush()
	return nil
}

func (b *Broker) rollbackTx(id ChannelID) error {
	ch, err := b.channelFor(id, MethodTxRollback)
	if err != nil {
		return err
	}
	if !ch.tx {
		return b.fail(ch, channelErr(PreconditionFailed, MethodTxRollback, "channel is not transactional"))
	}
	n := len(ch.txPubs) + len(ch.txAcks)
	for _, a := range ch.txAcks {
		if b.dlog != nil {
			a.d.q.durableBuffer(&a.d.e, false)
		}
		ch.restoreUnacked(a.d)
	}
	ch.txPubs, ch.txAcks = nil, nil
	ch.armAckTimer()
	b.emit(Event{Kind: EvTxRolledBack, Vhost: ch.conn.vhost.name, Channel: ch.id, Operations: n})
	return nil
}

// restoreUnacked puts a delivery back into the unacked list in tag order.
func (ch *channel) restoreUnacked(d delivery) {
	ch.unacked.insert(d)
	ch.unackedLive++
}
