package engine

import (
	"strconv"

	"warren/engine/deadline"
)

// The delayed-message exchange (rabbitmq-delayed-message-exchange): a
// message published with an x-delay header of N > 0 milliseconds is held by
// the exchange and routed, by the rules of its x-delayed-type, when N has
// elapsed. Held messages are the exchange's, not any queue's.
//
// The plugin's route/2 returns no destinations for a message it holds, and
// RabbitMQ treats that like any unroutable message, so at publish time
// (plugin README, "Limitations"; issues #7 and #36):
//   - a mandatory publish is returned 312 NO_ROUTE, although the message is
//     delivered later;
//   - an alternate exchange receives the message at once (x-delay intact).
// When the delay elapses the plugin routes the message through the stored
// exchange with x-delay negated (so that it is not delayed again), with the
// full rules again: bindings, exchange-to-exchange bindings and the
// alternate exchange if nothing matches.

// maxDelayMs is the largest delay the plugin honours (Erlang's timer limit,
// 2^32-1 ms); a larger x-delay routes the message at once.
const maxDelayMs = 4294967295

// delayedMsg is one held message.
type delayedMsg struct {
	x      *exchange
	msg    *Message
	delay  int64
	timer  deadline.Timer[timerRef]
	heldAt int // index in x.held
}

// delayOf returns the x-delay of a message reaching a delayed-message
// exchange, and whether it must be held. As the plugin's get_delay/1 does,
// integers are taken as they are, floats are truncated and strings are
// parsed as integers; anything else, and a delay outside 1..2^32-1, means no
// delay.
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
		switch f := v.(type) {
		case float32:
			n = int64(f)
		case float64:
			n = int64(f)
		case string:
			p, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return 0, false
			}
			n = p
		default:
			return 0, false
		}
	}
	return n, n > 0 && n <= maxDelayMs
}

func (b *Broker) delay(x *exchange, m *Message, delayMs int64) {
	d := &delayedMsg{x: x, msg: m, delay: delayMs}
	if b.dlog != nil && !x.vhost.deleted {
		// Every held message survives a restart (durable.go).
		b.addDurable(CmdDurableDelay{Vhost: x.vhost.name, Exchange: x.name, Type: x.kind, Route: x.route, Durable: x.durable,
			AutoDelete: x.autoDelete, Internal: x.internal, Args: x.args, Delay: delayMs, Entry: b.dlog.entryBytes(&entry{msg: m, expiresAt: Never})})
	}
	d.timer.Value = timerRef{kind: timerDelayed, d: d}
	b.timers.Reset(&d.timer, int64(b.now)+delayMs)
	d.heldAt = len(x.held)
	x.held = append(x.held, d)
	b.delayedCount++
	b.delayed.add(1, int64(len(m.Body)))
	b.emit(Event{Kind: EvDelayed, Vhost: x.vhost.name, Exchange: x.name, RoutingKey: m.RoutingKey, MsgID: m.ID, Msg: m, At: b.now + Time(delayMs)})
}

// releaseDelayed routes a held message whose delay elapsed. The plugin keeps
// the exchange record with the message and routes by it even if the
// exchange was deleted meanwhile; bindings are looked up by name, so such a
// message reaches only the deleted exchange's alternate exchange, or the
// bindings of an exchange declared since under the same name.
func (b *Broker) releaseDelayed(d *delayedMsg) {
	if b.dlog != nil && !d.x.vhost.deleted {
		b.addDurable(CmdDurableRelease{Vhost: d.x.vhost.name, Exchange: d.x.name, ID: d.msg.ID})
	}
	x := d.x
	v := x.vhost
	if v.deleted {
		// Its vhost is being deleted, or has been (the exchange went
		// before it): the message ends as the deletion ends those it
		// finds (queuewalk.go). The exchange's list is not compacted
		// under the deletion's walk.
		x.held[d.heldAt] = nil
		x.heldGone++
		v.dropHeld(x, d)
		return
	}
	x.unhold(d)
	rx := x
	if nx, ok := v.exchanges[x.name]; ok && x.deleted {
		rx = nx
	}
	m := releasedCopy(d.msg, d.delay)
	m.ID = b.newMsgID()
	b.emit(Event{Kind: EvPublished, Vhost: v.name, Exchange: x.name, RoutingKey: m.RoutingKey, MsgID: d.msg.ID, NewMsgID: m.ID, Msg: m, Reason: "delay-elapsed"})
	targets := b.route(rx, m, m.RoutingKeys(), b.queueScratch[:0])
	b.queueScratch = targets[:0]
	if len(targets) == 0 {
		b.emit(Event{Kind: EvDropped, Vhost: v.name, Exchange: x.name, MsgID: m.ID, Msg: m, Cause: DropUnroutable})
	}
	for _, t := range targets {
		t.q.offer(m, t.via)
	}
	b.flush()
}

// unhold takes a released message out of x.held in O(1) amortized time,
// whatever the order messages are released in: its slot is set to nil and
// the list is compacted once half of it is nil.
func (x *exchange) unhold(d *delayedMsg) {
	x.vhost.b.delayed.add(-1, -int64(len(d.msg.Body)))
	x.held[d.heldAt] = nil
	x.heldGone++
	if x.heldGone*2 < len(x.held) {
		return
	}
	live := x.held[:0]
	for _, o := range x.held {
		if o != nil {
			o.heldAt = len(live)
			live = append(live, o)
		}
	}
	clear(x.held[len(live):])
	x.held, x.heldGone = live, 0
}

// releasedCopy is the plugin's swap_delay_header/1: the message as routed
// when its delay elapses, with x-delay set to -delay (a signed 32-bit
// integer) so that consumers can tell it came through the delay. Like a
// dead-lettered message it is a new Message (the caller gives it its id):
// the held one may already sit in queues, via an alternate exchange.
func releasedCopy(m *Message, delayMs int64) *Message {
	nm := *m
	props := *m.Props
	props.Headers = make(Table, len(m.Props.Headers))
	for k, v := range m.Props.Headers {
		props.Headers[k] = v
	}
	if delayMs <= 1<<31 {
		props.Headers["x-delay"] = int32(-delayMs)
	} else {
		props.Headers["x-delay"] = -delayMs
	}
	nm.Props = &props
	return &nm
}

// dropHeld ends a delayed message that x held (taken out of x.held
// already) because the vhost is deleted.
func (v *vhost) dropHeld(x *exchange, d *delayedMsg) {
	v.b.timers.Remove(&d.timer)
	v.b.delayed.add(-1, -int64(len(d.msg.Body)))
	v.b.emit(Event{Kind: EvDropped, Vhost: v.name, Exchange: x.name, MsgID: d.msg.ID, Msg: d.msg, Cause: "vhost deleted"})
}
