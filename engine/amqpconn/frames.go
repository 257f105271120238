package amqpconn

import "warren/engine"

// EventFrames is what the frames of a stateless event's Out are made of
// (basic.deliver or get-ok with its message, basic.return, basic.ack or
// nack): the few fields of the engine.Event they read, and nothing else.
// An Out keeps it by value, so a delivery needs no method allocated, and
// at about a third of the event's size: a delivery is copied into the
// machine's outs and the driver's outbox, and cleared after, so each byte
// of it counts once per message (pipelined publish+consume spent a tenth
// of its CPU copying and clearing whole events).
type EventFrames struct {
	Kind engine.EventKind
	// Multiple: the confirm covers every tag up to DeliveryTag.
	Multiple    bool
	Redelivered bool
	// HasDeliveryCount marks a delivery from a quorum queue, which
	// carries an x-delivery-count header of DeliveryCount.
	HasDeliveryCount bool
	DeliveryCount    int32
	// Remaining is a get-ok's message-count.
	Remaining   int
	DeliveryTag uint64
	// Code and Text are a return's reply.
	Code int
	Text string
	// ConsumerTag is a delivery's; empty for a get-ok.
	ConsumerTag string
	Exchange    string
	RoutingKey  string
	Msg         *engine.Message // shared, read-only
}

// FramesOf takes from ev what its frames need.
func FramesOf(ev *engine.Event) EventFrames {
	return EventFrames{Kind: ev.Kind, Multiple: ev.Multiple, Redelivered: ev.Redelivered, HasDeliveryCount: ev.HasDeliveryCount,
		DeliveryCount: ev.DeliveryCount, Remaining: ev.Remaining, DeliveryTag: ev.DeliveryTag, Code: ev.Code, Text: ev.Text,
		ConsumerTag: ev.ConsumerTag, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey, Msg: ev.Msg}
}
