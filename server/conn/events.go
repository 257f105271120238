package conn

import (
	"warren/engine"
	"warren/engine/amqp"
	"warren/server/broker"
)

// sink receives the connection's engine events inside the backend's Do.
type sink struct{ c *conn }

// sinkKinds are the kinds of event a connection acts on: Events's cases,
// no more and no fewer (TestSinkActsOnItsKindsOnly). The broker hands it
// no other kind unless in a batch whose events of these kinds are all the
// connection's (broker.KindFilter).
var sinkKinds = broker.KindsOf(engine.EvDelivered, engine.EvReturned, engine.EvConfirmed, engine.EvNacked,
	engine.EvConsumerCancelled, engine.EvTxCommitted, engine.EvChannelClosed, engine.EvConnectionClosed)

// Kinds makes sink a broker.KindFilter.
func (sink) Kinds() broker.KindSet { return sinkKinds }

// Events queues the frames each event calls for and applies back-pressure.
// It skips the events of other connections, and of kinds it does not act
// on, which a batch handed over whole may hold (broker.KindFilter).
func (s sink) Events(e *engine.Broker, evs []engine.Event) {
	c := s.c
	c.home.inline.claim(c)
	for i := range evs {
		ev := &evs[i]
		if ev.Channel.Conn != c.id {
			continue
		}
		switch ev.Kind {
		case engine.EvDelivered, engine.EvReturned:
			c.out.push(outItem{channel: ev.Channel.Num, ev: *ev})
		case engine.EvConfirmed, engine.EvNacked:
			c.pushConfirm(outItem{channel: ev.Channel.Num, ev: *ev}, ev.Kind == engine.EvConfirmed && ev.Durable)
		case engine.EvConsumerCancelled:
			// consumer_cancel_notify: tell the client when the server
			// cancelled its consumer (its queue was deleted).
			if ev.Reason == "queue-deleted" && c.caps["consumer_cancel_notify"] == true {
				c.push(ev.Channel.Num, &amqp.BasicCancel{ConsumerTag: ev.ConsumerTag, NoWait: true})
			}
		case engine.EvTxCommitted:
			// "A transaction's commit is durable when tx.commit-ok is
			// sent": it waits for the log like a durable confirm.
			c.pushConfirm(outItem{channel: ev.Channel.Num, method: &amqp.TxCommitOk{}}, true)
		case engine.EvChannelClosed:
			if ev.Code != engine.ReplySuccess && ev.Channel.Num != 0 {
				c.serverClosedChannel(ev)
			}
		case engine.EvConnectionClosed:
			if ev.Code != engine.ReplySuccess && !c.dead {
				c.dead = true
				c.sendClose(ev.Code, ev.Text, ev.Method)
			}
		}
	}
	if !c.paused && c.out.size() > c.cfg.OutboxHighWater {
		c.paused = true
		c.pausedFlag.Store(true)
		e.Apply(engine.CmdPauseConnection{Conn: c.id, Paused: true})
	}
}

// resume lifts back-pressure once the writer has drained the outbox.
func (c *conn) resume() {
	c.b.Do(func(e *engine.Broker) {
		if c.paused && !c.dead {
			c.paused = false
			c.pausedFlag.Store(false)
			e.Apply(engine.CmdPauseConnection{Conn: c.id})
		}
	})
}

// pushConfirm queues a publisher confirm (or nack, or tx.commit-ok). One
// that promises a message survives a restart (durable) waits until the
// command log is on disk up to the command that caused it (confirms.md:
// for persistent messages routed to durable queues, the ack means the
// message was persisted to disk), and while any of the connection's
// confirms wait, the later ones wait behind them: a later ack could carry
// multiple=true (coalesceConfirms) and so answer for a waiting one.
// Deliveries and replies never wait. Without a data directory nothing
// waits.
//
// A held item waits in the connection's own FIFO, and the durability
// queue is handed the one method value that releases the oldest
// (releaseHeld): it runs its callbacks in the order they came, so each
// call releases the item its pushConfirm held, and no confirm allocates a
// closure (a confirm's item is a few hundred bytes).
func (c *conn) pushConfirm(it outItem, durable bool) {
	pos := uint64(0)
	if durable {
		pos = c.b.LogEnd()
	}
	if pos == 0 && c.heldConfirms.Load() == 0 {
		// Nothing to wait for: no data directory, or not durable.
		c.out.push(it)
		return
	}
	c.heldMu.Lock()
	c.held.push(it)
	c.heldMu.Unlock()
	c.heldConfirms.Add(1)
	c.b.AfterDurable(pos, c.releaseHeld)
}

// releaseHeld passes the oldest held confirm to the outbox (pushConfirm).
func (c *conn) releaseHeldItem() {
	c.heldMu.Lock()
	it := c.held.pop()
	c.heldMu.Unlock()
	c.out.push(it)
	c.heldConfirms.Add(-1)
}

// heldQueue is a FIFO of confirms waiting for the disk. It is a slice
// with a moving head, moved down when the head has passed half of it, so
// a steady stream of held confirms reuses one array.
type heldQueue struct {
	items []outItem
	head  int
}

func (q *heldQueue) push(it outItem) {
	if q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, it)
}

// pop removes and returns the oldest item; there must be one.
func (q *heldQueue) pop() outItem {
	it := q.items[q.head]
	q.items[q.head] = outItem{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return it
}
