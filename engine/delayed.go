package engine

import "warren/engine/deadline"

// The delayed-message exchange (rabbitmq-delayed-message-exchange): a
// message published with an x-delay header of N > 0 milliseconds is held by
// the exchange and routed, by the rules of its x-delayed-type, when N has
// elapsed. Held messages are the exchange's, not any queue's.

// delayedMsg is one held message.
type delayedMsg struct {
	x     *exchange
	msg   *Message
	timer deadline.Timer[timerRef]
}

// delayOf returns the x-delay of a message published to a delayed-message
// exchange, and whether it must be held.
func delayOf(x *exchange, m *Message) (int64, bool) {
	if x.kind != KindDelayed {
		return 0, false
	}
	v, ok := m.Headers()["x-delay"]
	if !ok {
		return 0, false
	}
	n, isInt := asInt64(v)
	if !isInt {
		if f, isNum := asFloat64(v); isNum {
			n = int64(f)
		} else {
			return 0, false
		}
	}
	return n, n > 0
}

func (b *Broker) delay(x *exchange, m *Message, delayMs int64) {
	d := &delayedMsg{x: x, msg: m}
	d.timer.Value = timerRef{kind: timerDelayed, d: d}
	b.timers.Reset(&d.timer, int64(b.now)+delayMs)
	x.held = append(x.held, d)
	b.emit(Event{Kind: EvDelayed, Vhost: x.vhost.name, Exchange: x.name, RoutingKey: m.RoutingKey, MsgID: m.ID, Msg: m, At: b.now + Time(delayMs)})
}

// releaseDelayed routes a held message whose delay elapsed.
func (b *Broker) releaseDelayed(d *delayedMsg) {
	x := d.x
	for i, o := range x.held {
		if o == d {
			x.held = append(x.held[:i], x.held[i+1:]...)
			break
		}
	}
	if x.deleted {
		return
	}
	queues := b.route(x, d.msg, d.msg.RoutingKeys(), b.queueScratch[:0])
	b.queueScratch = queues[:0]
	b.emit(Event{Kind: EvPublished, Vhost: x.vhost.name, Exchange: x.name, RoutingKey: d.msg.RoutingKey, MsgID: d.msg.ID, Msg: d.msg, Reason: "delay-elapsed"})
	if len(queues) == 0 {
		b.emit(Event{Kind: EvDropped, Vhost: x.vhost.name, Exchange: x.name, MsgID: d.msg.ID, Msg: d.msg, Text: "unroutable"})
	}
	for _, q := range queues {
		q.offer(d.msg)
	}
	b.flush()
}

// dropDelayed forgets the messages a deleted exchange was holding.
func (v *vhost) dropDelayed(x *exchange) {
	for _, d := range x.held {
		v.b.timers.Remove(&d.timer)
		v.b.emit(Event{Kind: EvDropped, Vhost: v.name, Exchange: x.name, MsgID: d.msg.ID, Msg: d.msg, Text: "exchange deleted"})
	}
	x.held = nil
}
