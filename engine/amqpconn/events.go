package amqpconn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// EventKinds are the kinds of event a connection acts on: Event's cases,
// no more and no fewer.
var EventKinds = [...]engine.EventKind{engine.EvDelivered, engine.EvReturned, engine.EvConfirmed, engine.EvNacked,
	engine.EvConsumerCancelled, engine.EvTxCommitted, engine.EvChannelClosed, engine.EvConnectionClosed}

// Events takes the engine's events; it skips other connections' and the
// kinds it does not act on.
func (m *Machine) Events(evs []engine.Event) {
	for i := range evs {
		if evs[i].Channel.Conn == m.id && m.id != 0 {
			m.Event(&evs[i])
		}
	}
}

// Event takes one of the connection's events.
func (m *Machine) Event(ev *engine.Event) {
	if Stateless(ev.Kind) {
		if o, ok := EventOut(ev, m.Capability("consumer_cancel_notify")); ok {
			m.send(o)
		}
		return
	}
	n := ev.Channel.Num
	switch ev.Kind {
	case engine.EvChannelClosed:
		if ev.Code != engine.ReplySuccess && n != 0 {
			m.serverClosedChannel(ev)
		}
	case engine.EvConnectionClosed:
		m.gone = true
		if ev.Code != engine.ReplySuccess && !m.dead {
			m.closeConnection(ev.Code, ev.Text, ev.Method)
		}
	}
}

// Stateless reports whether the frames for an event of kind k follow
// from the event alone, with no connection state read or changed
// (EventOut makes them): deliveries, returns, confirms, consumer
// cancellations and tx.commit-ok. A driver may then send them from
// wherever the event reaches it; the others (ChannelClosed,
// ConnectionClosed) must go through the machine.
func Stateless(k engine.EventKind) bool {
	switch k {
	case engine.EvDelivered, engine.EvReturned, engine.EvConfirmed, engine.EvNacked, engine.EvConsumerCancelled, engine.EvTxCommitted:
		return true
	}
	return false
}

// EventOut is what a stateless event sends (see Stateless);
// notifyCancel says the client announced consumer_cancel_notify.
func EventOut(ev *engine.Event, notifyCancel bool) (Out, bool) {
	s, ok := EventSendOf(ev, notifyCancel)
	if !ok {
		return Out{}, false
	}
	o := Out{Channel: s.Channel, Method: s.Method, Confirm: s.Confirm, Durable: s.Durable}
	if s.Frames {
		o.Event = FramesOf(ev)
	}
	return o, true
}

// EventSend is EventOut's decision without the Out: a driver that sends
// a stateless event at once builds its own entry from the event where it
// queues it (FramesOf, when Frames), rather than copy an Out on the way:
// deliveries and confirms take that path once a message.
type EventSend struct {
	Channel uint16
	// Method is the method to send; nil when Frames.
	Method amqp.Method
	// Frames: the event's own frames (FramesOf): a delivery or get-ok,
	// a return, a confirm.
	Frames bool
	// Confirm and Durable are Out's.
	Confirm, Durable bool
}

// EventSendOf is what a stateless event sends (see EventOut).
func EventSendOf(ev *engine.Event, notifyCancel bool) (EventSend, bool) {
	n := ev.Channel.Num
	switch ev.Kind {
	case engine.EvDelivered, engine.EvReturned:
		return EventSend{Channel: n, Frames: true}, true
	case engine.EvConfirmed, engine.EvNacked:
		return EventSend{Channel: n, Frames: true, Confirm: true, Durable: ev.Kind == engine.EvConfirmed && ev.Durable}, true
	case engine.EvConsumerCancelled:
		// consumer_cancel_notify: tell the client when the server
		// cancelled its consumer (its queue was deleted).
		if ev.Reason == "queue-deleted" && notifyCancel {
			return EventSend{Channel: n, Method: &amqp.BasicCancel{ConsumerTag: ev.ConsumerTag, NoWait: true}}, true
		}
	case engine.EvTxCommitted:
		// "A transaction's commit is durable when tx.commit-ok is sent":
		// it waits for the log like a durable confirm.
		return EventSend{Channel: n, Method: &amqp.TxCommitOk{}, Confirm: true, Durable: true}, true
	}
	return EventSend{}, false
}

// serverClosedChannel records a channel exception the engine raised and
// tells the client.
func (m *Machine) serverClosedChannel(ev *engine.Event) {
	n := ev.Channel.Num
	if m.chans.get(n) == 0 {
		return
	}
	m.chans.set(n, chanClosing)
	if !m.dead {
		m.sendMethod(n, &amqp.ChannelClose{ReplyCode: uint16(ev.Code), ReplyText: ShortText(ev.Text), FailingClassID: ev.Method.Class, FailingMethodID: ev.Method.ID})
	}
}

// Backlog is told how many bytes wait to be written, against highWater:
// past it the connection's deliveries pause (the engine holds messages
// ready in their queues, as RabbitMQ's credit flow does), and below a
// quarter of it they resume. It returns the CmdPauseConnection to apply,
// if one is due; the driver applies it as it applies any command.
func (m *Machine) Backlog(bytes, highWater int) (engine.Command, bool) {
	if m.phase != phaseOpen || m.dead || m.gone {
		return nil, false
	}
	switch {
	case !m.paused && bytes > highWater:
		m.paused = true
		return engine.CmdPauseConnection{Conn: m.id, Paused: true}, true
	case m.paused && bytes < highWater/4:
		m.paused = false
		return engine.CmdPauseConnection{Conn: m.id, Paused: false}, true
	}
	return nil, false
}
