package engine

// MessageTotals counts the message copies the broker holds, and their body
// bytes, by where they wait. Each is kept up to date as messages move, so
// reading them costs nothing whatever the broker holds.
type MessageTotals struct {
	Ready   Tally // in queues, waiting for a consumer
	Unacked Tally // delivered, waiting for an ack (including acks buffered in a transaction)
	Delayed Tally // held by delayed-message exchanges until their delay elapses
}

// Tally is a count of messages and their body bytes.
type Tally struct{ Msgs, Bytes int64 }

// All is every message the broker holds: what a driver's memory alarm
// must watch, since a consumer that never acks, or a delayed exchange,
// holds messages just as a queue does.
func (t MessageTotals) All() Tally {
	return Tally{Msgs: t.Ready.Msgs + t.Unacked.Msgs + t.Delayed.Msgs, Bytes: t.Ready.Bytes + t.Unacked.Bytes + t.Delayed.Bytes}
}

// MessageTotals returns the broker's message totals.
func (b *Broker) MessageTotals() MessageTotals {
	return MessageTotals{
		Ready:   Tally{b.ready.msgs, b.ready.bytes},
		Unacked: Tally{b.unacked.msgs, b.unacked.bytes},
		Delayed: Tally{b.delayed.msgs, b.delayed.bytes},
	}
}

// accountUnacked records dn deliveries from q, of db body bytes in all,
// becoming unacked (dn > 0) or settled (dn < 0): the queue's counts, which
// the management API shows, the broker's total, and the vhost's while the
// queue exists (a deleted queue's copies leave the vhost's counts with it).
func (q *queue) accountUnacked(dn int, db int64) {
	q.unacked += dn
	q.unackedBytes += db
	q.vhost.b.unacked.add(dn, db)
	if !q.deleted {
		q.vhost.counts.unacked.add(dn, db)
	}
}
