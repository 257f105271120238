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
		case engine.EvDelivered, engine.EvReturned, engine.EvNacked:
			c.out.push(outItem{channel: ev.Channel.Num, ev: *ev})
		case engine.EvConfirmed:
			// A confirm of a message some queue keeps across a restart
			// waits for the command log to be on disk (writer.go).
			it := outItem{channel: ev.Channel.Num, ev: *ev}
			if ev.Durable {
				it.syncPos = c.b.LogEnd()
			}
			c.out.push(it)
		case engine.EvConsumerCancelled:
			// consumer_cancel_notify: tell the client when the server
			// cancelled its consumer (its queue was deleted).
			if ev.Reason == "queue-deleted" && c.caps["consumer_cancel_notify"] == true {
				c.push(ev.Channel.Num, &amqp.BasicCancel{ConsumerTag: ev.ConsumerTag, NoWait: true})
			}
		case engine.EvTxCommitted:
			// "A transaction's commit is durable when tx.commit-ok is
			// sent": it waits for the log like a durable confirm.
			c.out.push(outItem{channel: ev.Channel.Num, method: &amqp.TxCommitOk{}, syncPos: c.b.LogEnd()})
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
