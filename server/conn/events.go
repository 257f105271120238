package conn

import (
	"warren/engine"
	"warren/server/amqp"
)

// sink receives the connection's engine events on the broker goroutine.
type sink struct{ c *conn }

// Events queues the frames each event calls for and applies back-pressure.
func (s sink) Events(e *engine.Broker, evs []engine.Event) {
	c := s.c
	for i := range evs {
		ev := &evs[i]
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
			c.dropReplyTo(ev.Channel)
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
		e.PauseConnection(c.id, true)
	}
}

// resume lifts back-pressure once the writer has drained the outbox.
func (c *conn) resume() {
	c.b.Do(func(e *engine.Broker) {
		if c.paused && !c.dead {
			c.paused = false
			c.pausedFlag.Store(false)
			e.PauseConnection(c.id, false)
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
func (c *conn) pushConfirm(it outItem, durable bool) {
	if !durable && c.heldConfirms.Load() == 0 {
		c.out.push(it)
		return
	}
	pos := uint64(0)
	if durable {
		pos = c.b.LogEnd()
	}
	c.heldConfirms.Add(1)
	c.b.AfterDurable(pos, func() {
		c.out.push(it)
		c.heldConfirms.Add(-1)
	})
}
